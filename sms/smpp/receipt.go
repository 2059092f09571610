package smpp

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// Receipt is an SMSC delivery receipt: what the text of a receipting
// deliver_sm says (SMPP 3.4 Appendix B) and what its optional parameters
// say, merged.
//
// # The text
//
// The text has the shape
//
//	id:IIIIIIIIII sub:SSS dlvrd:DDD submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DDDDDDD err:E Text: ...
//
// and SMSCs bend it every way, so ParseReceiptText reads it loosely:
//   - Keys are matched without regard to case ("Text:" and "text:"), with
//     any spaces before the colon, and "submit date" and "done date" also
//     as "submit_date", "submitdate" and so on.
//   - Fields come in any order and are separated by any run of spaces,
//     tabs or line ends; trailing NULs and spaces (some SMSCs pad the
//     text or end it with a C string's NUL) are ignored.
//   - A value runs from the colon to the next space. A value may also
//     follow the colon after spaces ("id: 123"), unless what follows is
//     itself a key: "err: text:x" is an empty err, not an err "text:x".
//   - text is the exception: it runs to the end, colons and spaces
//     included, so it cannot be followed by another field; the spaces
//     around it are dropped.
//   - Words that are no known key (a vendor's extra "imsi:...", a leading
//     "Receipt") are skipped rather than refused, since they say nothing
//     a delivery state depends on.
//   - id and stat are required (a receipt without them cannot be matched
//     or understood); sub, dlvrd, both dates, err and text are optional,
//     and an empty value counts as absent.
//
// Refused, with a *ReceiptError naming the field: a text with no known
// key at all (not a receipt), a missing id or stat, an id longer than 64
// characters (the longest message_id SMPP allows), a date that is not 10
// digits (YYMMDDhhmm) or 12 (YYMMDDhhmmss) of a real calendar time, a sub
// or dlvrd that is not a number of at most nine digits, and a key given
// twice (which of the two is true cannot be known, and a wrong id would
// settle another message).
//
// Dates carry no zone. They are read in UTC, the one zone an ESME can
// assume without being told; ParseReceiptTextIn and ReceiptOfIn read
// them in another location for an SMSC known to write its local time. A
// two-digit year YY is 20YY.
//
// # The deliver_sm
//
// ReceiptOf takes a deliver_sm whose esm_class message type (the bits of
// ESMClassReceiptMask) is an SMSC delivery receipt (0x04) or an
// intermediate delivery notification (0x20): both are written by the SMSC
// about a message it took, in the same shape. An SME delivery
// acknowledgement (0x08) or a user acknowledgement (0x10) is not a
// receipt: the recipient's handset writes it in no fixed shape, and
// msgkit never asks for one (its registered_delivery asks only for SMSC
// receipts). Only esm_class decides: a mobile-originated message whose
// text looks like a receipt is not one, so a handset cannot forge a
// delivery state.
//
// The text is short_message, or message_payload when the deliver_sm
// carries one. The optional parameters win over the text: a
// receipted_message_id (a C-Octet String, taken with or without its NUL)
// replaces the text's id, and a message_state of 1 to 8 replaces the
// state the text's stat gives (an other value is ignored). A receipt
// whose text cannot be read at all but whose parameters give both the id
// and the state is taken from the parameters alone; a text missing only
// its id or stat is completed by them. network_error_code is kept as it
// came.
//
// # Delivery events
//
// Event maps a receipt onto the delivery state machine of package sms.
// A network error code is one the receipt gives in the range of GSM
// causes (1..255) that the interface's delivery error table lists
// (sms.DLRError.Known): first a network_error_code of type GSM (3), then
// err read as a decimal number ("001", "27"). Codes out of that range or
// not in the table (an SMSC's own numbering) give no code. Then:
//
//	DELIVERED                     -> StatusDelivered, 0
//	EXPIRED                       -> StatusExpired, 996 (validity expired)
//	ENROUTE with a temporary code -> StatusTemporaryFailure, the code
//	ENROUTE otherwise, ACCEPTED   -> StatusAccepted, 0
//	UNDELIVERABLE, UNKNOWN        -> with a temporary code: StatusTemporaryFailure, the code;
//	                                 with another code: StatusPermanentFailure, the code;
//	                                 without: StatusPermanentFailure, 995 (UNDELIVERABLE)
//	                                 or 500 (UNKNOWN)
//	REJECTED, DELETED             -> StatusPermanentFailure, the code if it is not temporary,
//	                                 else 989 (supplier rejected)
//	no state (an unknown stat)    -> StatusAccepted, 0
//
// Why:
//   - ENROUTE is in transit: the SMSC still tries. It is a failure only
//     when the receipt says an attempt failed for a reason that may pass
//     (an intermediate notification of an absent subscriber), which is
//     exactly the interface's BUFFERED.
//   - ACCEPTED is, as the protocol defines it, a message read on the
//     subscriber's behalf by customer service, and many SMSCs send ACCEPTD
//     as "taken by the operator" before the final receipt. Either way delivery to the
//     handset is not confirmed, so it is no more than an acceptance, which
//     sms.Step ignores once the part is with the SMSC: the part ends by a
//     later receipt or by expiry.
//   - UNDELIVERABLE and UNKNOWN with a code the table marks temporary are
//     temporary failures, as the table says of those codes: the part is
//     BUFFERED with the network's reason, and ends by a later receipt or,
//     the SMSC having given up, by expiry (996).
//   - UNKNOWN without a code is the SMSC saying it will not learn the
//     outcome; no further receipt comes, so the part ends now, UNDELIVERED
//     with 500 (other error) rather than open until its validity ends.
//   - REJECTED and DELETED are the SMSC's decisions after it took the
//     part, so they end it whatever the network said; they are permanent
//     failures and not sms.StatusRejected, because sms.Step applies a
//     rejection only to a part not yet with the SMSC, and a receipt always
//     comes after submit_sm_resp: a StatusRejected would be ignored and
//     the part left open until expiry. 989 (supplier rejected) is the
//     interface's code for a part the supplier refused.
//   - An unknown stat changes nothing: guessing a final state from a word
//     msgkit does not know could end a part wrongly for good.
//
// # Rendering
//
// FormatReceiptText writes a receipt in the shape above, in Appendix B's
// order; ParseReceiptText reads back what it writes from any receipt that
// ParseReceiptText returned.
type Receipt struct {
	// ID is the SMSC's id of the receipted message: receipted_message_id
	// when the deliver_sm has one, else the text's id (at most 64
	// characters, as written; IDVariants lists the forms to match it by).
	ID string
	// Sub and Dlvrd are the text's counts of messages submitted and
	// delivered (usually 1 and 0 or 1); -1 when the text has none.
	Sub, Dlvrd int
	// SubmitDate and DoneDate are the text's dates (minute or second
	// precision, in UTC unless read in another location); zero when
	// absent.
	SubmitDate, DoneDate time.Time
	// Stat is the text's stat as written ("DELIVRD", "delivered"), ""
	// when the state came from message_state alone. State, not Stat, is
	// what counts.
	Stat string
	// Err is the text's err as written ("000", "1"), "" when absent.
	Err string
	// Text is the text's text (its first characters, by custom 20),
	// without the spaces around it.
	Text string
	// State is the message state: message_state when the deliver_sm has a
	// valid one, else the state Stat names; 0 when neither gives one (a
	// stat msgkit does not know).
	State MessageState
	// NetworkError is the network_error_code parameter; zero when absent.
	NetworkError pdu.NetworkErrorCode
}

// MessageState is the message_state parameter, which a receipt's
// stat abbreviates.
type MessageState byte

// The eight message states.
const (
	StateEnroute       MessageState = 1 // in transit: the SMSC still tries (stat ENROUTE)
	StateDelivered     MessageState = 2 // delivered to the handset (DELIVRD)
	StateExpired       MessageState = 3 // validity period ended (EXPIRED)
	StateDeleted       MessageState = 4 // deleted at the SMSC (DELETED)
	StateUndeliverable MessageState = 5 // undeliverable (UNDELIV)
	StateAccepted      MessageState = 6 // accepted: read on the subscriber's behalf (ACCEPTD)
	StateUnknown       MessageState = 7 // in an invalid or unknown state (UNKNOWN)
	StateRejected      MessageState = 8 // rejected (REJECTD)
)

// messageStates holds each state's name and its stat, the seven-letter
// abbreviation Appendix B uses.
var messageStates = [...]struct{ name, stat string }{
	StateEnroute:       {"ENROUTE", "ENROUTE"},
	StateDelivered:     {"DELIVERED", "DELIVRD"},
	StateExpired:       {"EXPIRED", "EXPIRED"},
	StateDeleted:       {"DELETED", "DELETED"},
	StateUndeliverable: {"UNDELIVERABLE", "UNDELIV"},
	StateAccepted:      {"ACCEPTED", "ACCEPTD"},
	StateUnknown:       {"UNKNOWN", "UNKNOWN"},
	StateRejected:      {"REJECTED", "REJECTD"},
}

// Valid reports whether s is one of the eight states.
func (s MessageState) Valid() bool { return s >= StateEnroute && s <= StateRejected }

// String names the state as the specification does ("UNDELIVERABLE").
func (s MessageState) String() string {
	if s.Valid() {
		return messageStates[s].name
	}
	return fmt.Sprintf("message_state(%d)", byte(s))
}

// Stat is the state's abbreviation in a receipt's text ("UNDELIV"), ""
// for a value that is no state.
func (s MessageState) Stat() string {
	if s.Valid() {
		return messageStates[s].stat
	}
	return ""
}

// ParseStat reads a receipt's stat: the abbreviation (DELIVRD, EXPIRED,
// DELETED, UNDELIV, ACCEPTD, UNKNOWN, REJECTD, ENROUTE) or the state's
// full name (DELIVERED, UNDELIVERABLE, ...), which some SMSCs write, in
// any case.
func ParseStat(stat string) (MessageState, bool) {
	for s := StateEnroute; s <= StateRejected; s++ {
		if strings.EqualFold(stat, messageStates[s].stat) || strings.EqualFold(stat, messageStates[s].name) {
			return s, true
		}
	}
	return 0, false
}

// ReceiptError says why a receipt was refused and which field is at
// fault: a text key ("id", "stat", "submit date", ...), an optional
// parameter ("receipted_message_id", "message_state"), or "receipt" for
// a text with no receipt shape.
type ReceiptError struct {
	Field  string
	Reason string
}

func (e *ReceiptError) Error() string {
	return "smpp: delivery receipt: " + e.Field + ": " + e.Reason
}

// The fields of a receipt's text, in Appendix B's order.
type receiptField uint8

const (
	rfID receiptField = iota
	rfSub
	rfDlvrd
	rfSubmitDate
	rfDoneDate
	rfStat
	rfErr
	rfText
	rfCount
)

// receiptKeys are the fields' keys; a second word is matched after any
// spaces or underscores ("submit date", "submit_date", "submitdate").
var receiptKeys = [rfCount]struct{ word, second, name string }{
	rfID:         {"id", "", "id"},
	rfSub:        {"sub", "", "sub"},
	rfDlvrd:      {"dlvrd", "", "dlvrd"},
	rfSubmitDate: {"submit", "date", "submit date"},
	rfDoneDate:   {"done", "date", "done date"},
	rfStat:       {"stat", "", "stat"},
	rfErr:        {"err", "", "err"},
	rfText:       {"text", "", "text"},
}

// maxReceiptID is the longest id taken: message_id's 65 octets less the
// NUL.
const maxReceiptID = pdu.MaxMessageID

// ParseReceiptText reads the text of a delivery receipt, its dates in
// UTC. See Receipt for the shape it reads and what it refuses; a refusal
// is a *ReceiptError. It allocates only the receipt's strings.
func ParseReceiptText(b []byte) (Receipt, error) {
	return ParseReceiptTextIn(b, time.UTC)
}

// ParseReceiptTextIn is ParseReceiptText with the dates read in loc (nil
// means UTC), for an SMSC that writes its local time.
func ParseReceiptTextIn(b []byte, loc *time.Location) (Receipt, error) {
	r, err := scanReceipt(b, loc)
	if err != nil {
		return Receipt{}, err
	}
	if r.ID == "" {
		return Receipt{}, &ReceiptError{Field: "id", Reason: "missing"}
	}
	if r.Stat == "" {
		return Receipt{}, &ReceiptError{Field: "stat", Reason: "missing"}
	}
	return r, nil
}

// scanReceipt reads the fields a text has, leaving the check that id and
// stat are there to its caller, since a deliver_sm's parameters may give
// them.
func scanReceipt(b []byte, loc *time.Location) (Receipt, error) {
	if loc == nil {
		loc = time.UTC
	}
	b = trimReceiptRight(b)
	r := Receipt{Sub: -1, Dlvrd: -1}
	var seen [rfCount]bool
	found := false
	i := 0
	for {
		i = skipReceiptSpace(b, i)
		if i == len(b) {
			break
		}
		f, j, ok := receiptKeyAt(b, i)
		if !ok {
			// Not a key: skip the word.
			for i < len(b) && !isReceiptSpace(b[i]) {
				i++
			}
			continue
		}
		name := receiptKeys[f].name
		if seen[f] {
			return Receipt{}, &ReceiptError{Field: name, Reason: "given twice"}
		}
		seen[f], found = true, true
		if f == rfText {
			r.Text = string(b[skipReceiptSpace(b, j):])
			break
		}
		// The value starts at the colon, or after spaces unless a key
		// starts there.
		start := j
		if start < len(b) && isReceiptSpace(b[start]) {
			start = skipReceiptSpace(b, start)
			if _, _, isKey := receiptKeyAt(b, start); isKey {
				i = start
				continue // an empty value: the field is absent
			}
		}
		end := start
		for end < len(b) && !isReceiptSpace(b[end]) {
			end++
		}
		i = end
		if start == end {
			continue // an empty value at the end: absent
		}
		if err := r.set(f, b[start:end], loc); err != nil {
			return Receipt{}, err
		}
	}
	if !found {
		return Receipt{}, &ReceiptError{Field: "receipt", Reason: "no receipt field (id, stat, ...): not a delivery receipt"}
	}
	return r, nil
}

// set stores one field's non-empty value.
func (r *Receipt) set(f receiptField, v []byte, loc *time.Location) error {
	name := receiptKeys[f].name
	switch f {
	case rfID:
		if len(v) > maxReceiptID {
			return &ReceiptError{Field: name, Reason: fmt.Sprintf("%d characters, at most %d", len(v), maxReceiptID)}
		}
		r.ID = string(v)
	case rfSub, rfDlvrd:
		n, ok := receiptCount(v)
		if !ok {
			return &ReceiptError{Field: name, Reason: fmt.Sprintf("%q is not a number of at most 9 digits", receiptExcerpt(v))}
		}
		if f == rfSub {
			r.Sub = n
		} else {
			r.Dlvrd = n
		}
	case rfSubmitDate, rfDoneDate:
		t, ok := receiptDate(v, loc)
		if !ok {
			return &ReceiptError{Field: name, Reason: fmt.Sprintf("%q is not a date YYMMDDhhmm or YYMMDDhhmmss", receiptExcerpt(v))}
		}
		if f == rfSubmitDate {
			r.SubmitDate = t
		} else {
			r.DoneDate = t
		}
	case rfStat:
		r.Stat = string(v)
		r.State, _ = ParseStat(r.Stat)
	case rfErr:
		r.Err = string(v)
	}
	return nil
}

// receiptExcerpt bounds what an error quotes of a value.
func receiptExcerpt(v []byte) []byte {
	if len(v) > 24 {
		return v[:24]
	}
	return v
}

func isReceiptSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func skipReceiptSpace(b []byte, i int) int {
	for i < len(b) && isReceiptSpace(b[i]) {
		i++
	}
	return i
}

// trimReceiptRight drops the trailing spaces and NULs.
func trimReceiptRight(b []byte) []byte {
	n := len(b)
	for n > 0 && (isReceiptSpace(b[n-1]) || b[n-1] == 0) {
		n--
	}
	return b[:n]
}

// receiptKeyAt matches a key at b[i:], followed by any spaces and a
// colon; it returns the field and where its value starts.
func receiptKeyAt(b []byte, i int) (receiptField, int, bool) {
	for f, k := range receiptKeys {
		j, ok := receiptFold(b, i, k.word)
		if !ok {
			continue
		}
		if k.second != "" {
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '_') {
				j++
			}
			if j, ok = receiptFold(b, j, k.second); !ok {
				continue
			}
		}
		j = skipReceiptSpace(b, j)
		if j < len(b) && b[j] == ':' {
			return receiptField(f), j + 1, true
		}
	}
	return 0, 0, false
}

// receiptFold matches the lower-case ASCII word at b[i:] in any case.
func receiptFold(b []byte, i int, word string) (int, bool) {
	if len(b)-i < len(word) {
		return i, false
	}
	for k := 0; k < len(word); k++ {
		c := b[i+k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[k] {
			return i, false
		}
	}
	return i + len(word), true
}

// receiptCount reads sub or dlvrd: 1 to 9 decimal digits, so that it
// fits an int anywhere.
func receiptCount(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// receiptDate reads YYMMDDhhmm or YYMMDDhhmmss in loc, refusing a time
// the calendar does not have (month 13, 30 February, 24:00).
func receiptDate(v []byte, loc *time.Location) (time.Time, bool) {
	if len(v) != 10 && len(v) != 12 {
		return time.Time{}, false
	}
	var n [6]int
	for k := 0; k < len(v)/2; k++ {
		hi, lo := v[2*k]-'0', v[2*k+1]-'0'
		if hi > 9 || lo > 9 {
			return time.Time{}, false
		}
		n[k] = int(hi)*10 + int(lo)
	}
	year, month, day, hour, minute, second := 2000+n[0], time.Month(n[1]), n[2], n[3], n[4], n[5]
	if month < time.January || month > time.December || day < 1 || hour > 23 || minute > 59 || second > 59 {
		return time.Time{}, false
	}
	// Checked in UTC, where no day lacks an hour, so that only the
	// calendar decides.
	if time.Date(year, month, day, 0, 0, 0, 0, time.UTC).Day() != day {
		return time.Time{}, false
	}
	return time.Date(year, month, day, hour, minute, second, 0, loc), true
}

// FormatReceiptText writes r as a receipt's text in Appendix B's order:
// id, sub and dlvrd as three digits or more (left out when negative),
// the dates as YYMMDDhhmm or, when they have seconds, YYMMDDhhmmss, in
// their own location (left out when zero; the century is dropped), stat
// (Stat, or State's abbreviation when Stat is empty), err when not
// empty, and "Text:" with Text last, since it runs to the end. The
// simulator sends it; ParseReceiptText reads back any receipt it
// returned.
func FormatReceiptText(r Receipt) []byte {
	b := make([]byte, 0, 96+len(r.ID)+len(r.Stat)+len(r.Err)+len(r.Text))
	b = append(b, "id:"...)
	b = append(b, r.ID...)
	if r.Sub >= 0 {
		b = fmt.Appendf(b, " sub:%03d", r.Sub)
	}
	if r.Dlvrd >= 0 {
		b = fmt.Appendf(b, " dlvrd:%03d", r.Dlvrd)
	}
	if !r.SubmitDate.IsZero() {
		b = appendReceiptDate(append(b, " submit date:"...), r.SubmitDate)
	}
	if !r.DoneDate.IsZero() {
		b = appendReceiptDate(append(b, " done date:"...), r.DoneDate)
	}
	if stat := cmp.Or(r.Stat, r.State.Stat()); stat != "" {
		b = append(append(b, " stat:"...), stat...)
	}
	if r.Err != "" {
		b = append(append(b, " err:"...), r.Err...)
	}
	b = append(b, " Text:"...)
	return append(b, r.Text...)
}

func appendReceiptDate(b []byte, t time.Time) []byte {
	b = fmt.Appendf(b, "%02d%02d%02d%02d%02d", (t.Year()%100+100)%100, int(t.Month()), t.Day(), t.Hour(), t.Minute())
	if s := t.Second(); s != 0 {
		b = fmt.Appendf(b, "%02d", s)
	}
	return b
}

// ESM class message types that carry a receipt (within
// ESMClassReceiptMask).
const (
	esmTypeSMSCReceipt  byte = 0x04 // SMSC delivery receipt
	esmTypeIntermediate byte = 0x20 // intermediate delivery notification
)

// ReceiptOf reads the delivery receipt a deliver_sm carries, its text's
// dates in UTC. isReceipt reports whether d is a receipt at all (by its
// esm_class alone); when it is, err says why it could not be read. See
// Receipt for which esm_class values count and how the text and the
// optional parameters combine.
func ReceiptOf(d *pdu.DeliverSM) (r Receipt, isReceipt bool, err error) {
	return ReceiptOfIn(d, time.UTC)
}

// ReceiptOfIn is ReceiptOf with the text's dates read in loc (nil means
// UTC).
func ReceiptOfIn(d *pdu.DeliverSM, loc *time.Location) (r Receipt, isReceipt bool, err error) {
	if d == nil {
		return Receipt{}, false, nil
	}
	switch d.ESMClass & pdu.ESMClassReceiptMask {
	case esmTypeSMSCReceipt, esmTypeIntermediate:
	default:
		return Receipt{}, false, nil
	}
	text := d.Message
	if p, ok := d.TLVs.Get(pdu.TagMessagePayload); ok && len(p) > 0 {
		text = p
	}
	r = Receipt{Sub: -1, Dlvrd: -1}
	var textErr error
	if len(trimReceiptRight(text)) > 0 {
		if r, textErr = scanReceipt(text, loc); textErr != nil {
			// The parameters alone may still make a receipt.
			r = Receipt{Sub: -1, Dlvrd: -1}
		}
	}
	if id, ok := d.TLVs.CString(pdu.TagReceiptedMessageID); ok && id != "" {
		if len(id) > maxReceiptID {
			return Receipt{}, true, &ReceiptError{Field: "receipted_message_id", Reason: fmt.Sprintf("%d characters, at most %d", len(id), maxReceiptID)}
		}
		r.ID = id
	}
	var stateErr error
	if v, ok := d.TLVs.Get(pdu.TagMessageState); ok {
		if len(v) == 1 && MessageState(v[0]).Valid() {
			r.State = MessageState(v[0])
		} else {
			stateErr = &ReceiptError{Field: "message_state", Reason: fmt.Sprintf("% x is not a message state", receiptExcerpt(v))}
		}
	}
	if ne, ok := d.TLVs.NetworkError(); ok {
		r.NetworkError = ne
	}
	if r.ID == "" {
		return Receipt{}, true, cmp.Or(textErr, error(&ReceiptError{Field: "id", Reason: "neither the text nor receipted_message_id gives one"}))
	}
	if r.Stat == "" && r.State == 0 {
		return Receipt{}, true, cmp.Or(textErr, stateErr, error(&ReceiptError{Field: "stat", Reason: "neither the text nor message_state gives one"}))
	}
	return r, true, nil
}

// Event is the delivery event the receipt makes, with its error code;
// see Receipt for the mapping and its reasons.
func (r Receipt) Event() (status sms.Status, code sms.DLRError) {
	nc, ok := r.NetworkCode()
	switch r.State {
	case StateDelivered:
		return sms.StatusDelivered, sms.DLRNoError
	case StateExpired:
		return sms.StatusExpired, sms.DLRValidityExpired
	case StateEnroute:
		if ok && nc.Temporary() {
			return sms.StatusTemporaryFailure, nc
		}
		return sms.StatusAccepted, sms.DLRNoError
	case StateUndeliverable, StateUnknown:
		switch {
		case ok && nc.Temporary():
			return sms.StatusTemporaryFailure, nc
		case ok:
			return sms.StatusPermanentFailure, nc
		case r.State == StateUnknown:
			return sms.StatusPermanentFailure, sms.DLROtherError
		}
		return sms.StatusPermanentFailure, sms.DLRUndeliverable
	case StateRejected, StateDeleted:
		if ok && !nc.Temporary() {
			return sms.StatusPermanentFailure, nc
		}
		return sms.StatusPermanentFailure, sms.DLRSupplierRejected
	}
	// StateAccepted, and a stat msgkit does not know.
	return sms.StatusAccepted, sms.DLRNoError
}

// networkTypeGSM is network_error_code's network type for GSM.
const networkTypeGSM = 3

// NetworkCode is the network's error code the receipt gives, when the
// interface's table knows it: a GSM network_error_code, else err as a
// decimal number, within 1..255 (GSM causes are one octet; larger
// numbers are an SMSC's own and mean something else than the table's
// 500 and 989..999).
func (r Receipt) NetworkCode() (sms.DLRError, bool) {
	if r.NetworkError.Type == networkTypeGSM {
		if c := sms.DLRError(r.NetworkError.Code); c >= 1 && c <= 255 && c.Known() {
			return c, true
		}
	}
	if n, ok := receiptCount([]byte(r.Err)); ok {
		if c := sms.DLRError(n); c >= 1 && c <= 255 && c.Known() {
			return c, true
		}
	}
	return 0, false
}

// IDVariants lists the forms under which an SMSC may have given message
// id: SMSCs are known to answer submit_sm with an id in hexadecimal and
// to write the same id in decimal in the receipt, or the other way
// round, and to pad ids with zeros or change the case of hex digits. In
// the order to try them (most alike first):
//
//  1. id itself;
//  2. when id is all decimal digits (leading zeros allowed) that fit a
//     uint64, that number in decimal without leading zeros;
//     when id is all hex digits that fit a uint64, that number in hex
//     without leading zeros, upper then lower case;
//  3. the decimal reading's number in hex, upper then lower case, and the
//     hex reading's number in decimal.
//
// Each form comes once; an id of digits only has both readings ("10"
// gives "10", "A", "a" and "16"). An empty id gives none.
func IDVariants(id string) []string {
	if id == "" {
		return nil
	}
	dec, isDec := parseIDNumber(id, 10)
	hex, isHex := parseIDNumber(id, 16)
	out := make([]string, 1, 6)
	out[0] = id
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if isDec {
		add(strconv.FormatUint(dec, 10))
	}
	if isHex {
		h := strconv.FormatUint(hex, 16)
		add(strings.ToUpper(h))
		add(h)
	}
	if isDec {
		h := strconv.FormatUint(dec, 16)
		add(strings.ToUpper(h))
		add(h)
	}
	if isHex {
		add(strconv.FormatUint(hex, 10))
	}
	return out
}

// parseIDNumber reads id as a number in base 10 or 16: digits of the
// base only (no sign, prefix or underscore), fitting a uint64.
func parseIDNumber(id string, base int) (uint64, bool) {
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case '0' <= c && c <= '9':
		case base == 16 && ('a' <= c && c <= 'f' || 'A' <= c && c <= 'F'):
		default:
			return 0, false
		}
	}
	n, err := strconv.ParseUint(id, base, 64)
	return n, err == nil
}
