package campaign

import (
	"context"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// Selection is whom a run of a campaign reaches: the contacts in use of
// Lists (each contact once: it belongs to one list), subscribed to their
// list, matching Query (nil: all), opted in to Channel and with an address
// for it (Address). Today is the day ann_in_days counts from. The Runner
// parses a campaign's query once a task and hands the same Query to every
// page of it: an Audience reads it and never changes it.
type Selection struct {
	Lists   []string
	Channel Channel
	Query   *segmentation.Query
	Today   msgkit.Date
}

// Recipient is a contact a run sends to, and where.
type Recipient struct {
	Contact string // the contact's UUID
	Address string
}

// Audience resolves a selection in pages: up to limit recipients after
// the cursor after ("" for the start), in a fixed order of the store's,
// and the cursor of the last one ("" with none). Pages walk the contacts
// as they are when each is read: a contact added behind the cursor during
// a run is not reached.
type Audience interface {
	Recipients(ctx context.Context, tenant msgkit.ServiceUUID, sel Selection, after string, limit int) (rs []Recipient, next string, err error)
}

// Address is where a contact gets a channel's messages, and whether it
// may: sms, viber and rbm go to the mobile number with opt_status in;
// email to the e-mail address with opt_status in; whatsapp to the mobile
// number with the WhatsApp opt status in; telegram to the Telegram
// identifier with the Telegram opt status in; webpush to the contact
// itself (its UUID: the browser subscription is the push service's) with
// opt_status_webpush in. A contact deleted, or unsubscribed from its
// list, gets nothing. The stores' Audience keeps to this rule; pgstore
// writes it in SQL, and the contract suite holds both to it.
func Address(c *contacts.Contact, ch Channel) (string, bool) {
	if !c.Deleted.IsZero() || c.Member == contacts.Unsubscribed {
		return "", false
	}
	addr, opt := "", contacts.OptStatus("")
	switch ch {
	case SMS, Viber, RBM:
		addr, opt = c.Value(segmentation.Mobile), c.OptStatus
	case Email:
		addr, opt = c.Value(segmentation.Email), c.OptStatus
	case WhatsApp:
		addr, opt = c.Value(segmentation.Mobile), c.OptStatusWhatsApp
	case Telegram:
		addr, opt = c.Telegram.Identifier, c.Telegram.OptStatus
	case Webpush:
		addr, opt = c.UUID, c.OptStatusWebpush
	}
	if addr == "" || opt != contacts.OptIn {
		return "", false
	}
	return addr, true
}
