package testsystem

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/testsystem/testtext"
)

// CodeInvalidRequest is the code of a test SMS request that breaks a
// rule.
const CodeInvalidRequest = "invalid_test_request"

// Limits of a test SMS request.
const (
	MaxGates     = 50   // gate ids in one request
	MaxCodes     = 100  // mcc or mcc_mnc values in one request
	MaxMessages  = 2000 // gate × operator pairs in one session
	MaxTestName  = 200  // bytes of the test name
	MaxURLLength = 2048 // bytes of callback_api
)

// SenderKind is a kind of generated sender: alphanumeric, numeric (an
// international number) or short (a short code).
type SenderKind string

// The sender kinds of sender_random and sender_same.
const (
	SenderAlpha   SenderKind = "alpha"
	SenderNumeric SenderKind = "numeric"
	SenderShort   SenderKind = "short"
)

// Input is a test SMS request as sent: each member as given, read by
// Fill.
type Input struct {
	Username      *string         `json:"username"`
	Test          *string         `json:"test"`
	GateID        json.RawMessage `json:"gate_id"`
	MCC           json.RawMessage `json:"mcc"`
	MCCMNC        json.RawMessage `json:"mcc_mnc"`
	OperatorOwner *string         `json:"operator_owner"`
	Sender        *string         `json:"sender"`
	SenderRandom  *string         `json:"sender_random"`
	SenderSame    *string         `json:"sender_same"`
	TextLang      *string         `json:"text_lang"`
	TextType      *string         `json:"text_type"`
	CallbackAPI   *string         `json:"callback_api"`
}

// Request is a checked test SMS request.
type Request struct {
	Username string
	Test     string
	Gates    []int64
	// MCCMNC are the operator codes asked for ("22601"); when set, MCCs is
	// empty (mcc is ignored with mcc_mnc).
	MCCMNC []string
	MCCs   []string
	// Owner is OwnerPlatform or OwnerMe.
	Owner string
	// Sender is the fixed sender; SenderRandom a kind drawn anew for each
	// message, SenderSame a kind drawn once for the session; all empty:
	// the template's sender.
	Sender       string
	SenderRandom SenderKind
	SenderSame   SenderKind
	Lang         string
	TextType     testtext.Kind
	Callback     string
}

// Fill reads in into a request and names every problem at once. Rules
// of the interface: username, test, gate_id, text_lang, text_type and
// callback_api are required; one of mcc and mcc_mnc is required, and
// with mcc_mnc mcc is ignored; operator_owner is platform (the default)
// or me. Choices: at most one of sender, sender_random and sender_same;
// gate_id, mcc and mcc_mnc are arrays only, as the interface types them,
// deduplicated in their order; the text language
// and type are checked against the template library by the System.
func Fill(in Input) (Request, error) {
	var p problems
	add, str := p.add, p.text
	var r Request
	r.Username = str("username", in.Username, true, 200)
	r.Test = str("test", in.Test, true, MaxTestName)
	gates, msg := intList(in.GateID, MaxGates)
	switch {
	case msg != "":
		add("gate_id", "gate_id "+msg)
	case len(gates) == 0:
		add("gate_id", "gate_id is required: the ids of the gates to test")
	}
	for _, g := range gates {
		if g < 1 {
			add("gate_id", "gate_id must hold gate ids of at least 1")
			break
		}
	}
	r.Gates = gates
	codes, codesMsg := intList(in.MCCMNC, MaxCodes)
	if codesMsg != "" {
		add("mcc_mnc", "mcc_mnc "+codesMsg)
	}
	for _, c := range codes {
		mcc, mnc, ok := SplitMCCMNC(c)
		if !ok {
			add("mcc_mnc", "mcc_mnc must hold codes of 5 or 6 digits: the MCC, then an MNC of 2 or 3 digits, got "+strconv.FormatInt(c, 10))
			break
		}
		r.MCCMNC = append(r.MCCMNC, mcc+mnc)
	}
	if len(r.MCCMNC) == 0 {
		mccs, msg := intList(in.MCC, MaxCodes)
		if msg != "" {
			add("mcc", "mcc "+msg)
		}
		for _, c := range mccs {
			if c < 100 || c > 999 {
				add("mcc", "mcc must hold mobile country codes of 3 digits, got "+strconv.FormatInt(c, 10))
				break
			}
			r.MCCs = append(r.MCCs, strconv.FormatInt(c, 10))
		}
		if len(mccs) == 0 && msg == "" && len(codes) == 0 && codesMsg == "" {
			add("mcc", "one of mcc and mcc_mnc is required")
			add("mcc_mnc", "one of mcc_mnc and mcc is required")
		}
	}
	r.Owner = OwnerPlatform
	if o := str("operator_owner", in.OperatorOwner, false, 20); o != "" {
		if o != OwnerPlatform && o != OwnerMe {
			add("operator_owner", "operator_owner must be platform or me")
		}
		r.Owner = o
	}
	set := 0
	if in.Sender != nil && *in.Sender != "" {
		set++
		s, err := sms.ParseSender(*in.Sender)
		if err != nil {
			add("sender", "sender must be up to 11 letters, digits and spaces, or an international number of up to 15 digits")
		} else {
			r.Sender = s.Value
		}
	}
	kind := func(name string, v *string) SenderKind {
		if v == nil || *v == "" {
			return ""
		}
		set++
		k := SenderKind(*v)
		if k != SenderAlpha && k != SenderNumeric && k != SenderShort {
			add(name, name+" must be alpha, numeric or short")
		}
		return k
	}
	r.SenderRandom = kind("sender_random", in.SenderRandom)
	r.SenderSame = kind("sender_same", in.SenderSame)
	if set > 1 {
		add("sender", "give at most one of sender, sender_random and sender_same")
	}
	r.Lang = str("text_lang", in.TextLang, true, 20)
	if t := str("text_type", in.TextType, true, 20); t != "" {
		k, ok := testtext.ParseKind(t)
		if !ok {
			add("text_type", "text_type must be one of gsm, gsm_concat, gsm_set, ucs, ucs_concat, ucs_set")
		}
		r.TextType = k
	}
	r.Callback = str("callback_api", in.CallbackAPI, true, MaxURLLength)
	if r.Callback != "" && !callbackURL(r.Callback) {
		add("callback_api", "callback_api must be an absolute http or https URL")
	}
	if err := p.err(CodeInvalidRequest, "the test request is invalid"); err != nil {
		return Request{}, err
	}
	return r, nil
}

// intList reads an array of whole numbers, deduplicated in order. The
// interface types gate_id, mcc and mcc_mnc as arrays and shows no other
// form, so a single number is refused. The message says what is wrong,
// "" when nothing is.
func intList(raw json.RawMessage, maxLen int) ([]int64, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, ""
	}
	var list []int64
	if err := json.Unmarshal(raw, &list); err != nil {
		if c := raw[0]; c == '-' || c >= '0' && c <= '9' {
			return nil, "must be an array of whole numbers, such as [1, 2], not a single number"
		}
		return nil, "must be an array of whole numbers"
	}
	if len(list) > maxLen {
		return nil, "must hold at most " + strconv.Itoa(maxLen) + " values"
	}
	out := list[:0]
	for _, v := range list {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, ""
}

// callbackURL reports whether s is an absolute http or https URL; whether
// its address may be dialled is checked at delivery, on the address
// dialled.
func callbackURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		!strings.ContainsAny(s, " \t\r\n") && utf8.ValidString(s)
}
