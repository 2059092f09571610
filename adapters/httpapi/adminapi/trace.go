package adminapi

import (
	"net/http"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/sms"
)

// traceView is what the caller may see of messages: receivers whole only
// with admin.trace.receivers.
func traceView(r *http.Request) sms.TraceView {
	p, _ := httpapi.PrincipalFrom(r.Context())
	return sms.TraceView{Numbers: p.HasAny(auth.PrivAdminTraceReceivers)}
}

// messageJSON is a message as a search lists it.
type messageJSON struct {
	ID          string          `json:"id"`
	Account     string          `json:"account"`
	Type        string          `json:"type"`
	Sender      string          `json:"sender"`
	Receiver    string          `json:"receiver"`
	SubmittedAt time.Time       `json:"submittedAt"`
	ExpiresAt   time.Time       `json:"expiresAt"`
	Charged     decimal.Decimal `json:"charged"`
	Currency    string          `json:"currency"`
	States      []string        `json:"states"` // each part's, by part number
}

func messageOf(s sms.MessageSummary) messageJSON {
	out := messageJSON{ID: string(s.ID), Account: s.Account, Type: s.Type, Sender: s.Sender.Value, Receiver: string(s.Receiver),
		SubmittedAt: s.SubmittedAt, ExpiresAt: s.ExpiresAt, Charged: s.Charged, Currency: s.Currency, States: make([]string, len(s.States))}
	for i, st := range s.States {
		out.States[i] = st.String()
	}
	return out
}

func (a *api) listMessages(w http.ResponseWriter, r *http.Request) error {
	view := traceView(r)
	return list(w, r, sms.TraceListSpec, func(q msgkit.ListQuery) (msgkit.Page[sms.MessageSummary], error) {
		return a.b.Tracer.Messages(r.Context(), q, view)
	}, messageOf)
}

// The trace of one message: the message, each part with every state it
// went through and the SMSC that took it, each report with every attempt
// and its answer, the charge.
type (
	traceJSON struct {
		messageJSON
		DCS       int             `json:"dcs"`
		Flash     bool            `json:"flash"`
		DLRMask   int             `json:"dlrMask"`
		DLRURL    string          `json:"dlrUrl"`
		PartPrice decimal.Decimal `json:"partPrice"`
		Parts     []partJSON      `json:"parts"`
		Reports   []reportJSON    `json:"reports"`
	}
	partJSON struct {
		Num          int         `json:"num"`
		Units        int         `json:"units"`
		State        string      `json:"state"`
		ErrorCode    int         `json:"errorCode"`
		UpdatedAt    time.Time   `json:"updatedAt"`
		History      []eventJSON `json:"history"`
		SendAttempts int         `json:"sendAttempts"`
		SendError    string      `json:"sendError"`
		SMSCConn     string      `json:"smscConnection"`
		SMSCID       string      `json:"smscMessageId"`
	}
	eventJSON struct {
		State     string    `json:"state"`
		ErrorCode int       `json:"errorCode"`
		At        time.Time `json:"at"`
	}
	reportJSON struct {
		ID        int64         `json:"id"`
		PartNum   int           `json:"partNum"`
		State     string        `json:"state"`
		CreatedAt time.Time     `json:"createdAt"`
		Attempts  []attemptJSON `json:"attempts"`
	}
	attemptJSON struct {
		At    time.Time `json:"at"`
		Error string    `json:"error"` // "" when the customer's URL took the report
	}
)

// reportStates name sms.ReportState in the trace.
var reportStates = map[sms.ReportState]string{sms.ReportPending: "pending", sms.ReportDelivered: "delivered", sms.ReportGivenUp: "given_up"}

func traceOf(t sms.MessageTrace) traceJSON {
	m := t.Message
	sum := sms.MessageSummary{ID: m.ID, Account: m.Account, Type: m.Type, Sender: m.Sender, Receiver: m.Receiver,
		SubmittedAt: m.SubmittedAt, ExpiresAt: m.ExpiresAt, Charged: m.Charged, Currency: m.Currency}
	for _, p := range t.Parts {
		sum.States = append(sum.States, p.State)
	}
	out := traceJSON{messageJSON: messageOf(sum), DCS: int(m.DCS), Flash: m.Flash, DLRMask: int(m.DLRMask), DLRURL: m.DLRURL,
		PartPrice: m.PartPrice, Parts: make([]partJSON, len(t.Parts)), Reports: make([]reportJSON, len(t.Reports))}
	for i, p := range t.Parts {
		pj := partJSON{Num: p.Num, Units: p.Units, State: p.State.String(), ErrorCode: int(p.ErrorCode), UpdatedAt: p.UpdatedAt,
			History: make([]eventJSON, len(p.History)), SendAttempts: p.SendAttempts, SendError: p.SendError, SMSCConn: p.SMSCConn, SMSCID: p.SMSCID}
		for j, e := range p.History {
			pj.History[j] = eventJSON{State: e.State.String(), ErrorCode: int(e.ErrorCode), At: e.At}
		}
		out.Parts[i] = pj
	}
	for i, r := range t.Reports {
		rj := reportJSON{ID: r.ID, PartNum: r.PartNum, State: reportStates[r.State], CreatedAt: r.CreatedAt, Attempts: make([]attemptJSON, len(r.Log))}
		for j, a := range r.Log {
			rj.Attempts[j] = attemptJSON{At: a.At, Error: a.Error}
		}
		out.Reports[i] = rj
	}
	return out
}

func (a *api) traceMessage(w http.ResponseWriter, r *http.Request) error {
	if err := noParams(r); err != nil {
		return err
	}
	t, err := a.b.Tracer.Trace(r.Context(), sms.MessageID(r.PathValue("messageId")), traceView(r))
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, traceOf(t))
}
