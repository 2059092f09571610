package inbound

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

// IDPrefix starts every inbound message's id: the ids are version 7 UUIDs
// after it (sms.NewMessageID), so they never meet an outbound message's
// and a store finds an inbound message's reports as one range of ids.
const IDPrefix = "mo-"

// NewID is an inbound message's id for a message received at now.
func NewID(now time.Time) sms.MessageID { return IDPrefix + sms.NewMessageID(now) }

// IsID reports whether id is an inbound message's (IDPrefix).
func IsID(id sms.MessageID) bool { return strings.HasPrefix(string(id), IDPrefix) }

// State is what became of an inbound message.
type State string

// The states of an inbound message.
const (
	// Routed: a record routed it, and its delivery is queued in the
	// report outbox (to the account's binds or its InboundURL).
	Routed State = "routed"
	// Unroutable: no record routes it, or the record's account cannot
	// take it; Reason says which. Kept, not delivered.
	Unroutable State = "unroutable"
	// Incomplete: parts of a long message did not all arrive within the
	// wait; the text is the parts that came, in order. Kept, not
	// delivered.
	Incomplete State = "incomplete"
)

// Valid reports whether s is one of the states.
func (s State) Valid() bool { return s == Routed || s == Unroutable || s == Incomplete }

// Message is an inbound message as it is kept: a whole message, its parts
// joined.
type Message struct {
	ID sms.MessageID
	// Conn is the connection it arrived on (sms.Inbound.Conn).
	Conn string
	// Source is the phone's number, Dest the number it was sent to:
	// digits, without '+'.
	Source, Dest string
	// DCS is "UCS" when a part came in UCS-2 or holds a character outside
	// the GSM alphabet, else "GSM".
	DCS  string
	Text string
	// Parts is how many parts it came in (for Incomplete: that arrived),
	// of Total (1 for a message of one part).
	Parts, Total int
	// ReceivedAt is when it was complete: its last part's arrival (for
	// Incomplete, when the wait ran out).
	ReceivedAt time.Time
	State      State
	// Reason says why it is Unroutable or Incomplete; "" when Routed.
	Reason string
	// RouteID is the record that routed it (0: none); Account the
	// account the record names ("" without one); URL where its delivery
	// is queued (sms.BindURL of the account, or its InboundURL), "" when
	// it is not Routed.
	RouteID int64
	Account string
	URL     string
}

// Body is the JSON posted to an account's InboundURL for a routed
// message: the outbox delivers it as it delivers delivery reports (2xx
// takes it; 408, 429, 5xx and network errors are tried again with
// backoff).
type Body struct {
	MsgID       sms.MessageID `json:"msgId"`       // the inbound message's id (IDPrefix)
	Event       string        `json:"event"`       // always "MO", so one endpoint can take reports and messages
	Source      string        `json:"source"`      // the phone's number, digits without '+'
	Dest        string        `json:"dest"`        // the number it was sent to
	Text        string        `json:"text"`        // the whole text, parts joined
	DCS         string        `json:"dcs"`         // "GSM" or "UCS": the alphabet it came in
	NumParts    int           `json:"numParts"`    // how many parts it came in
	RecvTime    int64         `json:"recvTime"`    // Unix seconds of its arrival (its last part's)
	AccountName string        `json:"accountName"` // the account the record named
}

// EventMO is Body.Event.
const EventMO = "MO"

// Store keeps inbound messages. Every method is safe for replicas
// sharing one store.
type Store interface {
	// Keep saves m and, when r is not nil, queues r in the report outbox
	// (the same outbox as delivery reports, with r.MsgID m.ID),
	// atomically: a message is never kept without its delivery nor
	// delivered without being kept. An id taken is Conflict
	// (message_exists); a message a store cannot hold (a text with NUL,
	// invalid UTF-8, a State that is not Valid) is Invalid
	// (inbound_invalid) and nothing is saved.
	Keep(ctx context.Context, m Message, r *sms.Report) error
	// Messages lists the kept messages by q (ListSpec), by id (the
	// order they were received in, to the millisecond) unless q sorts
	// them.
	Messages(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[Message], error)
}

// ListSpec is the listing of inbound messages.
var ListSpec = msgkit.ListSpec{
	Filter: map[string]msgkit.AttrType{
		"id": msgkit.AttrString, "state": msgkit.AttrString, "connection": msgkit.AttrString, "source": msgkit.AttrString,
		"dest": msgkit.AttrString, "account": msgkit.AttrString, "routeId": msgkit.AttrNumber, "receivedAt": msgkit.AttrDateTime,
	},
	Sort:   []string{"id", "receivedAt"},
	Search: []string{"source", "dest"},
}

// Attr is attribute attr of m as ListSpec names it, for msgkit.Apply.
func Attr(m Message, attr string) (msgkit.Value, bool) {
	switch attr {
	case "id":
		return msgkit.StringValue(string(m.ID)), true
	case "state":
		return msgkit.StringValue(string(m.State)), true
	case "connection":
		return msgkit.StringValue(m.Conn), true
	case "source":
		return msgkit.StringValue(m.Source), true
	case "dest":
		return msgkit.StringValue(m.Dest), true
	case "account":
		return msgkit.StringValue(m.Account), true
	case "routeId":
		return msgkit.IntValue(m.RouteID), true
	case "receivedAt":
		return msgkit.TimeValue(m.ReceivedAt), true
	}
	return msgkit.Value{}, false
}

// The codes of the errors of this package.
const (
	// CodeInvalid: a store cannot keep what a message holds (Invalid).
	CodeInvalid = "inbound_invalid"
)

// Check refuses a message no store keeps: a State that is not Valid, text
// fields with NUL or invalid UTF-8. Both stores call it.
func Check(m Message) error {
	fields := []struct{ name, v string }{{"id", string(m.ID)}, {"conn", m.Conn}, {"source", m.Source}, {"dest", m.Dest},
		{"dcs", m.DCS}, {"text", m.Text}, {"reason", m.Reason}, {"account", m.Account}, {"url", m.URL}}
	ok := m.State.Valid() && m.ID != ""
	for _, f := range fields {
		ok = ok && storable(f.v)
	}
	if ok {
		return nil
	}
	e := msgkit.New(msgkit.Invalid, CodeInvalid, "the inbound message cannot be kept")
	if !m.State.Valid() {
		e.WithField("state", "the state is none of routed, unroutable, incomplete", "")
	}
	for _, f := range fields {
		if !storable(f.v) {
			e.WithField(f.name, f.name+" must be valid UTF-8 without NUL", "")
		}
	}
	if m.ID == "" {
		e.WithField("id", "a message needs an id", "")
	}
	e.Message = e.Fields[0].Message
	return e
}

func storable(s string) bool { return !strings.ContainsRune(s, 0) && utf8.ValidString(s) }
