package contacts

// Patch is the body of a status change (PATCH of a contact): the opt
// statuses, the Telegram channel's identifier and opt status and the web
// push subscription, nil for a field the body leaves out (which keeps its
// value). A field given as "" or null clears it.
type Patch struct {
	OptStatus           *string
	OptStatusWebpush    *string
	TelegramIdentifier  *string
	TelegramOptStatus   *string
	WebpushSubscription *string
}

// Nothing reports whether the patch changes nothing: a body without any
// of its fields.
func (in Patch) Nothing() bool {
	return in.OptStatus == nil && in.OptStatusWebpush == nil && in.TelegramIdentifier == nil && in.TelegramOptStatus == nil &&
		in.WebpushSubscription == nil
}

// ApplyPatch sets the fields in gives on c, by the rules of Fill, and
// names every problem at once (code invalid_contact); c is changed only
// when there is none.
func ApplyPatch(c *Contact, in Patch) error {
	var p problems
	next := *c
	if in.OptStatus != nil {
		next.OptStatus = optStatus(in.OptStatus, "opt_status", &p)
	}
	if in.OptStatusWebpush != nil {
		next.OptStatusWebpush = optStatus(in.OptStatusWebpush, "opt_status_webpush", &p)
	}
	if in.TelegramIdentifier != nil {
		next.Telegram.Identifier = text(*in.TelegramIdentifier, "channel_telegram_identifier", &p)
	}
	if in.TelegramOptStatus != nil {
		next.Telegram.OptStatus = optStatus(in.TelegramOptStatus, "channel_telegram_opt_status", &p)
	}
	if in.WebpushSubscription != nil {
		next.WebpushSubscription = textOf(*in.WebpushSubscription, "webpush_subscription", MaxSubscriptionLen, &p)
	}
	if err := p.err(); err != nil {
		return err
	}
	*c = next
	return nil
}
