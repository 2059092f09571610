package pgstore

import (
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// contactFilterScope are the conditions of q's membership, channel and
// group filters, as contacts.ContactQuery.Selects says them, with their
// values bound through bind; custom is true when the statement should run
// unprepared (customPlans): with a compiled segmentation query, and with
// a membership filter, whose selectivity a generic plan cannot see (it
// would count a third of a million members through the GIN index and
// their rows, where the plan for the values counts them from the
// covering index of 0016_contacts_filters.sql, a few times faster).
//
// A membership filter asks the jsonb object's keys with ?| (the GIN
// indexes of 0016_contacts_filters.sql), and a status through ->> of
// each key. Every value bound is used in the statement: PostgreSQL
// infers the type of each parameter, and one of no use has none.
func contactFilterScope(q *contacts.ContactQuery, args *[]any, bind func(any) string) (scope []string, custom bool, err error) {
	for _, m := range []struct {
		col string
		f   *contacts.MembershipFilter
	}{{"contacts.options", q.Options}, {"contacts.touchpoints", q.Touchpoints}, {"contacts.interests", q.Interests}} {
		if m.f != nil {
			scope = append(scope, membershipSQL(m.col, m.f, bind))
			custom = true
		}
	}
	if ch := q.Channel; !ch.IsZero() {
		scope = append(scope, channelSQL(ch, bind))
	}
	if g := q.Group; g != nil {
		scope = append(scope, "contacts.list_uuid = ANY("+bind(storableOnly(g.ListUUIDs))+"::text[])")
		for _, seg := range g.Segments {
			where, err := compileSegmentation(seg, contactSegSchema, q.Today, args)
			if err != nil {
				return nil, false, msgkit.Wrap(err, msgkit.Internal, segmentation.CodeInvalidSegmentation,
					"the group's segmentation query cannot be compiled")
			}
			scope = append(scope, where)
			custom = true
		}
	}
	return scope, custom, nil
}

// channelSQL is the condition that a contact has a channel f asks for:
// Telegram when one of its identifier, opt status and data is not empty,
// WhatsApp when it has a WhatsApp opt status (its identifier the mobile),
// web push when it has a subscription (its identifier).
func channelSQL(f contacts.ChannelFilter, bind func(any) string) string {
	if !storable(f.Identifier) || !storable(string(f.OptStatus)) {
		return "FALSE"
	}
	var id, opt string
	if f.Identifier != "" {
		id = bind(f.Identifier)
	}
	if f.OptStatus != "" {
		opt = bind(string(f.OptStatus))
	}
	one := func(has, idCol, optCol string) string {
		conds := []string{has}
		if id != "" {
			conds = append(conds, idCol+" = "+id+"::text")
		}
		if opt != "" {
			conds = append(conds, optCol+" = "+opt+"::text")
		}
		return "(" + strings.Join(conds, " AND ") + ")"
	}
	var alts []string
	if f.Name == "" || f.Name == contacts.ChannelTelegram {
		alts = append(alts, one("(contacts.telegram_identifier <> '' OR contacts.telegram_opt_status <> '' OR length(contacts.telegram_data) > 0)",
			"contacts.telegram_identifier", "contacts.telegram_opt_status"))
	}
	if f.Name == "" || f.Name == contacts.ChannelWhatsApp {
		alts = append(alts, one("contacts.opt_status_whatsapp <> ''", "contacts.mobile", "contacts.opt_status_whatsapp"))
	}
	if f.Name == "" || f.Name == contacts.ChannelWebpush {
		alts = append(alts, one("contacts.webpush_subscription <> ''", "contacts.webpush_subscription", "contacts.opt_status_webpush"))
	}
	if len(alts) == 0 {
		// Contacts keep no such channel; the values bound are still used,
		// as PostgreSQL infers every parameter's type.
		return one("FALSE", "contacts.telegram_identifier", "contacts.telegram_opt_status")
	}
	return "(" + strings.Join(alts, " OR ") + ")"
}

// membershipSQL is the condition that the memberships in col hold one f
// asks for: a key of f.UUIDs, with f.Status when given.
func membershipSQL(col string, f *contacts.MembershipFilter, bind func(any) string) string {
	ids := storableOnly(f.UUIDs)
	if len(ids) == 0 || !storable(string(f.Status)) {
		return "FALSE"
	}
	p := bind(ids)
	if f.Status == "" {
		return col + " ?| " + p + "::text[]"
	}
	return "(" + col + " ?| " + p + "::text[] AND EXISTS (SELECT 1 FROM unnest(" + p + "::text[]) AS k(id) WHERE " +
		col + " ->> k.id = " + bind(string(f.Status)) + "::text))"
}
