package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/sms"
)

// demoCredentials are made at start when no bootstrap file is given, so a
// newcomer can call the platform at once. They are printed once and never
// stored in clear.
type demoCredentials struct {
	Service        msgkit.ServiceUUID
	ClientID       string
	ClientSecret   string
	OperatorID     string // the operator's client: the administration's privileges, no tenant
	OperatorSecret string
	Username       string
	Password       string
	APIKey         string
	SMSUser        string
	SMSPassword    string
	LoadUser       string
	LoadPassword   string
	Campaign       string // the draft campaign's UUID
	APIBase        string // the REST listener's address, http://host:port
}

// print writes the credentials and the first calls a newcomer makes; kept
// says where the store keeps them, bound where the platform listens.
func (d demoCredentials) print(w io.Writer, kept string, bound listeners) {
	base, smsBase := "http://"+localURL(bound.API), "http://"+localURL(bound.SMSHTTP)
	fmt.Fprintf(w, `
msgkit demo credentials: made at this start for trying the platform, never for production
(shown once; %[12]s)
%[16]s
  tenant (serviceUuid):  %[2]s
  API client:            client_id=%[3]s client_secret=%[4]s (from 127.0.0.1 or ::1)
  operator client:       client_id=%[18]s client_secret=%[19]s (administration; from 127.0.0.1 or ::1)
  test system user:      username=%[5]s password=%[6]s
  routing X-API-Key:     %[7]s
  bulk SMS account:      username=%[9]s password=%[10]s (100 EUR; %[17]s)
  load test account:     username=%[13]s password=%[14]s (no throughput limit)

Try:
  TOKEN=$(curl -s %[1]s/oauth2/access-token -d grant_type=client_credentials -d client_id=%[3]s -d client_secret=%[4]s | sed 's/.*"access_token":"\([^"]*\)".*/\1/')
  curl -s %[1]s/oauth2/token-info -H "Authorization: Bearer $TOKEN"
  curl -s %[1]s/finance/sit/v1/balances/biz-partners/customers -H "Authorization: Bearer $TOKEN"
  curl -s '%[1]s/news/v1/services/%[2]s/cds/contacts?fields=lists&sort=first_name' -H "Authorization: Bearer $TOKEN"
  curl -s '%[1]s/news/v1/services/%[2]s/campaigns?status=draft' -H "Authorization: Bearer $TOKEN"
  curl -s -X PATCH %[1]s/news/v1/services/%[2]s/campaigns/%[15]s -H "Authorization: Bearer $TOKEN" -d '{"status":"active"}'
  until curl -s '%[1]s/news/v1/services/%[2]s/campaigns/%[15]s?fields=tasks,messages' -H "Authorization: Bearer $TOKEN" | grep '"status":"done"'; do sleep 1; done
  (the draft "Welcome" is sent to the list's two opted-in contacts, charged to the bulk SMS
   account; the runner takes it up within a second, and the call waits for its task to be
   done, then shows the task and the messages; without the wait they are empty until then)
  curl -s %[8]s/bulk/sendsms -d '{"type":"text","auth":{"username":"%[9]s","password":"%[10]s"},"sender":"Demo","receiver":"38640123456","dcs":"GSM","text":"Hello from msgkit","dlrMask":19,"dlrUrl":"%[8]s%[11]s"}'
  (its delivery report comes back to this server, which logs it: the demo lets reports go to
   loopback, -dlr-allow auto; without -demo, loopback and private addresses are refused)

Operator administration (the operator client; tenants, API clients, users and API keys at run time):
  OP=$(curl -s %[1]s/oauth2/access-token -d grant_type=client_credentials -d client_id=%[18]s -d client_secret=%[19]s | sed 's/.*"access_token":"\([^"]*\)".*/\1/')
  curl -s %[1]s/admin/v1/tenants -H "Authorization: Bearer $OP"
  curl -s %[1]s/admin/v1/clients -H "Authorization: Bearer $OP" -d '{"name":"CRM","networks":["127.0.0.1"],"services":["%[2]s"],"privileges":["news"]}'
  (the new client's secret is in the answer, once; PATCH /admin/v1/tenants/%[2]s with {"suspended":true} refuses the tenant's callers)

Inbound MT routing provisioning (the routing X-API-Key; a route ties a SIGTRAN connection to an SMPP connection or an ESME):
  curl -s %[1]s/smsmtinbound/v1/smsmtin-routes -H "X-API-Key: %[7]s" -d '{"sigtran_connect_id":"12","smpp_connect_id":"3","esme_connect_id":"0"}'
  curl -s %[1]s/smsmtinbound/v1/smsmtin-routes -H "X-API-Key: %[7]s"

SMS route test system (the test system user; five simulated routes, handsets on every network):
  TS=$(curl -s %[1]s/oauth2/access-token -d grant_type=password -d username=%[5]s -d password=%[6]s | sed 's/.*"access_token":"\([^"]*\)".*/\1/')
  curl -s '%[1]s/gate/testsystem/v1/test/route?sort=gate_name' -H "Authorization: Bearer $TS"
  curl -s %[1]s/gate/testsystem/v1/test/sms -H "Authorization: Bearer $TS" -d '{"username":"%[5]s","test":"demo","gate_id":[1,2,3,4,5],"mcc_mnc":[23410],"text_lang":"en","text_type":"ucs","callback_api":"%[8]s%[11]s"}'
  curl -s '%[1]s/gate/testsystem/v1/test/sms/1/result?page_size=5' -H "Authorization: Bearer $TS"
  (judged within 30 s; the session's results are then posted to callback_api, logged here too)

UI integration proxy (the API client's $TOKEN; a grid and a KPI tile fed by this server's mock operations):
  open %[1]s/ui/demo/ in a browser and sign in with the API client
  curl -s '%[1]s/ui/v1/grid/demo-invoices?reference_id=ACME-1&sort=-id&page_size=3&gt(id)=30' -H "Authorization: Bearer $TOKEN"
  curl -s '%[1]s/ui/v1/kpi/demo-balance?reference_id=ACME-1' -H "Authorization: Bearer $TOKEN"

Load test (another terminal):
  go run ./examples/smsload -url %[8]s/bulk/sendsms -user %[13]s -password %[14]s -n 20000 -c 32

`, base, d.Service, d.ClientID, d.ClientSecret, d.Username, d.Password, d.APIKey, smsBase, d.SMSUser, d.SMSPassword, demoReportPath, kept, d.LoadUser, d.LoadPassword, d.Campaign,
		listenNote(bound), priced(demoPrices()), d.OperatorID, d.OperatorSecret)
}

// listenNote says where the platform listens, and warns when other
// machines reach a listener (an address was given): the demo's test
// system user and routing API key work from any address, its API client
// and bulk SMS accounts from this machine only.
func listenNote(bound listeners) string {
	type listener struct{ what, addr string }
	ls := []listener{{"REST APIs and tokens", bound.API}, {"bulk SMS", bound.SMSHTTP}}
	if bound.SMSHTTPS != "" {
		ls = append(ls, listener{"bulk SMS over HTTPS", bound.SMSHTTPS})
	}
	var on, open []string
	for _, l := range ls {
		on = append(on, l.addr+" ("+l.what+")")
		if a, err := netip.ParseAddrPort(l.addr); err != nil || !a.Addr().IsLoopback() {
			open = append(open, l.addr)
		}
	}
	if len(open) == 0 {
		return "  listening on:          " + strings.Join(on, ", ") + "\n" +
			"                         loopback: this machine only (-addr, -sms-http and -sms-https bind elsewhere)"
	}
	return "  listening on:          " + strings.Join(on, ", ") + "\n" +
		"  WARNING: other machines reach " + strings.Join(open, " and ") + ", and these secrets are live: the API\n" +
		"  client and the bulk SMS accounts answer this machine only, the test system user and the\n" +
		"  routing X-API-Key any address (without -addr, -sms-http and -sms-https the demo binds loopback)"
}

// priced names the destinations a price list prices, by their number
// prefixes; the gateway refuses the others (114, no route).
func priced(prices []sms.Price) string {
	prefixes := make([]string, len(prices))
	for i, p := range prices {
		prefixes[i] = "+" + p.Prefix
	}
	return "priced to numbers starting " + strings.Join(prefixes, ", ") + "; others are refused 114 no route"
}

// printNoDemo tells a newcomer starting on a database that has msgkit's
// tables already how to get credentials: the demo is made once, into an
// empty database, and its secrets are shown only then (only their hashes
// are kept).
func printNoDemo(w io.Writer) {
	fmt.Fprint(w, `
msgkit: the PostgreSQL database has msgkit's tables already, so no demo credentials
were made (the demo is made once, into an empty database, and its secrets are shown
only then). For credentials, start with -bootstrap FILE (the format:
examples/server/bootstrap.example.json), give an empty database or a new
-pg-schema for a new demo, or add one with -demo true.

`)
}

// demoReportPath receives the delivery reports of the demo's printed call.
const demoReportPath = "/demo/dlr"

// demoReports is the demo's report receiver on the bulk SMS listeners:
// POST /demo/dlr logs the report and answers 204, so the printed call
// works end to end on one machine.
func demoReports(logger *slog.Logger) family {
	receive := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		logger.Info("demo delivery report received", "report", string(body))
		w.WriteHeader(http.StatusNoContent)
	})
	return family{name: "demo reports", sms: map[string]http.Handler{
		"POST " + demoReportPath: httpapi.WithSpec(receive, httpapi.FamilySpec{Auth: httpapi.AuthNone,
			Routes: []httpapi.Route{{Method: http.MethodPost, Path: demoReportPath, Handler: receive}}}),
	}}
}
