package contacts

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// OptStatus is whether a contact takes messages on a channel: in or out.
// The zero OptStatus is none given.
type OptStatus string

// The opt statuses.
const (
	OptIn  OptStatus = "in"
	OptOut OptStatus = "out"
)

// MemberStatus is a contact's status in a list or subscription option.
type MemberStatus string

// The member statuses.
const (
	Subscribed   MemberStatus = "subscribed"
	Unsubscribed MemberStatus = "unsubscribed"
)

// Channel is a contact's address on a messaging channel other than SMS
// (Telegram, WhatsApp, web push): its identifier (an alias or chat id, the
// mobile number, the web push subscription), opt status and the channel's
// own data, kept as sent.
type Channel struct {
	Name       string
	Identifier string
	OptStatus  OptStatus
	Data       json.RawMessage
}

// The channels a contact may carry.
const (
	ChannelTelegram = "telegram"
	ChannelWhatsApp = "whatsapp"
	ChannelWebpush  = "webpush"
)

// MaxSubscriptionLen is the most characters a web push subscription
// holds: a browser's push endpoint URL is longer than a contact field may
// be.
const MaxSubscriptionLen = 2048

// Contact is one person or business in a tenant's customer data. Its
// text fields are held by segmentation.Field, so that a segmentation
// query reads them directly (Contact is a segmentation.Record).
type Contact struct {
	UUID     string
	ListUUID string       // the list the contact belongs to
	Member   MemberStatus // its status in that list: subscribed unless unsubscribed
	Created  time.Time
	Updated  time.Time
	Deleted  time.Time // soft delete (gdpr=no); zero: in use

	values [numText]string // the standard text fields, by segmentation.Field
	// MobileRaw and BMobileRaw are the numbers as the client wrote them,
	// kept beside their E.164 form.
	MobileRaw, BMobileRaw string
	Birthday              msgkit.Date    // zero: none
	Custom                map[int]string // column_n -> value

	OptStatus         OptStatus
	OptStatusWebpush  OptStatus
	OptStatusWhatsApp OptStatus // set by import (insert_opt_channels, update_opt_channels)
	Telegram          Channel   // Name is ChannelTelegram when the contact has one
	// WebpushSubscription identifies the contact's browser to web push:
	// what the customer's site registered for it (such as its push
	// subscription's endpoint URL), kept as given. Set by a status change
	// (Patch) only, as opt_status_webpush is; "" is none.
	WebpushSubscription string

	// Options are the contact's subscription option memberships, by
	// option UUID (lower case).
	Options map[string]MemberStatus
	// Touchpoints and Interests are the contact's touchpoint and interest
	// memberships, by touchpoint or interest UUID (lower case).
	Touchpoints map[string]MemberStatus
	Interests   map[string]MemberStatus
}

// numText bounds the standard text fields' indices: every standard
// segmentation field but the memberships.
const numText = segmentation.SubscriptionOptionsIn

// Value is the value of a standard text field (birthday as YYYY-MM-DD) or
// of a custom column, "" when the contact has none.
func (c *Contact) Value(f segmentation.Field) string {
	switch {
	case f == segmentation.Birthday:
		if c.Birthday.IsZero() {
			return ""
		}
		return c.Birthday.String()
	case f.Column() > 0:
		return c.Custom[f.Column()]
	case f > 0 && f < numText:
		return c.values[f]
	}
	return ""
}

// setValue stores a checked value of a text field or column.
func (c *Contact) setValue(f segmentation.Field, v string) {
	switch {
	case f.Column() > 0:
		if v == "" {
			delete(c.Custom, f.Column())
			return
		}
		if c.Custom == nil {
			c.Custom = map[int]string{}
		}
		c.Custom[f.Column()] = v
	case f > 0 && f < numText:
		c.values[f] = v
	}
}

// Restore sets a standard text field or custom column to a value Fill
// stored before, without checking it again: for stores reading a contact
// back (a mobile number would cost its parse on every read). Birthday
// is set through the Birthday field.
func (c *Contact) Restore(f segmentation.Field, v string) {
	if f != segmentation.Birthday {
		c.setValue(f, v)
	}
}

// Text is Value for segmentation (segmentation.Record): mobile numbers in
// E.164, genders lower case, as Build stores them.
func (c *Contact) Text(f segmentation.Field) string {
	if f == segmentation.Birthday {
		return ""
	}
	return c.Value(f)
}

// Date is the birthday (segmentation.Record).
func (c *Contact) Date(f segmentation.Field) (msgkit.Date, bool) {
	if f != segmentation.Birthday || c.Birthday.IsZero() {
		return msgkit.Date{}, false
	}
	return c.Birthday, true
}

// Membership is the contact's membership of a subscription option
// (segmentation.Record).
func (c *Contact) Membership(option string) segmentation.Membership {
	switch c.Options[option] {
	case Subscribed:
		return segmentation.Subscribed
	case Unsubscribed:
		return segmentation.Unsubscribed
	}
	return segmentation.NotMember
}

var _ segmentation.Record = (*Contact)(nil)

// Channels are the contact's channels as responses list them: Telegram
// when it has one, then WhatsApp when it has a WhatsApp opt status (its
// identifier is the mobile number), then web push when it has a
// subscription (the identifier, with opt_status_webpush).
func (c *Contact) Channels() []Channel {
	out := []Channel{}
	if c.Telegram.Identifier != "" || c.Telegram.OptStatus != "" || len(c.Telegram.Data) > 0 {
		t := c.Telegram
		t.Name = ChannelTelegram
		t.Data = slices.Clone(t.Data)
		out = append(out, t)
	}
	if c.OptStatusWhatsApp != "" {
		out = append(out, Channel{Name: ChannelWhatsApp, Identifier: c.Value(segmentation.Mobile), OptStatus: c.OptStatusWhatsApp})
	}
	if c.WebpushSubscription != "" {
		out = append(out, Channel{Name: ChannelWebpush, Identifier: c.WebpushSubscription, OptStatus: c.OptStatusWebpush})
	}
	return out
}

// Clone is a copy of c sharing nothing with it.
func (c *Contact) Clone() Contact {
	d := *c
	d.Custom = maps.Clone(c.Custom)
	d.Options = maps.Clone(c.Options)
	d.Touchpoints = maps.Clone(c.Touchpoints)
	d.Interests = maps.Clone(c.Interests)
	d.Telegram.Data = slices.Clone(c.Telegram.Data)
	return d
}

// Has reports whether the contact has a value for the field (the
// required filter: mobile, email, birthday, first_name, last_name).
func (c *Contact) Has(f segmentation.Field) bool { return c.Value(f) != "" }
