package main

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
)

// probe says how to call an operation beyond its path: a query and a
// body as templates whose {name}s are ids (see fillText), the body's type
// (JSON when empty), or the body read from bodyFrom (a path, as A) when
// the operation takes a record back. operator marks a family that serves
// no tenant's data: every caller with its credentials is the operator.
type probe struct {
	query, body, contentType string
	bodyFrom                 string
	operator                 string // why the operation has no tenant
}

const walkSeg = `{\"segmentation\":[{\"rules\":[{\"field\":\"first_name\",\"condition\":\"eq\",\"value\":\"B\",\"operator\":\"AND\"}]}]}`

// walkProbes are the probes of every operation the platform serves. A
// route without one fails the walk: a new route needs its probe.
func walkProbes(t *testing.T) map[string]probe {
	const s = "/news/v1/services/{serviceUuid}"
	const f = "/finance/sit/v1/"
	const ts = "/gate/testsystem/v1/test"
	const adm = "/admin/v1/"
	const op = "operator provisioning: the routing family's API keys are the operator's, and its records no tenant's"
	uploadType, uploadBody := walkUpload(t)
	p := map[string]probe{
		// customer data storage and campaigns
		"GET " + s + "/cds/contacts":                                     {query: "list_uuids={listId}&group_uuid={groupId}&subscription_uuids={subscriptionId}"},
		"POST " + s + "/cds/contacts":                                    {body: `{"list_uuid":"{listId}","first_name":"B","mobile":"+38640999888"}`},
		"POST " + s + "/cds/imports":                                     {query: "list_uuid={listId}&touchpoint_uuids={touchpointId}", body: `[{"mobile":"+38640999777","first_name":"B"}]`},
		"GET " + s + "/cds/lists":                                        {query: "uuid={listId}"},
		"POST " + s + "/cds/lists":                                       {body: `{"name":"B's list"}`},
		"GET " + s + "/cds/fields":                                       {},
		"POST " + s + "/cds/custom_fields":                               {body: `{"display_name":"B's field","field_type":"text"}`},
		"POST " + s + "/cds/segmentation_sets":                           {body: `{"name":"B","data":"` + walkSeg + `"}`},
		"POST " + s + "/cds/segmentation_groups":                         {body: `{"name":"B","data":"` + walkSeg + `"}`},
		"POST " + s + "/cds/subscriptions":                               {body: `{"name":"B's news"}`},
		"POST " + s + "/cds/subscriptions/options":                       {body: `{"name":"B","subscription_uuid":"{subscriptionId}"}`},
		"GET " + s + "/cds/subscriptions/members":                        {query: "contact_uuid={contactId}"},
		"POST " + s + "/cds/subscriptions/members":                       {body: `{"contact_uuid":"{contactId}","option_uuid":"{optionId}","status":"unsubscribed"}`},
		"POST " + s + "/cds/groups":                                      {body: `{"name":"B's group"}`},
		"POST " + s + "/cds/group_lists":                                 {body: `{"group_uuid":"{groupId}","list_uuid":"{listId}"}`},
		"POST " + s + "/cds/group_segmentation":                          {body: `{"group_uuid":"{groupId}","data":"` + walkSeg + `"}`},
		"POST " + s + "/cds/touchpoints":                                 {body: `{"name":"B's shop"}`},
		"GET " + s + "/cds/touchpoints/members":                          {query: "contact_uuid={contactId}"},
		"POST " + s + "/cds/touchpoints/members":                         {body: `{"contact_uuid":"{contactId}","touchpoint_uuid":"{touchpointId}","status":"unsubscribed"}`},
		"POST " + s + "/cds/interests":                                   {body: `{"name":"B's bikes"}`},
		"GET " + s + "/cds/interests/members":                            {query: "contact_uuid={contactId}"},
		"POST " + s + "/cds/interests/members":                           {body: `{"contact_uuid":"{contactId}","interest_uuid":"{interestId}","status":"unsubscribed"}`},
		"POST " + s + "/campaigns":                                       {body: `{"clone_uuid":"{campaignUuid}","name":"B's clone"}`},
		"GET " + s + "/campaigns":                                        {query: "fields=tasks"},
		"PUT " + s + "/cds/contacts/{contactId}":                         {bodyFrom: s + "/cds/contacts/{contactId}"},
		"PATCH " + s + "/cds/contacts/{contactId}":                       {body: `{"opt_status":"out"}`},
		"PATCH " + s + "/campaigns/{campaignUuid}":                       {body: `{"status":"active"}`},
		"GET " + s + "/cds/group_lists":                                  {query: "group_uuid={groupId}"},
		"GET " + s + "/cds/group_segmentation":                           {query: "group_uuid={groupId}"},
		"GET " + s + "/cds/subscriptions/options":                        {query: "subscription_uuid={subscriptionId}"},
		"PUT " + s + "/cds/group_lists/{groupListId}":                    {body: `{"group_uuid":"{groupId}","list_uuid":"{listId}"}`},
		"PUT " + s + "/cds/group_segmentation/{groupSegmentationId}":     {body: `{"group_uuid":"{groupId}","data":"` + walkSeg + `"}`},
		"PUT " + s + "/cds/subscriptions/options/{optionId}":             {body: `{"name":"B","subscription_uuid":"{subscriptionId}"}`},
		"PUT " + s + "/cds/segmentation_sets/{segmentationSetId}":        {body: `{"name":"B","data":"` + walkSeg + `"}`},
		"PUT " + s + "/cds/segmentation_groups/{segmentationGroupId}":    {body: `{"name":"B","data":"` + walkSeg + `"}`},
		"PUT " + s + "/cds/custom_fields/{customFieldsId}":               {body: `{"display_name":"B","field_type":"text"}`},
		"PUT " + s + "/cds/lists/{listId}":                               {body: `{"name":"B"}`},
		"PUT " + s + "/cds/subscriptions/{subscriptionId}":               {body: `{"name":"B"}`},
		"PUT " + s + "/cds/groups/{groupId}":                             {body: `{"name":"B"}`},
		"PUT " + s + "/cds/touchpoints/{touchpointId}":                   {body: `{"name":"B"}`},
		"PUT " + s + "/cds/interests/{interestId}":                       {body: `{"name":"B"}`},
		"PUT " + s + "/campaigns/{campaignUuid}":                         {bodyFrom: s + "/campaigns/{campaignUuid}"},
		"GET " + f + "invoices":                                          {query: "in(custID)={bizPartnerId}"},
		"POST " + f + "invoices":                                         {query: "classCodeName=CUSTOMER_INVOICE", body: strings.Replace(walkInvoice(0), `"custID": 0`, `"custID": {bizPartnerId}`, 1)},
		"PUT " + f + "invoices/{invoiceid}":                              {body: `{"comment":"B was here"}`},
		"PUT " + f + "invoices/{invoiceid}/sync-status":                  {body: `{"status":"exported"}`},
		"PUT " + f + "invoices-list/{invoicesList}/sync-status":          {body: `{"status":"exported"}`},
		"PUT " + f + "invoices/{invoiceid}/docs-delivery-status":         {body: `{"status":"sent"}`},
		"PUT " + f + "invoices/{invoiceid}/netting":                      {body: `{"nettingInvoiceId":{nettingInvoiceId}}`},
		"DELETE " + f + "invoices/{invoiceid}/netting":                   {},
		"PUT " + f + "invoices/{invoiceid}/collection":                   {body: `{"collectionLeadId":{invoiceid}}`},
		"DELETE " + f + "invoices/{invoiceid}/collection":                {},
		"GET " + f + "default-invoice-config":                            {query: "domainCodeName=BULK&dataSourceCodeName=POSTPAID&docClassCodeName=CUSTOMER_INVOICE"},
		"POST /invoice-docs/v2/invoices/{invoiceId}/files":               {contentType: uploadType, body: uploadBody},
		"POST " + ts + "/sms":                                            {body: `{"username":"walk-ts-b","test":"t","gate_id":[{gate/{id}}],"mcc_mnc":[23410],"text_lang":"en","text_type":"gsm","callback_api":"https://example.com/cb"}`},
		"POST " + ts + "/route":                                          {body: `{"category":"c","supplier":"s","gate":"B's gate","gate_id":{gate/{id}},"prefix":"1"}`},
		"GET " + ts + "/operator":                                        {query: "owner=me"},
		"GET " + ts + "/operator/country":                                {query: "owner=me"},
		"POST /smsmtinbound/v1/smsmtin-routes":                           {body: `{"sigtran_connect_id":"81","smpp_connect_id":"82"}`, operator: op},
		"GET /smsmtinbound/v1/smsmtin-routes":                            {operator: op},
		"GET /smsmtinbound/v1/smsmtin-routes/{id}":                       {operator: op},
		"PUT /smsmtinbound/v1/smsmtin-routes/{id}":                       {body: `{"sigtran_connect_id":"71","smpp_connect_id":"73"}`, operator: op},
		"DELETE /smsmtinbound/v1/smsmtin-routes/{id}":                    {operator: op},
		"POST " + httpapi.TokenPath:                                      {contentType: "application/x-www-form-urlencoded", body: "grant_type=client_credentials&client_id=walk-b&client_secret=" + walkSecret},
		"POST /bulk/sendsms":                                             {body: `{"type":"text","auth":{"username":"walk-sms-b","password":"` + walkSecret + `"},"sender":"B","receiver":"38640123456","dcs":"GSM","text":"hi"}`},
		"PUT " + f + "biz-partners/{bizPartnerId}":                       {body: `{"name":"B was here","serviceUuid":"` + string(walkTenantA) + `"}`},
		"PUT " + f + "billing-accounts/{billingAccountId}":               {body: `{"bizPartnerId":{bizPartnerId},"currency":978,"name":"B"}`},
		"PUT " + f + "source-records/{kind}/{recordId}":                  {body: `{"billingAccountId":{billingAccountId}}`},
		"PUT " + f + "document-types/{typeId}":                           {body: `{"name":"B"}`},
		"PUT " + f + "invoice-configs/{typeId}/templates/{templateLang}": {body: `{"name":"B","domainCodeName":"BULK","dataSourceCodeName":"POSTPAID","docClassCodeName":"CUSTOMER_INVOICE","collectionCode":"reminder"}`},
		"PUT " + f + "invoices/{invoiceid}/domestic-rate":                {body: `{"domesticCurrency":978,"domesticCurrencyRate":1.5}`},
		"PUT " + f + "invoices/{invoiceid}/traffic-reports":              {body: `{"trafficReports":[]}`},
		// the operator's administration: listings filtered to the walk's
		// own records, so that clients the walk adds leave A's reads as
		// they were
		"POST " + adm + "tenants":                        {body: `{"name":"B's tenant"}`},
		"GET " + adm + "tenants":                         {query: "id={tenantId}"},
		"PATCH " + adm + "tenants/{tenantId}":            {body: `{"name":"renamed by B"}`},
		"POST " + adm + "clients":                        {body: `{"name":"B's client","networks":["192.0.2.0/24"]}`},
		"GET " + adm + "clients":                         {query: "id={clientId}"},
		"PATCH " + adm + "clients/{clientId}":            {body: `{"privileges":["news"]}`},
		"POST " + adm + "clients/{clientId}/secret":      {},
		"POST " + adm + "users":                          {body: `{"username":"walk-b-user","password":"pw"}`},
		"GET " + adm + "users":                           {query: "username={username}"},
		"PATCH " + adm + "users/{username}":              {body: `{"password":"changed by B"}`},
		"POST " + adm + "api-keys":                       {body: `{"name":"B's key"}`},
		"GET " + adm + "api-keys":                        {query: "id={keyId}"},
		"GET " + adm + "audit":                           {query: "resourceId={clientId}&action=create"},
		"PUT " + adm + "ui-components/{componentId}":     {body: `{"type":"grid","service":"` + string(walkTenantA) + `","url":"https://customer.example/{referenceId}","columns":[{"name":"id","kind":"number"}]}`},
		"GET " + adm + "ui-components":                   {query: "id={componentId}"},
		"PUT " + adm + "daily-limits/{username}":         {body: `{"dailyLimit":7}`},
		"GET " + adm + "daily-limits":                    {query: "username={username}"},
		"GET " + adm + "messages":                        {query: "account=walk-sms-a"},
		"GET " + adm + "inbound":                         {query: "state=unroutable"},
		"POST " + adm + "sms-accounts":                   {body: `{"username":"walk-b-sms","password":"pw","currency":"EUR"}`},
		"GET " + adm + "sms-accounts":                    {query: "username=walk-sms-a"},
		"PATCH " + adm + "sms-accounts/{username}":       {body: `{"throughput":77}`},
		"POST " + adm + "sms-accounts/{username}/ledger": {body: `{"kind":"top_up","amount":"1","currency":"EUR","note":"walk"}`},
	}
	return p
}

// probeOf is the probe of r; a route of the families' GET, DELETE and
// plain reads takes none.
func probeOf(probes map[string]probe, r walkRoute) (probe, bool) {
	if p, ok := probes[r.op()]; ok {
		return p, true
	}
	switch r.route.Method {
	case http.MethodGet, http.MethodDelete:
		return probe{}, true
	}
	return probe{}, false
}

// answer is a request's outcome as the walk compares it, and the
// request's path and body.
type answer struct {
	status  int
	body    string
	request string
}

func (a answer) String() string { return fmt.Sprintf("%d %s", a.status, a.body) }

// same reports whether two answers are one: status and body.
func (a answer) same(b answer) bool { return a.status == b.status && a.body == b.body }

// call serves r's operation with the ids of v, for tenant, with the
// credentials of headers.
func (w *walkWorld) call(r walkRoute, p probe, v ids, tenant msgkit.ServiceUUID, headers string) (answer, bool) {
	w.t.Helper()
	a, res := w.callRecorded(r, p, v, tenant, headers)
	return a, res != nil
}

// callRecorded is call with the whole answer; nil when the walk has no id
// for one of the path's wildcards.
func (w *walkWorld) callRecorded(r walkRoute, p probe, v ids, tenant msgkit.ServiceUUID, headers string) (answer, *httptest.ResponseRecorder) {
	w.t.Helper()
	path, missing, ok := fill(r.route.Path, v, tenant)
	if !ok {
		w.t.Errorf("%s: the walk has no id for {%s}", r.op(), missing)
		return answer{}, nil
	}
	if p.query != "" {
		path += "?" + fillText(p.query, v)
	}
	body, ct := fillText(p.body, v), p.contentType
	if p.bodyFrom != "" {
		from, _, _ := fill(p.bodyFrom, w.a, walkTenantA)
		res := w.do(w.api, http.MethodGet, from, "", "", "Authorization: Bearer "+w.token("walk-a", false))
		body = normalizeTo(res.Body.String(), w.a, v)
	}
	if ct == "" && body != "" {
		ct = "application/json"
	}
	h := w.api
	if r.sms {
		h = w.sms
	}
	res := w.do(h, r.route.Method, path, ct, body, headers)
	return answer{res.Code, res.Body.String(), path + " " + body}, res
}

// normalizeTo rewrites A's record ids (UUIDs: numbers are too short to
// tell from other numbers) in body as v's.
func normalizeTo(body string, a, v ids) string {
	for k, id := range a {
		if len(id) >= 20 {
			body = strings.ReplaceAll(body, id, v[k])
		}
	}
	return body
}

// credentialsOf are the headers tenant B (b true) or A (b false) calls r
// with: a bearer token of the family's kind, the routing API key, or none
// (credentials in the body, or none needed).
func (w *walkWorld) credentialsOf(r walkRoute, b bool) string {
	pick := func(bWho, aWho string) string {
		if b {
			return bWho
		}
		return aWho
	}
	switch {
	case r.spec.Auth == httpapi.AuthAPIKey:
		return "X-API-Key: " + walkAPIKey
	case r.spec.Auth == httpapi.AuthNone || r.route.Path == httpapi.TokenPath || r.spec.Auth == httpapi.AuthBody && r.spec.Family != httpapi.OAuth:
		return ""
	case r.spec.Family == httpapi.TestSystem:
		return "Authorization: Bearer " + w.token(pick("walk-ts-b", "walk-ts-a"), true)
	case r.spec.Family == httpapi.Finance:
		return "Authorization: Bearer " + w.token(pick("walk-b-finance", "walk-a"), false)
	}
	return "Authorization: Bearer " + w.token(pick("walk-b", "walk-a"), false)
}

// snapshot is what A reads of its data through every read of the
// platform, keyed by operation.
func (w *walkWorld) snapshot(routes []walkRoute, probes map[string]probe) map[string]answer {
	out := map[string]answer{}
	for _, r := range routes {
		p, _ := probeOf(probes, r)
		if r.route.Method != http.MethodGet || r.spec.Auth == httpapi.AuthNone || r.spec.Family == httpapi.OAuth {
			continue
		}
		a, ok := w.call(r, p, w.a, walkTenantA, w.credentialsOf(r, false))
		if ok {
			out[r.op()] = a
		}
	}
	return out
}

// Every operation of every family, called by tenant B against tenant A's
// records, reads nothing of A's, changes nothing of A's and answers
// exactly as it does for records that do not exist; a token of A lacking
// the operation's privilege is refused and changes nothing; and A's own
// calls with the same probes succeed, so the refusals above are not
// refusals of the probes.
func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	for name, cfg := range walkStores(t) {
		t.Run(name, func(t *testing.T) {
			w := newWalkWorld(t, cfg(t))
			probes := walkProbes(t)
			routes := w.routes()
			if len(routes) < 100 {
				t.Fatalf("the walk found %d routes: too few to be every family's", len(routes))
			}
			// A uses one Idempotency-Key on every operation that takes one:
			// B's use of the same key must act as B's own (keys are per
			// client or account), never replay A's answer.
			for _, r := range routes {
				if p, ok := probeOf(probes, r); ok && takesKey(r) && p.operator == "" {
					p.body = strings.ReplaceAll(p.body, "walk-sms-b", "walk-sms-a") // bulk SMS: A's account
					w.call(r, p, w.a, walkTenantA, w.credentialsOf(r, false)+"\nIdempotency-Key: "+walkKey(r))
				}
			}
			before := w.snapshot(routes, probes)
			for _, r := range routes {
				p, ok := probeOf(probes, r)
				if !ok {
					t.Errorf("%s: no probe; add one to walkProbes", r.op())
					continue
				}
				t.Run(strings.ReplaceAll(r.op(), "/", "_"), func(t *testing.T) { w.crossTenant(t, r, p) })
			}
			w.compare(t, before, w.snapshot(routes, probes), "after tenant B's calls")
			for _, r := range routes {
				if len(r.route.Privileges) == 0 {
					continue
				}
				p, _ := probeOf(probes, r)
				headers := "Authorization: Bearer " + w.tokenWithout(r.route.Privileges)
				got, ok := w.call(r, p, w.a, walkTenantA, headers)
				if ok && got.status != http.StatusForbidden {
					t.Errorf("%s without %v: %s, want 403", r.op(), r.route.Privileges, got)
				}
			}
			w.compare(t, before, w.snapshot(routes, probes), "after calls without the privilege")
			w.control(t, routes, probes)
		})
	}
}

// walkKey is the Idempotency-Key A and B both send to r: one per
// operation, as a key is one request's.
func walkKey(r walkRoute) string {
	return fmt.Sprintf("walk-%x", sha256.Sum256([]byte(r.op())))[:40]
}

// takesKey reports whether r takes an Idempotency-Key.
func takesKey(r walkRoute) bool { return r.route.Idempotent || r.route.Path == "/bulk/sendsms" }

// crossTenant calls r as tenant B with A's ids and with unknown ones.
func (w *walkWorld) crossTenant(t *testing.T, r walkRoute, p probe) {
	if p.operator != "" {
		if r.spec.Tenant || r.spec.Auth != httpapi.AuthAPIKey {
			t.Errorf("%s is marked an operator's operation (%s) but its family has tenants or is not the API-key family", r.op(), p.operator)
		}
		return
	}
	creds := w.credentialsOf(r, true)
	if r.spec.Family == httpapi.Admin {
		// The operator's: a tenant's client holds no admin privilege.
		got, ok := w.call(r, p, w.a, walkTenantB, creds)
		if ok && (got.status != http.StatusForbidden || !strings.Contains(got.body, httpapi.CodeInsufficientPrivilege)) {
			t.Errorf("B's client on the operator's administration: %s, want 403 %s", got, httpapi.CodeInsufficientPrivilege)
		}
		return
	}
	theirs, ok1 := w.call(r, p, w.a, walkTenantB, creds)
	unknown, ok2 := w.call(r, p, w.unknown, walkTenantB, creds)
	if !ok1 || !ok2 {
		return
	}
	if takesKey(r) {
		// A's key is not B's: B's request with it acts as B's own.
		_, res := w.callRecorded(r, p, w.unknown, walkTenantB, creds+"\nIdempotency-Key: "+walkKey(r))
		if res.Header().Get("Idempotent-Replayed") != "" || res.Code == http.StatusUnprocessableEntity || res.Code == http.StatusConflict && strings.Contains(res.Body.String(), "idempotency") {
			t.Errorf("B's request with A's Idempotency-Key: %d %s", res.Code, res.Body)
		}
	}
	if r.spec.Auth == httpapi.AuthNone {
		// Made-up data for anyone (the mock operations, the demo page).
		if theirs.status != unknown.status {
			t.Errorf("A's ids answer %s, unknown ones %s", theirs, unknown)
		}
		return
	}
	if strings.Contains(theirs.body, walkMarker) {
		t.Errorf("B reads A's data: %s", theirs)
	}
	for k, id := range w.a {
		if len(id) >= 20 && strings.Contains(theirs.body, id) && !strings.Contains(theirs.request, id) {
			t.Errorf("B's answer holds A's %s, which B did not name: %s", k, theirs)
		}
	}
	if theirs.status != unknown.status {
		t.Errorf("A's records answer %s, unknown ones %s", theirs, unknown)
	} else if theirs.status >= 400 && normalize(theirs.body, w.a, theirs.request) != normalize(unknown.body, w.unknown, unknown.request) {
		t.Errorf("A's records answer\n\t%s\nunknown ones\n\t%s", theirs, unknown)
	}
	if !r.spec.Tenant {
		return
	}
	// A's tenant in the path: refused, as an unknown tenant is.
	inA, _ := w.call(r, p, w.a, walkTenantA, creds)
	other := msgkit.ServiceUUID("0c0c0c0c-3333-4ccc-8ccc-00000000000c")
	inOther, _ := w.call(r, p, w.unknown, other, creds)
	if inA.status != http.StatusForbidden || strings.ReplaceAll(inA.body, string(walkTenantA), "{tenant}") != strings.ReplaceAll(inOther.body, string(other), "{tenant}") {
		t.Errorf("B in A's tenant: %s; in an unknown tenant: %s", inA, inOther)
	}
}

// compare reports every read of A's whose answer changed.
func (w *walkWorld) compare(t *testing.T, before, after map[string]answer, when string) {
	t.Helper()
	for op, a := range before {
		if b := after[op]; !b.same(a) {
			t.Errorf("%s: A's read %s changed:\n\tbefore %s\n\tafter  %s", when, op, a, b)
		}
	}
}

// controlRefusals are A's own calls with the walk's probes that are
// refused on purpose, and why.
var controlRefusals = map[string]string{
	"POST /gate/testsystem/v1/test/route":                 "A's gate_id names A's gate of another name",
	"POST /gate/testsystem/v1/test/sms":                   "the probe's username is B's",
	"POST /bulk/sendsms":                                  "",
	"PUT /finance/sit/v1/invoices/{invoiceid}/collection": "A's invoice is a customer invoice, no note: the probe names it as its own lead",
}

// control makes A's own calls of every operation that writes, with the
// probes B used: each must succeed (deletes last), or be refused as a
// conflict with A's records (a membership A has already, a subscription
// in use), so B's refusals were refusals of B, not of a broken probe.
func (w *walkWorld) control(t *testing.T, routes []walkRoute, probes map[string]probe) {
	t.Helper()
	var deletes []walkRoute
	for _, r := range routes {
		p, _ := probeOf(probes, r)
		switch {
		case r.route.Method == http.MethodGet || p.operator != "" || r.spec.Auth == httpapi.AuthNone || r.spec.Family == httpapi.OAuth:
			continue
		case r.route.Method == http.MethodDelete:
			deletes = append(deletes, r)
			continue
		}
		if _, refused := controlRefusals[r.op()]; refused {
			continue
		}
		got, ok := w.call(r, p, w.a, walkTenantA, w.credentialsOf(r, false))
		if ok && (got.status < 200 || got.status > 299) && got.status != http.StatusConflict {
			t.Errorf("A's own %s: %s", r.op(), got)
		}
	}
	for _, r := range deletes {
		got, ok := w.call(r, probe{}, w.a, walkTenantA, w.credentialsOf(r, false))
		if ok && (got.status < 200 || got.status > 299) && got.status != http.StatusNotFound && got.status != http.StatusConflict {
			t.Errorf("A's own %s: %s", r.op(), got)
		}
	}
}
