package testsystemapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/msgkit/msgkit/testsystem/testtext"
)

// Backend is what the family serves: the System runs test sessions and
// keeps the reference lists; nil answers every route 501.
type Backend struct {
	System *testsystem.System
}

type api struct {
	b Backend
}

// user is the authenticated caller: a user's name, or a client's id.
func user(r *http.Request) string {
	p, _ := httpapi.PrincipalFrom(r.Context())
	return p.Subject
}

// caller is the authenticated caller of the reference lists: an operator
// when it holds testsystem.manage.
func caller(r *http.Request) testsystem.Caller {
	p, _ := httpapi.PrincipalFrom(r.Context())
	return testsystem.Caller{User: p.Subject, Operator: p.HasAny(auth.PrivTestSystemManage)}
}

// envelope is the test system's collection answer: data and
// meta.pagination in snake_case.
type envelope[T any] struct {
	Data []T `json:"data"`
	Meta struct {
		Pagination pagination `json:"pagination"`
	} `json:"meta"`
}

type pagination struct {
	Count       int `json:"count"`
	CurrentPage int `json:"current_page"`
	PerPage     int `json:"per_page"`
	Total       int `json:"total"`
	TotalPages  int `json:"total_pages"`
}

func envelopeOf[T, W any](page msgkit.Page[T], q msgkit.ListQuery, wire func(T) W) envelope[W] {
	out := envelope[W]{Data: msgkit.MapItems(page, wire)}
	in := page.Info(q)
	out.Meta.Pagination = pagination{Count: in.Count, CurrentPage: in.Number, PerPage: in.PerPage, Total: in.Total, TotalPages: in.Pages}
	return out
}

// list parses the listing parameters of r by spec.
func list(r *http.Request, spec msgkit.ListSpec) (msgkit.ListQuery, error) {
	return msgkit.ParseListQuery(r.URL.Query(), spec)
}

// owner reads the required owner parameter, given once; the System
// checks its value.
func owner(r *http.Request) (string, error) {
	switch v := r.URL.Query()["owner"]; {
	case len(v) == 0 || v[0] == "":
		return "", msgkit.Invalidf(msgkit.CodeInvalidQuery, "owner", "owner is required: platform or me")
	case len(v) > 1:
		return "", msgkit.Invalidf(msgkit.CodeInvalidQuery, "owner", "owner must be given once")
	default:
		return v[0], nil
	}
}

// codeFilters reads mcc_mnc (one integer) and mcc (a comma-separated list
// of integers, or one integer for countries) into string filters, so
// that MNC "01" and "001" stay apart.
func codeFilters(r *http.Request, mccList bool) ([]msgkit.Filter, error) {
	var fs []msgkit.Filter
	v := r.URL.Query()
	if raw, ok := v["mcc_mnc"]; ok {
		n, err := strconv.ParseInt(strings.Join(raw, ","), 10, 64)
		mcc, mnc, valid := testsystem.SplitMCCMNC(n)
		if err != nil || !valid {
			return nil, msgkit.Invalidf(msgkit.CodeInvalidQuery, "mcc_mnc", "mcc_mnc must be one code of 5 or 6 digits (MCC, then MNC)")
		}
		fs = append(fs, msgkit.Filter{Op: msgkit.OpEq, Attr: "mcc_mnc", Values: []msgkit.Value{msgkit.StringValue(mcc + mnc)}})
	}
	if raw, ok := v["mcc"]; ok {
		parts := strings.Split(strings.Join(raw, ","), ",")
		if !mccList && len(parts) > 1 {
			return nil, msgkit.Invalidf(msgkit.CodeInvalidQuery, "mcc", "mcc must be one mobile country code")
		}
		var vals []msgkit.Value
		for _, p := range parts {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || n < 100 || n > 999 || len(vals) >= testsystem.MaxCodes {
				return nil, msgkit.Invalidf(msgkit.CodeInvalidQuery, "mcc", "mcc must be mobile country codes of 3 digits, comma-separated")
			}
			vals = append(vals, msgkit.StringValue(strconv.Itoa(n)))
		}
		fs = append(fs, msgkit.Filter{Op: msgkit.OpIn, Attr: "mcc", Values: vals})
	}
	return fs, nil
}

// ownedQuery reads a listing of an owner's operators or countries: the
// spec's parameters, the owner and the code filters (mcc a list when
// mccList).
func ownedQuery(r *http.Request, spec msgkit.ListSpec, mccList bool) (string, msgkit.ListQuery, error) {
	q, err := list(r, spec)
	if err != nil {
		return "", q, err
	}
	who, err := owner(r)
	if err != nil {
		return "", q, err
	}
	fs, err := codeFilters(r, mccList)
	q.Filters = append(q.Filters, fs...)
	return who, q, err
}

type languageJSON struct {
	Name string `json:"name"`
	Code string `json:"code"`
}

func (a *api) languages(w http.ResponseWriter, r *http.Request) error {
	q, err := list(r, testsystem.LanguageSpec())
	if err != nil {
		return err
	}
	page, err := a.b.System.Languages(q)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, envelopeOf(page, q, func(l testtext.Language) languageJSON {
		return languageJSON{Name: l.Name, Code: l.Code}
	}))
}

type operatorJSON struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	MCCMNC  int64  `json:"mcc_mnc"`
	Country string `json:"country"`
	MCC     int64  `json:"mcc"`
}

func (a *api) operators(w http.ResponseWriter, r *http.Request) error {
	who, q, err := ownedQuery(r, testsystem.OperatorSpec(), true)
	if err != nil {
		return err
	}
	page, err := a.b.System.Operators(r.Context(), user(r), who, q)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, envelopeOf(page, q, func(o testsystem.Operator) operatorJSON {
		code, _ := strconv.ParseInt(o.MCCMNC(), 10, 64)
		mcc, _ := strconv.ParseInt(o.MCC, 10, 64)
		return operatorJSON{ID: o.ID, Name: o.Name, MCCMNC: code, Country: o.Country, MCC: mcc}
	}))
}

type countryJSON struct {
	Name string `json:"name"`
	MCC  string `json:"mcc"`
}

func (a *api) countries(w http.ResponseWriter, r *http.Request) error {
	who, q, err := ownedQuery(r, testsystem.CountrySpec(), false)
	if err != nil {
		return err
	}
	page, err := a.b.System.Countries(r.Context(), user(r), who, q)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, envelopeOf(page, q, func(c testsystem.Country) countryJSON {
		return countryJSON{Name: c.Name, MCC: c.MCC}
	}))
}

type routeJSON struct {
	GateID       int64  `json:"gate_id"`
	CategoryID   int64  `json:"category_id"`
	SupplierID   int64  `json:"supplier_id"`
	ParamID      int64  `json:"param_id"`
	GateName     string `json:"gate_name"`
	CategoryName string `json:"category_name"`
	SupplierName string `json:"supplier_name"`
	ParamName    string `json:"param_name"`
	ParamValue   string `json:"param_value"`
}

func (a *api) routes(w http.ResponseWriter, r *http.Request) error {
	q, err := list(r, testsystem.RouteSpec())
	if err != nil {
		return err
	}
	page, err := a.b.System.Routes(r.Context(), caller(r), q)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, envelopeOf(page, q, func(rt testsystem.Route) routeJSON {
		return routeJSON{GateID: rt.GateID, CategoryID: rt.CategoryID, SupplierID: rt.SupplierID, ParamID: rt.ParamID,
			GateName: rt.Gate, CategoryName: rt.Category, SupplierName: rt.Supplier, ParamName: rt.ParamName, ParamValue: rt.ParamValue}
	}))
}

type statusJSON struct {
	Status string `json:"status"`
}

func (a *api) addRoute(w http.ResponseWriter, r *http.Request) error {
	var in testsystem.RouteInput
	if err := httpapi.DecodeJSON(w, r, &in, httpapi.DecodeOptions{}); err != nil {
		return err
	}
	added, err := a.b.System.AddRoute(r.Context(), caller(r), in)
	if err != nil {
		return err
	}
	if !added {
		return httpapi.WriteJSON(w, http.StatusOK, statusJSON{Status: "exists"})
	}
	return httpapi.WriteJSON(w, http.StatusCreated, statusJSON{Status: "created"})
}

type namedJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func namedOf(n testsystem.Named) namedJSON {
	return namedJSON{ID: strconv.FormatInt(n.ID, 10), Name: n.Name}
}

func (a *api) named(k testsystem.Kind) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := list(r, testsystem.NamedSpec())
		if err != nil {
			return err
		}
		page, err := a.b.System.Named(r.Context(), caller(r), k, q)
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, envelopeOf(page, q, namedOf))
	}
}

func (a *api) deleteNamed(k testsystem.Kind) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		raw := r.PathValue("id")
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id < 1 {
			return msgkit.Errorf(msgkit.NotFound, k.String()+"_not_found", "%s %q not found", k, raw)
		}
		n, err := a.b.System.DeleteNamed(r.Context(), caller(r), k, id)
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, namedOf(n))
	}
}

type sessionCreatedJSON struct {
	TestSession int64 `json:"test_session"`
}

// sendSMS runs a test request. Every answer after authentication carries
// the caller's daily quota in X-Ratelimit-Limit, X-Ratelimit-Remaining and
// X-Ratelimit-Reset (seconds to midnight UTC).
func (a *api) sendSMS(w http.ResponseWriter, r *http.Request) error {
	who := user(r)
	var in testsystem.Input
	err := httpapi.DecodeJSON(w, r, &in, httpapi.DecodeOptions{LongStrings: map[string]int{"callback_api": testsystem.MaxURLLength}})
	var req testsystem.Request
	if err == nil {
		req, err = testsystem.Fill(in)
	}
	var sess testsystem.Session
	var quota testsystem.Quota
	if err == nil {
		sess, quota, err = a.b.System.Send(r.Context(), who, req)
	}
	if quota.Limit == 0 {
		q, qerr := a.b.System.Quota(r.Context(), who)
		if qerr != nil && err == nil {
			err = qerr
		}
		quota = q
	}
	if quota.Limit > 0 {
		h := w.Header()
		h.Set("X-Ratelimit-Limit", strconv.Itoa(quota.Limit))
		h.Set("X-Ratelimit-Remaining", strconv.Itoa(quota.Remaining))
		reset := strconv.Itoa(int(a.b.System.ResetIn(quota).Round(time.Second) / time.Second))
		h.Set("X-Ratelimit-Reset", reset)
		if msgkit.KindOf(err) == msgkit.RateLimited {
			h.Set("Retry-After", reset) // the quota comes back at midnight UTC
		}
	}
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusCreated, sessionCreatedJSON{TestSession: sess.ID})
}

type sessionJSON struct {
	TestSession int64   `json:"test_session"`
	Test        string  `json:"test"`
	Username    string  `json:"username"`
	Status      string  `json:"status"`
	Messages    int     `json:"messages"`
	CallbackAPI string  `json:"callback_api"`
	CreatedDate string  `json:"created_date"`
	Completed   *string `json:"completed_date"`
}

// sessionAt reads the path's test_session: a malformed one is 404.
func sessionAt(r *http.Request) (int64, error) {
	raw := r.PathValue("test_session")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 {
		return 0, msgkit.Errorf(msgkit.NotFound, testsystem.CodeSessionNotFound, "test session %q not found", raw)
	}
	return id, nil
}

func (a *api) session(w http.ResponseWriter, r *http.Request) error {
	id, err := sessionAt(r)
	if err != nil {
		return err
	}
	if _, err := list(r, msgkit.ListSpec{}); err != nil {
		return err
	}
	s, err := a.b.System.Session(r.Context(), user(r), id)
	if err != nil {
		return err
	}
	out := sessionJSON{TestSession: s.ID, Test: s.Test, Username: s.User, Status: string(s.Status), Messages: s.Messages,
		CallbackAPI: s.Callback, CreatedDate: s.CreatedAt.UTC().Format(time.RFC3339Nano)}
	if !s.CompletedAt.IsZero() {
		c := s.CompletedAt.UTC().Format(time.RFC3339Nano)
		out.Completed = &c
	}
	return httpapi.WriteJSON(w, http.StatusOK, out)
}

// resultSpec pages a session's results; they are in test order.
var resultSpec = msgkit.ListSpec{MaxPageSize: 1000}

func (a *api) results(w http.ResponseWriter, r *http.Request) error {
	id, err := sessionAt(r)
	if err != nil {
		return err
	}
	q, err := list(r, resultSpec)
	if err != nil {
		return err
	}
	page, err := a.b.System.Results(r.Context(), user(r), id, q)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, envelopeOf(page, q, func(res testsystem.Result) testsystem.Record { return res.Record() }))
}
