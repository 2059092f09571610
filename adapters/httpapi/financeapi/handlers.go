package financeapi

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/finance"
)

// Backend is what the finance API serves from: the finance.Service,
// required. The routes of a part the Service was built without (its
// balances, sheets, files or documents: see finance.Options) answer 501.
type Backend struct {
	Service *finance.Service
}

type api struct {
	b Backend
}

// namedCodes are the finance codes the interface names: Code is a number,
// so Message begins with them.
var namedCodes = []string{finance.CodeInvoiceNotFound, finance.CodeUnknownStatus, finance.CodeInvalidValue, finance.CodeConfigNotFound}

// named puts a named code at the start of Message; it maps every failure
// the family answers (FamilySpec.Errors).
func named(err error) error {
	e, ok := errors.AsType[*msgkit.Error](err)
	if !ok || !slices.Contains(namedCodes, e.Code) {
		return err
	}
	c := *e
	c.Message = e.Code + ": " + e.Message
	return &c
}

// scope is what the caller may see: everything with the all privilege,
// else (it holds the -own one: the route checked) its tenants' partners.
func (a *api) scope(r *http.Request, all auth.Privilege) (finance.Scope, error) {
	p, _ := httpapi.PrincipalFrom(r.Context())
	return a.b.Service.ScopeFor(r.Context(), p.HasAny(all), p.Services)
}

// managedClasses are the classes each manage privilege changes.
var managedClasses = map[auth.Privilege][]finance.Class{
	auth.PrivFinanceCustInvoicesManage:     {finance.CustomerInvoice, finance.ControlInvoice, finance.CreditDebitNote},
	auth.PrivFinanceSupplierInvoicesManage: {finance.SupplierInvoice, finance.SupplierCrDbNote},
	auth.PrivFinanceNettingInvoicesManage:  {finance.NettingInvoice},
}

// changeScope is what the caller may change: the documents it sees (every
// partner's with finance-invoices.view, else its tenants' partners'), of
// every class with finance-invoices.manage, else of the classes its manage
// privileges name. A manage privilege never widens what a caller sees, so
// a document out of its view is not found on change too.
func (a *api) changeScope(r *http.Request) (finance.Scope, error) {
	s, err := a.scope(r, auth.PrivFinanceInvoicesView)
	if err != nil {
		return finance.Scope{}, err
	}
	p, _ := httpapi.PrincipalFrom(r.Context())
	if p.HasAny(auth.PrivFinanceInvoicesManage) {
		return s, nil
	}
	for priv, classes := range managedClasses {
		if p.HasAny(priv) {
			s.Classes = append(s.Classes, classes...)
		}
	}
	slices.Sort(s.Classes)
	return s, nil
}

// invoiceAt reads the invoice id of the path ({invoiceid}, or
// {invoiceId} on the upload) of an operation that takes no query
// parameters.
func invoiceAt(r *http.Request) (finance.InvoiceID, error) {
	name := "invoiceid"
	if r.PathValue(name) == "" {
		name = "invoiceId"
	}
	n, err := pathInt(r, name)
	if err == nil {
		err = onlyParams(r.URL.Query())
	}
	return finance.InvoiceID(n), err
}

// answer writes inv, the invoice an operation leaves, as its view.
func (a *api) answer(w http.ResponseWriter, r *http.Request, inv finance.Invoice) error {
	views, err := a.b.Service.Views(r.Context(), inv)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, invoiceOf(views[0]))
	return nil
}

func pathInt(r *http.Request, name string) (int64, error) {
	raw := r.PathValue(name)
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 1 {
		return 0, msgkit.Invalidf(finance.CodeInvalidInvoice, name, "%s must be a positive integer, not %q", name, raw)
	}
	return n, nil
}

// onlyParams refuses query parameters other than names.
func onlyParams(v url.Values, names ...string) error {
	for key := range v {
		if !slices.Contains(names, key) {
			return msgkit.Invalidf(msgkit.CodeInvalidQuery, key, "unknown query parameter %q; this operation takes %s", key, strings.Join(names, ", "))
		}
	}
	return nil
}

// single is the one value of parameter name, "" when absent; repeated is
// an error.
func single(v url.Values, name string) (string, error) {
	switch vals := v[name]; len(vals) {
	case 0:
		return "", nil
	case 1:
		return vals[0], nil
	}
	return "", msgkit.Invalidf(msgkit.CodeInvalidQuery, name, "%s is given more than once", name)
}

func (a *api) listInvoices(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	show, err := single(v, "showAccountManager")
	if err == nil && show != "" && show != "yes" && show != "no" {
		err = msgkit.Invalidf(msgkit.CodeInvalidQuery, "showAccountManager", "showAccountManager is yes or no, not %q", show)
	}
	if err != nil {
		return err
	}
	q, err := msgkit.ParseListQuery(v, finance.InvoiceSpec())
	if err != nil {
		return err
	}
	scope, err := a.scope(r, auth.PrivFinanceInvoicesView)
	if err != nil {
		return err
	}
	page, err := a.b.Service.List(r.Context(), scope, q)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.ListOf(page, q, func(v finance.View) invoiceJSON {
		j := invoiceOf(v)
		if show == "yes" {
			// The platform keeps no account managers: the fields are
			// there, and null.
			j.AccountManagerID, j.AccountManagerName = jsonNull, jsonNull
		}
		return j
	}))
	return nil
}

// readInput decodes a create or update body.
func readInput(w http.ResponseWriter, r *http.Request) (finance.Input, error) {
	var body inputJSON
	if err := httpapi.DecodeJSON(w, r, &body, httpapi.DecodeOptions{}); err != nil {
		return finance.Input{}, err
	}
	return body.input()
}

func (a *api) createInvoice(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	if err := onlyParams(v, "classCodeName"); err != nil {
		return err
	}
	class, err := single(v, "classCodeName")
	if err != nil {
		return err
	}
	in, err := readInput(w, r)
	if err != nil {
		return err
	}
	switch {
	case class == "" && in.Class != nil:
		class = *in.Class
	case class == "":
		return msgkit.Invalidf(finance.CodeInvalidInvoice, "classCodeName", "classCodeName is required: one of %s", classList())
	case in.Class != nil && *in.Class != class:
		return msgkit.Invalidf(finance.CodeInvalidInvoice, "finDocClassCodeName", "finDocClassCodeName %s is not the classCodeName %s", *in.Class, class)
	}
	if !slices.Contains(finance.Classes(), finance.Class(class)) {
		return msgkit.Invalidf(finance.CodeInvalidInvoice, "classCodeName", "classCodeName %q is none of %s", class, classList())
	}
	in.Class = nil
	scope, err := a.changeScope(r)
	if err != nil {
		return err
	}
	inv, err := a.b.Service.Create(r.Context(), scope, finance.Class(class), in)
	if err != nil {
		return err
	}
	return a.answer(w, r, inv)
}

func classList() string {
	names := make([]string, 0, len(finance.Classes()))
	for _, c := range finance.Classes() {
		names = append(names, string(c))
	}
	return strings.Join(names, ", ")
}

func (a *api) getInvoice(w http.ResponseWriter, r *http.Request) error {
	id, err := invoiceAt(r)
	if err != nil {
		return err
	}
	scope, err := a.scope(r, auth.PrivFinanceInvoicesView)
	if err != nil {
		return err
	}
	inv, err := a.b.Service.Get(r.Context(), scope, id)
	if err != nil {
		return err
	}
	return a.answer(w, r, inv)
}

func (a *api) updateInvoice(w http.ResponseWriter, r *http.Request) error {
	id, err := invoiceAt(r)
	if err != nil {
		return err
	}
	in, err := readInput(w, r)
	if err != nil {
		return err
	}
	scope, err := a.changeScope(r)
	if err != nil {
		return err
	}
	inv, err := a.b.Service.Update(r.Context(), scope, id, in)
	if err != nil {
		return err
	}
	return a.answer(w, r, inv)
}

func (a *api) deleteInvoice(w http.ResponseWriter, r *http.Request) error {
	id, err := invoiceAt(r)
	if err == nil {
		var scope finance.Scope
		if scope, err = a.changeScope(r); err == nil {
			err = a.b.Service.Delete(r.Context(), scope, id)
		}
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (a *api) defaultConfig(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	names := []string{"domainCodeName", "dataSourceCodeName", "docClassCodeName", "templateLang", "collectionCode", "dtsSelectorCodeName", "coOwnerId"}
	if err := onlyParams(v, names...); err != nil {
		return err
	}
	vals := make([]string, len(names))
	for i, name := range names {
		s, err := single(v, name)
		if err != nil {
			return err
		}
		vals[i] = s
	}
	q := finance.ConfigQuery{Domain: vals[0], DataSource: vals[1], DocClass: vals[2], TemplateLang: vals[3], CollectionCode: vals[4], Selector: vals[5]}
	if vals[6] != "" {
		n, err := strconv.ParseInt(vals[6], 10, 64)
		if err != nil || n < 0 {
			return msgkit.Invalidf(msgkit.CodeInvalidQuery, "coOwnerId", "coOwnerId must be an integer of 0 or more, not %q", vals[6])
		}
		q.CoOwnerID = n
	}
	c, err := a.b.Service.DefaultConfig(r.Context(), q)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, configOf(c))
	return nil
}

// syncBody is the body of a sync status change.
type syncBody struct {
	Status       *string         `json:"status"`
	ReportData   json.RawMessage `json:"reportData"`
	DocumentSync json.RawMessage `json:"documentSync"`
}

func readSync(w http.ResponseWriter, r *http.Request) (finance.SyncChange, error) {
	var b syncBody
	if err := httpapi.DecodeJSON(w, r, &b, httpapi.DecodeOptions{}); err != nil {
		return finance.SyncChange{}, err
	}
	if b.Status == nil {
		return finance.SyncChange{}, msgkit.Invalidf(finance.CodeInvalidValue, "status", "status is required")
	}
	for name, raw := range map[string]json.RawMessage{"reportData": b.ReportData, "documentSync": b.DocumentSync} {
		if t := strings.TrimSpace(string(raw)); t != "" && t != "null" && !strings.HasPrefix(t, "{") {
			return finance.SyncChange{}, msgkit.Invalidf(finance.CodeInvalidValue, name, "%s must be a JSON object", name)
		}
	}
	c := finance.SyncChange{Status: *b.Status, ReportData: b.ReportData, DocumentSync: b.DocumentSync}
	if string(c.DocumentSync) == "null" {
		c.DocumentSync = nil
	}
	return c, nil
}

func (a *api) setSyncStatus(w http.ResponseWriter, r *http.Request) error {
	id, err := invoiceAt(r)
	if err != nil {
		return err
	}
	c, err := readSync(w, r)
	if err != nil {
		return err
	}
	scope, err := a.changeScope(r)
	if err != nil {
		return err
	}
	inv, err := a.b.Service.SetSyncStatus(r.Context(), scope, id, c)
	if err != nil {
		return err
	}
	return a.answer(w, r, inv)
}

// maxListIDs bounds a change of many invoices.
const maxListIDs = 1000

type syncResultJSON struct {
	ID       string         `json:"id"`
	OpStatus string         `json:"opStatus"`
	Error    *syncErrorJSON `json:"error"`
}

type syncErrorJSON struct {
	Code    int32  `json:"Code"`
	Message string `json:"Message"`
}

func (a *api) setSyncStatusMany(w http.ResponseWriter, r *http.Request) error {
	raw := r.PathValue("invoicesList")
	parts := strings.Split(raw, ",")
	err := onlyParams(r.URL.Query())
	if err == nil && len(parts) > maxListIDs {
		err = msgkit.Invalidf(finance.CodeInvalidValue, "invoicesList", "at most %d invoices at once", maxListIDs)
	}
	ids := make([]finance.InvoiceID, len(parts))
	for i, p := range parts {
		if err != nil {
			break
		}
		n, perr := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if perr != nil || n < 1 {
			err = msgkit.Invalidf(finance.CodeInvalidValue, "invoicesList", "invoicesList is invoice ids separated by commas; %q is not one", p)
		}
		ids[i] = finance.InvoiceID(n)
	}
	if err != nil {
		return err
	}
	c, err := readSync(w, r)
	if err != nil {
		return err
	}
	scope, err := a.changeScope(r)
	if err != nil {
		return err
	}
	results := a.b.Service.SetSyncStatusMany(r.Context(), scope, ids, c)
	out := struct {
		Result []syncResultJSON `json:"result"`
	}{Result: make([]syncResultJSON, len(results))}
	for i, res := range results {
		out.Result[i] = syncResultJSON{ID: res.ID, OpStatus: res.OpStatus}
		if res.Err != nil {
			if msgkit.KindOf(res.Err) == msgkit.Internal {
				return res.Err // the store failed: not a per-invoice answer
			}
			out.Result[i].Error = &syncErrorJSON{Code: int32(httpapi.Status(msgkit.KindOf(res.Err))), Message: msgkit.MessageOf(named(res.Err))}
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (a *api) setDeliveryStatus(w http.ResponseWriter, r *http.Request) error {
	id, err := invoiceAt(r)
	if err != nil {
		return err
	}
	var b struct {
		Status *string `json:"status"`
	}
	if err := httpapi.DecodeJSON(w, r, &b, httpapi.DecodeOptions{}); err != nil {
		return err
	}
	if b.Status == nil {
		return msgkit.Invalidf(finance.CodeInvalidValue, "status", "status is required")
	}
	scope, err := a.changeScope(r)
	if err != nil {
		return err
	}
	inv, err := a.b.Service.SetDeliveryStatus(r.Context(), scope, id, *b.Status)
	if err != nil {
		return err
	}
	return a.answer(w, r, inv)
}

// uploadField is the multipart field of the invoice file.
const uploadField = "supplierInvoice"

// validationStatus is the upload's answer to a file the checks refuse:
// the interface's 405 "validation exception".
const validationStatus = http.StatusMethodNotAllowed

func (a *api) upload(w http.ResponseWriter, r *http.Request) error {
	id, err := invoiceAt(r)
	if err != nil {
		return err
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "multipart/form-data" {
		return msgkit.Invalidf(finance.CodeInvalidFile, uploadField, "the body must be multipart/form-data with the file in the field %s", uploadField)
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return msgkit.Invalidf(finance.CodeInvalidFile, uploadField, "the multipart body cannot be read: %v", err)
	}
	for {
		part, err := mr.NextPart()
		if err != nil {
			if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
				return tooLarge(mb)
			}
			return msgkit.Invalidf(finance.CodeInvalidFile, uploadField, "the form has no file field %s", uploadField)
		}
		if part.FormName() != uploadField {
			continue
		}
		name := part.FileName()
		if name == "" {
			return msgkit.Invalidf(finance.CodeInvalidFile, uploadField, "%s must be a file (with a filename)", uploadField)
		}
		scope, err := a.changeScope(r)
		if err != nil {
			return err
		}
		rec, err := a.b.Service.Upload(r.Context(), scope, id, name, part)
		if err != nil {
			if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
				err = tooLarge(mb)
			} else if msgkit.CodeOf(err) == finance.CodeInvalidFile {
				err = &httpapi.StatusError{Status: validationStatus, Err: err}
			}
			return err
		}
		httpapi.WriteJSON(w, http.StatusCreated, uploadOf(rec))
		return nil
	}
}

// tooLarge is the 413 of a body over the route's limit.
func tooLarge(mb *http.MaxBytesError) error {
	return &httpapi.StatusError{Status: http.StatusRequestEntityTooLarge,
		Err: msgkit.Errorf(msgkit.Invalid, httpapi.CodeRequestTooLarge, "the request body exceeds %d bytes", mb.Limit)}
}

func (a *api) listFiles(w http.ResponseWriter, r *http.Request) error {
	id, err := invoiceAt(r)
	if err != nil {
		return err
	}
	scope, err := a.scope(r, auth.PrivFinanceInvoicesView)
	if err != nil {
		return err
	}
	files, err := a.b.Service.Files(r.Context(), scope, id)
	if err != nil {
		return err
	}
	q := msgkit.ListQuery{PageNumber: 1, PageSize: max(len(files), 1)}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.ListOf(msgkit.Page[finance.FileRecord]{Items: files, Total: len(files)}, q, fileOf))
	return nil
}

// balances answers the balances of one side.
func (a *api) balances(side finance.Side) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		v := r.URL.Query()
		o := finance.BalanceOptions{Side: side}
		group, err := single(v, "group")
		if err == nil && group != "" {
			o.Group = strings.Split(group, ",")
		}
		if err != nil {
			return err
		}
		asOf, err := single(v, "asOf")
		if err == nil && asOf != "" {
			var d msgkit.Date
			if d, err = msgkit.ParseDate(asOf); err != nil {
				err = msgkit.Invalidf(msgkit.CodeInvalidQuery, "asOf", "asOf must be a date YYYY-MM-DD, not %q", asOf)
			}
			o.AsOf = &d
		}
		if err != nil {
			return err
		}
		q, err := msgkit.ParseListQuery(v, finance.BalanceSpec())
		if err != nil {
			return err
		}
		scope, err := a.scope(r, auth.PrivFinanceBalanceView)
		if err != nil {
			return err
		}
		page, err := a.b.Service.Balances(r.Context(), scope, o, q)
		if err != nil {
			return err
		}
		httpapi.WriteJSON(w, http.StatusOK, httpapi.ListOf(page, q, balanceOf))
		return nil
	}
}

// sheet answers a partner's balance sheet of one side.
func (a *api) sheet(side finance.Side) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		partner, err := pathInt(r, "bizPartnerId")
		if err != nil {
			return err
		}
		v := r.URL.Query()
		o := finance.SheetOptions{Side: side, Partner: partner}
		for _, p := range []struct {
			name string
			to   **msgkit.Date
		}{{"startDate", &o.Start}, {"endDate", &o.End}} {
			s, err := single(v, p.name)
			if err == nil && s != "" {
				d, perr := msgkit.ParseDate(s)
				if perr != nil {
					err = msgkit.Invalidf(msgkit.CodeInvalidQuery, p.name, "%s must be a date YYYY-MM-DD, not %q", p.name, s)
				}
				*p.to = &d
			}
			if err != nil {
				return err
			}
		}
		switch dir, err := single(v, "dir"); {
		case err != nil:
			return err
		case dir == "desc":
			o.Desc = true
		case dir != "" && dir != "asc":
			return msgkit.Invalidf(msgkit.CodeInvalidQuery, "dir", "dir is asc or desc, not %q", dir)
		}
		q, err := msgkit.ParseListQuery(v, finance.SheetSpec())
		if err != nil {
			return err
		}
		scope, err := a.scope(r, auth.PrivFinanceBalanceView)
		if err != nil {
			return err
		}
		page, err := a.b.Service.Sheet(r.Context(), scope, o, q)
		if err != nil {
			return err
		}
		httpapi.WriteJSON(w, http.StatusOK, httpapi.ListOf(page, q, sheetOf))
		return nil
	}
}
