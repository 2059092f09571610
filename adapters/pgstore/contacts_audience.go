package pgstore

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

var _ campaign.Audience = (*ContactsStore)(nil)

// channelColumns are the address and opt status columns of a channel, as
// campaign.Address reads them: sms, viber and rbm the E.164 mobile
// number and opt_status, email the e-mail address and opt_status,
// whatsapp the mobile number and opt_status_whatsapp, telegram the
// Telegram identifier and opt status, webpush the contact's UUID and
// opt_status_webpush. A channel missing here reaches nobody.
var channelColumns = map[campaign.Channel][2]string{
	campaign.SMS:      {"contacts.mobile", "contacts.opt_status"},
	campaign.Viber:    {"contacts.mobile", "contacts.opt_status"},
	campaign.RBM:      {"contacts.mobile", "contacts.opt_status"},
	campaign.Email:    {"contacts.email", "contacts.opt_status"},
	campaign.WhatsApp: {"contacts.mobile", "contacts.opt_status_whatsapp"},
	campaign.Telegram: {"contacts.telegram_identifier", "contacts.telegram_opt_status"},
	campaign.Webpush:  {"contacts.uuid", "contacts.opt_status_webpush"},
}

// Recipients walks the tenant's contacts in store order, created time
// then UUID (byte order), as memstore walks them, from after, and returns
// the next limit that sel reaches. The cursor is the last recipient's
// "<created, RFC 3339 in UTC>|<uuid>" (memstore's form; created is
// stored to the microsecond), and a page is the rows after it, a keyset:
// a contact created behind the cursor during a run is not reached, and
// one whose list, opt status or deletion changes is judged when its page
// is read.
//
// A page is one statement, all of campaign.Address in SQL: the tenant,
// list_uuid = ANY(lists), deleted IS NULL, member not unsubscribed, the
// channel's address not empty (NULL is none) and its opt status exactly
// 'in', and sel.Query compiled by compileSegmentation over
// contactSegSchema with sel.Today, as the contact listing compiles it. It
// is ordered by (created, uuid) and walks contacts_order (service_uuid,
// created, uuid) from the cursor, a row comparison on the index, and
// stops after limit matches, so no page sorts the tenant's contacts and a
// walk reads each of them about once, however selective the selection.
// Statements run unprepared (customPlans), planned for their values, as
// the package doc asks for segmentation and as lists of very different
// sizes want: a plan is cheap next to a page.
func (s *ContactsStore) Recipients(ctx context.Context, svc msgkit.ServiceUUID, sel campaign.Selection, after string, limit int) ([]campaign.Recipient, string, error) {
	q, args, err := recipientsQuery(svc, sel, after, limit)
	if err != nil || q == "" {
		return nil, "", err
	}
	rows, err := customPlans{s.pool}.Query(ctx, q, args...)
	if err != nil {
		return nil, "", storageError(err, "campaign recipients")
	}
	var out []campaign.Recipient
	var r campaign.Recipient
	var created time.Time
	if _, err := pgx.ForEachRow(rows, []any{&r.Contact, &created, &r.Address}, func() error {
		out = append(out, r)
		return nil
	}); err != nil {
		return nil, "", storageError(err, "campaign recipients")
	}
	if len(out) == 0 {
		return nil, "", nil
	}
	return out, created.UTC().Format(time.RFC3339Nano) + "|" + out[len(out)-1].Contact, nil
}

// recipientsQuery is the statement of a page of Recipients and its
// arguments; "" when the page is empty without asking (no such channel,
// no room, a tenant no row can have).
func recipientsQuery(svc msgkit.ServiceUUID, sel campaign.Selection, after string, limit int) (string, []any, error) {
	var from time.Time
	var fromUUID string
	if after != "" {
		at, id, ok := strings.Cut(after, "|")
		t, err := time.Parse(time.RFC3339Nano, at)
		if !ok || err != nil || !storable(id) {
			return "", nil, contacts.BadCursor(after)
		}
		from, fromUUID = t, id
	}
	cols, ok := channelColumns[sel.Channel]
	if !ok || limit <= 0 || !storable(string(svc)) {
		return "", nil, nil
	}
	addr, opt := cols[0], cols[1]
	args := []any{string(svc), storableOnly(sel.Lists)}
	where := []string{"contacts.service_uuid = $1", "contacts.list_uuid = ANY($2::text[])", "contacts.deleted IS NULL",
		"contacts.member <> 'unsubscribed'", addr + " <> ''", opt + " = 'in'"}
	if after != "" {
		args = append(args, from, fromUUID)
		where = append(where, "(contacts.created, contacts.uuid) > ($3::timestamptz, $4::text)")
	}
	if sel.Query != nil {
		seg, err := compileSegmentation(sel.Query, contactSegSchema, sel.Today, &args)
		if err != nil {
			return "", nil, msgkit.Wrap(err, msgkit.Internal, segmentation.CodeInvalidSegmentation,
				"the segmentation query cannot be compiled")
		}
		where = append(where, seg)
	}
	args = append(args, limit)
	return "SELECT contacts.uuid, contacts.created, " + addr + " FROM contacts WHERE " + strings.Join(where, " AND ") +
		" ORDER BY contacts.created, contacts.uuid LIMIT $" + strconv.Itoa(len(args)), args, nil
}
