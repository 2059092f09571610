package financeapi

import (
	"net/http"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/finance"
)

// The reference routes refuse members a body has no field for: operator
// data with a misspelt field would be stored without it, unnoticed.
var strict = httpapi.DecodeOptions{DisallowUnknownFields: true}

// noQuery refuses any query parameter.
func noQuery(r *http.Request) error { return onlyParams(r.URL.Query()) }

// idAt reads a positive id from the path, refusing query parameters.
func idAt(r *http.Request, name string) (int64, error) {
	id, err := pathInt(r, name)
	if err == nil {
		err = noQuery(r)
	}
	return id, err
}

func (a *api) putPartner(w http.ResponseWriter, r *http.Request) error {
	id, err := idAt(r, "bizPartnerId")
	if err != nil {
		return err
	}
	var body partnerJSON
	if err := httpapi.DecodeJSON(w, r, &body, strict); err != nil {
		return err
	}
	rec, err := a.b.Service.PutPartner(r.Context(), body.record(id))
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, partnerOf(rec))
	return nil
}

func (a *api) getPartner(w http.ResponseWriter, r *http.Request) error {
	id, err := idAt(r, "bizPartnerId")
	if err != nil {
		return err
	}
	rec, err := a.b.Service.Partner(r.Context(), id)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, partnerOf(rec))
	return nil
}

func (a *api) listPartners(w http.ResponseWriter, r *http.Request) error {
	q, err := msgkit.ParseListQuery(r.URL.Query(), finance.PartnerSpec())
	if err != nil {
		return err
	}
	page, err := a.b.Service.Partners(r.Context(), q)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.ListOf(page, q, partnerOf))
	return nil
}

func (a *api) putBillingAccount(w http.ResponseWriter, r *http.Request) error {
	id, err := idAt(r, "billingAccountId")
	if err != nil {
		return err
	}
	var body accountInputJSON
	if err := httpapi.DecodeJSON(w, r, &body, strict); err != nil {
		return err
	}
	acc, err := body.account(id)
	if err != nil {
		return err
	}
	if err := a.b.Service.PutBillingAccount(r.Context(), acc); err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, accountOf(&acc))
	return nil
}

func (a *api) putSourceRecord(w http.ResponseWriter, r *http.Request) error {
	id, err := idAt(r, "recordId")
	if err != nil {
		return err
	}
	var body sourceRecordJSON
	if err := httpapi.DecodeJSON(w, r, &body, strict); err != nil {
		return err
	}
	// The kind is checked after the body, so a malformed body is refused
	// as every route of the family refuses it.
	kindName := r.PathValue("kind")
	kind, ok := recordKinds[kindName]
	if !ok {
		return msgkit.Invalidf(finance.CodeInvalidExportData, "kind", "a source record is of kind billing or credit, not %q", kindName)
	}
	if err := a.b.Service.PutSourceRecord(r.Context(), finance.SourceRef{Kind: kind, ID: id}, body.BillingAccountID); err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, sourceRecordJSON{Kind: kindName, RecordID: id, BillingAccountID: body.BillingAccountID})
	return nil
}

func (a *api) putDocumentType(w http.ResponseWriter, r *http.Request) error {
	id, err := idAt(r, "typeId")
	if err != nil {
		return err
	}
	var body documentTypeJSON
	if err := httpapi.DecodeJSON(w, r, &body, strict); err != nil {
		return err
	}
	if body.SelfBilling == "" {
		body.SelfBilling = "no"
	}
	if body.SelfBilling != "yes" && body.SelfBilling != "no" {
		return msgkit.Invalidf(finance.CodeInvalidExportData, "selfBilling", "selfBilling is yes or no, not %q", body.SelfBilling)
	}
	t := finance.DocumentType{ID: id, Name: body.Name, SelfBilling: body.SelfBilling == "yes"}
	if err := a.b.Service.PutDocumentType(r.Context(), t); err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, documentTypeJSON{TypeID: id, Name: t.Name, SelfBilling: body.SelfBilling})
	return nil
}

func (a *api) putConfig(w http.ResponseWriter, r *http.Request) error {
	id, err := idAt(r, "typeId")
	if err != nil {
		return err
	}
	var body configInputJSON
	if err := httpapi.DecodeJSON(w, r, &body, strict); err != nil {
		return err
	}
	c, err := a.b.Service.PutConfig(r.Context(), body.config(id, r.PathValue("templateLang")))
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, configOf(c))
	return nil
}

func (a *api) putDomesticRate(w http.ResponseWriter, r *http.Request) error {
	id, err := invoiceAt(r)
	if err != nil {
		return err
	}
	var body domesticRateJSON
	if err := httpapi.DecodeJSON(w, r, &body, strict); err != nil {
		return err
	}
	if body.DomesticCurrencyRate == nil {
		return msgkit.Invalidf(finance.CodeInvalidExportData, "domesticCurrencyRate", "domesticCurrencyRate is required")
	}
	c, err := currencyIn("domesticCurrency", body.DomesticCurrency, false)
	if err != nil {
		return err
	}
	rate := finance.DomesticRate{Currency: c, Rate: *body.DomesticCurrencyRate}
	if err := a.b.Service.SetDomesticRate(r.Context(), id, rate); err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, domesticRateOut{InvoiceID: id, DomesticCurrency: c.Numeric, DomesticCurrencyCode: c.Code,
		DomesticCurrencyRate: number(rate.Rate)})
	return nil
}

func (a *api) putTrafficReports(w http.ResponseWriter, r *http.Request) error {
	id, err := invoiceAt(r)
	if err != nil {
		return err
	}
	var body trafficBody[trafficInputJSON]
	if err := httpapi.DecodeJSON(w, r, &body, strict); err != nil {
		return err
	}
	if body.TrafficReports == nil {
		return msgkit.Invalidf(finance.CodeInvalidExportData, "trafficReports", "trafficReports is required (an empty list clears them)")
	}
	rows, err := trafficIn(body.TrafficReports)
	if err != nil {
		return err
	}
	if err := a.b.Service.SetTrafficReports(r.Context(), id, rows); err != nil {
		return err
	}
	out := trafficBody[trafficJSON]{TrafficReports: make([]trafficJSON, len(rows))}
	for i, t := range rows {
		out.TrafficReports[i] = trafficOf(t)
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
