package sms

import (
	"context"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
	"github.com/shopspring/decimal"
)

// The codes of the trace's refusals (msgkit.Error codes).
const (
	// CodeTraceUnbounded refuses a message search that names neither an
	// account nor a message id (Invalid, field account).
	CodeTraceUnbounded = "trace_unbounded"
	// CodeTraceReceiverMasked refuses a search of receivers by part of
	// the number from a caller that sees numbers masked (Invalid, field
	// receiver).
	CodeTraceReceiverMasked = "trace_receiver_masked"
	// CodeMessageNotFound is a message the store does not keep (NotFound).
	CodeMessageNotFound = "message_not_found"
)

// MaxPartEvents bounds a part's state history: the first event and the
// latest MaxPartEvents-1 are kept (AppendPartEvents).
const MaxPartEvents = 16

// MaxReportAttempts bounds the attempts a report keeps, the first and the
// latest MaxReportAttempts-1 (AppendReportAttempt); MaxAttemptError bounds
// the bytes of each one's error text.
const (
	MaxReportAttempts = 16
	MaxAttemptError   = 200
)

// PartEvent is one state a part went through: the state an update gave
// it, with its error code and the update's time.
type PartEvent struct {
	State     PartState
	ErrorCode DLRError
	At        time.Time
}

// AppendPartEvents appends evs to a part's history h and bounds it: of
// more than MaxPartEvents events the first (how the part's delivery
// began) and the latest MaxPartEvents-1 stay. Both stores keep a part's
// history by it; h's array may be reused.
func AppendPartEvents(h []PartEvent, evs ...PartEvent) []PartEvent {
	h = append(h, evs...)
	if n := len(h); n > MaxPartEvents {
		h = append(h[:1], h[n-(MaxPartEvents-1):]...)
	}
	return h
}

// ReportAttempt is one attempt at delivering a report and its answer:
// Error is empty when the customer's URL took the report, and otherwise
// tells the failure (the HTTP status the URL answered, or why there was
// no answer), at most MaxAttemptError bytes of it.
type ReportAttempt struct {
	At    time.Time
	Error string
}

// AttemptOf is the attempt a store records when it finishes r with more
// Attempts than it had (see OutboxStore.FinishReports): at r.AttemptedAt,
// with r.LastError cut to MaxAttemptError bytes (whole UTF-8 sequences).
// A report finished without a new attempt (given back) records none.
func AttemptOf(r Report) ReportAttempt {
	e := r.LastError
	if len(e) > MaxAttemptError {
		e = e[:MaxAttemptError]
		for len(e) > 0 && !utf8.ValidString(e) {
			e = e[:len(e)-1]
		}
	}
	return ReportAttempt{At: r.AttemptedAt, Error: e}
}

// AppendReportAttempt appends a to a report's attempts and bounds them as
// AppendPartEvents bounds a part's history: the first and the latest
// MaxReportAttempts-1 stay.
func AppendReportAttempt(log []ReportAttempt, a ReportAttempt) []ReportAttempt {
	log = append(log, a)
	if n := len(log); n > MaxReportAttempts {
		log = append(log[:1], log[n-(MaxReportAttempts-1):]...)
	}
	return log
}

// MessageSummary is a message as a trace search lists it.
type MessageSummary struct {
	ID          MessageID
	Account     string
	Type        string
	Sender      Sender
	Receiver    MSISDN // masked unless the caller sees numbers (MaskMSISDN)
	SubmittedAt time.Time
	ExpiresAt   time.Time
	Charged     decimal.Decimal
	Currency    string
	States      []PartState // each part's state, by part number
}

// PartTrace is one part as the trace shows it: its record (delivery and
// queue fields; the Tracer leaves out Text and Data, the message's
// content), every state it went through, and the SMSC that took it.
type PartTrace struct {
	PartRecord
	History []PartEvent // oldest first, bounded (MaxPartEvents)
	// SMSCConn names the SMPP connection whose SMSC took the part and
	// SMSCID is the id that SMSC gave it (submit_sm_resp); both empty for
	// a part no SMSC took over SMPP, or whose record is gone.
	SMSCConn string
	SMSCID   string
}

// ReportTrace is a delivery report of the message with every attempt at
// delivering it.
type ReportTrace struct {
	Report
	Log []ReportAttempt // oldest first, bounded (MaxReportAttempts)
}

// MessageTrace is one message whole: its record (Parts left empty: they
// are in Parts here), each part with its history, and every report
// queued for it, in queueing order.
type MessageTrace struct {
	Message MessageRecord
	Parts   []PartTrace
	Reports []ReportTrace
}

// TraceListSpec is the listing of a message search: by id, account,
// receiver and submission time, sorted by submittedAt and id. A search
// names an account or a message id (CheckTraceQuery).
var TraceListSpec = msgkit.ListSpec{
	Filter: map[string]msgkit.AttrType{
		"id": msgkit.AttrString, "account": msgkit.AttrString, "receiver": msgkit.AttrString,
		"submittedAt": msgkit.AttrDateTime,
	},
	Sort: []string{"submittedAt", "id"},
}

// TraceAttr is attribute attr of s as TraceListSpec names it, for
// msgkit.Apply; the receiver is the full number.
func TraceAttr(s MessageSummary, attr string) (msgkit.Value, bool) {
	switch attr {
	case "id":
		return msgkit.StringValue(string(s.ID)), true
	case "account":
		return msgkit.StringValue(s.Account), true
	case "receiver":
		return msgkit.StringValue(string(s.Receiver)), true
	case "submittedAt":
		return msgkit.TimeValue(s.SubmittedAt), true
	}
	return msgkit.Value{}, false
}

// TraceScope is what bounds a search: the account and the message id it
// names with eq (empty when it names none), the first of each.
func TraceScope(q msgkit.ListQuery) (account string, id MessageID) {
	for _, f := range q.Filters {
		if f.Op != msgkit.OpEq || len(f.Values) != 1 || f.Values[0].Type() != msgkit.AttrString {
			continue
		}
		switch {
		case f.Attr == "account" && account == "":
			account = f.Values[0].Str()
		case f.Attr == "id" && id == "":
			id = MessageID(f.Values[0].Str())
		}
	}
	return account, id
}

// CheckTraceQuery refuses a search that names neither an account nor a
// message id with eq: such a search would read every message of every
// account (see the package doc's message trace). Both stores call it, and
// so does the Tracer.
func CheckTraceQuery(q msgkit.ListQuery) error {
	if account, id := TraceScope(q); account == "" && id == "" {
		return msgkit.Invalidf(CodeTraceUnbounded, "account",
			"a message search names an account (eq(account)) or a message id (eq(id))")
	}
	return nil
}

// MaskMSISDN is n as a caller without the right to see numbers sees it:
// the country calling code, the next two digits and the last two, every
// other digit '*' ("+38640123456" is "+38640****56"). A number too short
// to hide anything that way shows its country code only; one whose code
// is unknown keeps its first digit as the code.
func MaskMSISDN(n MSISDN) MSISDN {
	digits, plus := strings.CutPrefix(string(n), "+")
	cc := 1
	if _, national, ok := splitCallingCode(digits); ok {
		cc = len(digits) - len(national)
	}
	lead, tail := min(cc+2, len(digits)), 2
	if len(digits)-lead-tail < 1 {
		lead, tail = min(cc, len(digits)), 0
	}
	var b strings.Builder
	b.Grow(len(n))
	if plus {
		b.WriteByte('+')
	}
	b.WriteString(digits[:lead])
	for range len(digits) - lead - tail {
		b.WriteByte('*')
	}
	b.WriteString(digits[len(digits)-tail:])
	return MSISDN(b.String())
}

// TraceStore is what the Tracer needs of storage.
type TraceStore interface {
	// TraceMessages lists the messages q selects (TraceListSpec), by
	// id unless q sorts them, with their receivers whole. A q that
	// CheckTraceQuery refuses is refused so.
	TraceMessages(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[MessageSummary], error)
	// Trace returns the message of id whole, or NotFound
	// (message_not_found): its parts by number with their history and
	// SMSC records, and its reports in queueing order with their
	// attempts.
	Trace(ctx context.Context, id MessageID) (MessageTrace, error)
}

// TracerOptions configure a Tracer.
type TracerOptions struct {
	Logger *slog.Logger
}

// TraceView is what the caller of a trace may see. The HTTP layer sets it
// from the caller's privileges.
type TraceView struct {
	// Numbers lets the caller see receivers whole; without it they are
	// masked (MaskMSISDN).
	Numbers bool
}

// Tracer answers "where is my message?": it finds messages and shows one
// whole, from what the stores keep (see the package doc's message trace).
type Tracer struct {
	store TraceStore
	opts  TracerOptions
}

// NewTracer returns a Tracer over store.
func NewTracer(store TraceStore, opts TracerOptions) *Tracer {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Tracer{store: store, opts: opts}
}

// Messages lists the messages q selects (TraceListSpec): q names an
// account or a message id with eq (CheckTraceQuery), and a caller who sees
// numbers masked filters receivers with eq or in only, the full number
// either way. Without a sort, the newest come first.
func (t *Tracer) Messages(ctx context.Context, q msgkit.ListQuery, view TraceView) (msgkit.Page[MessageSummary], error) {
	if err := CheckTraceQuery(q); err != nil {
		return msgkit.Page[MessageSummary]{}, err
	}
	if !view.Numbers {
		for _, f := range q.Filters {
			if f.Attr == "receiver" && f.Op != msgkit.OpEq && f.Op != msgkit.OpIn {
				return msgkit.Page[MessageSummary]{}, msgkit.Invalidf(CodeTraceReceiverMasked, "receiver",
					"receivers shown masked are searched by the whole number (eq or in), not by %s", f.Op)
			}
		}
	}
	if len(q.Sort) == 0 {
		q.Sort = []msgkit.SortKey{{Attr: "submittedAt", Desc: true}}
	}
	page, err := t.store.TraceMessages(ctx, q)
	if err != nil {
		return msgkit.Page[MessageSummary]{}, err
	}
	if !view.Numbers {
		for i := range page.Items {
			page.Items[i].Receiver = MaskMSISDN(page.Items[i].Receiver)
		}
	}
	return page, nil
}

// Trace returns the message of id whole (NotFound when the store does not
// keep it, or no longer: see Retention), without its content (the parts'
// Text and Data), its receiver masked unless view shows numbers.
func (t *Tracer) Trace(ctx context.Context, id MessageID, view TraceView) (MessageTrace, error) {
	tr, err := t.store.Trace(ctx, id)
	if err != nil {
		return MessageTrace{}, err
	}
	if !view.Numbers {
		tr.Message.Receiver = MaskMSISDN(tr.Message.Receiver)
	}
	tr.Message.Parts = nil
	for i := range tr.Parts {
		tr.Parts[i].Text, tr.Parts[i].Data = "", nil
	}
	return tr, nil
}

// MessageNotFound is the error of a message the store does not keep.
func MessageNotFound(id MessageID) error {
	return msgkit.New(msgkit.NotFound, CodeMessageNotFound, "message "+string(id)+" not found")
}
