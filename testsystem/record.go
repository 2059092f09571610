package testsystem

import (
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Record is a test result as the interface spells it: the result listing
// and the callback body carry it.
type Record struct {
	MsgID                   string   `json:"msg_id"`
	TestID                  string   `json:"test_id"`
	TestSession             string   `json:"test_session"`
	TestNode                string   `json:"test_node"`
	Supplier                string   `json:"supplier"`
	GateCategory            string   `json:"gate_category"`
	Gate                    string   `json:"gate"`
	GateID                  int64    `json:"gate_id"`
	Country                 string   `json:"country"`
	Operator                string   `json:"operator"`
	OperatorID              int64    `json:"operator_id"`
	DCS                     string   `json:"dcs"`
	Concat                  string   `json:"concat"`
	NumParts                int      `json:"num_parts"`
	Sender                  string   `json:"sender"`
	Text                    string   `json:"text"`
	Price                   string   `json:"price"`
	Currency                string   `json:"currency"`
	Receiver                string   `json:"receiver"`
	SentDate                *string  `json:"sent_date"`
	DLRStatus               string   `json:"dlr_status"`
	DLRDate                 *string  `json:"dlr_date"`
	DLRDelay                string   `json:"dlr_delay"`
	FakeDLR                 string   `json:"fake_dlr"`
	Status                  string   `json:"status"`
	SenderMatch             string   `json:"sender_match"`
	TextMatch               string   `json:"text_match"`
	EncodingMatch           string   `json:"encoding_match"`
	ReceivedSender          string   `json:"received_sender"`
	ReceivedText            string   `json:"received_text"`
	ReceivedDCS             string   `json:"received_dcs"`
	ReceivedMCCMNC          string   `json:"received_mcc_mnc"`
	ReceivedOperator        string   `json:"received_operator"`
	ReceivedDate            *string  `json:"received_date"`
	ReceivedServiceCenter   string   `json:"received_service_center"`
	ReceivedServiceOperator string   `json:"received_service_operator"`
	ReceivedServiceCountry  string   `json:"received_service_country"`
	ReceivedServicePDU      string   `json:"received_service_pdu"`
	ReceivedServicePDUParts []string `json:"received_service_pdu_parts"`
	SMSDelay                string   `json:"sms_delay"`
	DirectRoute             string   `json:"direct_route"`
	NationalSMSC            string   `json:"national_smsc"`
	Username                string   `json:"username"`
	Error                   string   `json:"error,omitempty"`
}

// Record is r as the interface spells it. Times are RFC 3339 in UTC with
// milliseconds, null until they happen; delays are seconds with
// milliseconds, "" until known; checks are "true", "false" or "unknown";
// PDUs are upper-case hexadecimal.
func (r *Result) Record() Record {
	rec := Record{
		MsgID: string(r.MsgID), TestID: strconv.FormatInt(r.Session, 10) + "-" + strconv.Itoa(r.Seq),
		TestSession: strconv.FormatInt(r.Session, 10), TestNode: r.Node,
		Supplier: r.Supplier, GateCategory: r.Category, Gate: r.Gate, GateID: r.GateID,
		Country: r.Country, Operator: r.Operator, OperatorID: r.OperatorID,
		DCS: r.DCS.String(), Concat: strconv.FormatBool(r.NumParts > 1), NumParts: r.NumParts,
		Sender: r.Sender, Text: r.Text, Price: r.Price.StringFixed(4), Currency: r.Currency,
		Receiver: string(r.Receiver), SentDate: stamp(r.SentAt),
		DLRStatus: r.DLRStatus(), DLRDate: stamp(r.DLRAt),
		FakeDLR: r.FakeDLR.String(), Status: string(r.Status),
		SenderMatch: r.SenderMatch.String(), TextMatch: r.TextMatch.String(), EncodingMatch: r.EncodingMatch.String(),
		DirectRoute: r.DirectRoute.String(), NationalSMSC: r.NationalSMSC.String(),
		ReceivedServicePDUParts: []string{},
		Username:                r.User, Error: r.Error,
	}
	if !r.DLRAt.IsZero() && !r.SentAt.IsZero() {
		rec.DLRDelay = seconds(r.DLRAt.Sub(r.SentAt))
	}
	if rv := r.Received; rv != nil {
		rec.ReceivedSender, rec.ReceivedText, rec.ReceivedDCS = rv.Sender, rv.Text, rv.DCS.String()
		rec.ReceivedMCCMNC, rec.ReceivedOperator, rec.ReceivedDate = rv.Network, rv.Operator, stamp(rv.At)
		rec.ReceivedServiceCenter, rec.ReceivedServiceOperator, rec.ReceivedServiceCountry = rv.SMSC, rv.SMSCOperator, rv.SMSCCountry
		for _, pdu := range rv.PDUs {
			rec.ReceivedServicePDUParts = append(rec.ReceivedServicePDUParts, strings.ToUpper(hex.EncodeToString(pdu)))
		}
		if len(rec.ReceivedServicePDUParts) > 0 {
			rec.ReceivedServicePDU = rec.ReceivedServicePDUParts[0]
		}
		if !r.SentAt.IsZero() {
			rec.SMSDelay = seconds(rv.At.Sub(r.SentAt))
		}
	}
	return rec
}

// stamp is t in RFC 3339 UTC with milliseconds; nil for the zero time.
func stamp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	return &s
}

// CallbackBody is the JSON posted to a session's callback_api when it
// completes.
type CallbackBody struct {
	TestSession int64    `json:"test_session"`
	Test        string   `json:"test"`
	Username    string   `json:"username"`
	Status      string   `json:"status"`
	CreatedDate *string  `json:"created_date"`
	Completed   *string  `json:"completed_date"`
	Count       int      `json:"count"`
	Results     []Record `json:"results"`
}
