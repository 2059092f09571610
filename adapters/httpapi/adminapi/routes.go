package adminapi

import (
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/audit"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/inbound"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/msgkit/msgkit/uiproxy"
)

// BasePath is the prefix of every path of the family, where a platform's
// ServeMux mounts Handler.
const BasePath = "/admin/v1/"

// Backend is what the family serves.
type Backend struct {
	// Auth keeps tenants, clients, users and API keys; nil answers their
	// routes 501.
	Auth *auth.Service
	// Audit is the trail Auth records its changes in (auth.Options.Audit),
	// read by GET /admin/v1/audit; nil answers it 501.
	Audit *audit.Log
	// Components are the UI proxy's components; nil answers their routes
	// 501.
	Components *uiproxy.Proxy
	// Tests is the SMS route test system, whose users' daily limits the
	// administration sets; nil answers their routes 501.
	Tests *testsystem.System
	// Accounts are the bulk SMS accounts; nil answers their routes 501.
	Accounts *sms.Accounts
	// Credit is the accounts' credit ledger; nil answers its routes 501.
	Credit *sms.Credit
	// Tracer finds messages and shows them whole; nil answers its routes
	// 501.
	Tracer *sms.Tracer
	// Inbound keeps the messages from phones and routes them; nil answers
	// GET /admin/v1/inbound 501.
	Inbound *inbound.Router
}

// Handler serves the operator's administration under /admin/v1/ from b:
// a bearer token holding the route's admin privilege, errors in the
// administration's body. It panics when opts.Auth is nil.
func Handler(opts httpapi.Options, b Backend) httpapi.Operations {
	return httpapi.FamilyHandler(opts, spec(&api{b: b, trusted: opts.TrustedProxies}))
}

func spec(a *api) httpapi.FamilySpec {
	return httpapi.FamilySpec{Family: httpapi.Admin, Auth: httpapi.AuthBearer, Routes: routes(a)}
}

// routes are the operations of the administration, one line each.
func routes(a *api) []httpapi.Route {
	const b = BasePath
	tenants := []auth.Privilege{auth.PrivAdminTenants}
	clients := []auth.Privilege{auth.PrivAdminClients}
	missing := a.b.Auth == nil
	comps, noComps := []auth.Privilege{auth.PrivAdminComponents}, a.b.Components == nil
	accts, noAccts := []auth.Privilege{auth.PrivAdminAccounts}, a.b.Accounts == nil
	trace := []auth.Privilege{auth.PrivAdminTrace, auth.PrivAdminTraceReceivers}
	credit, noCredit := []auth.Privilege{auth.PrivAdminCredit}, a.b.Credit == nil || a.b.Accounts == nil
	return []httpapi.Route{
		// tenants
		{Method: http.MethodPost, Path: b + "tenants", Privileges: tenants, Idempotent: true, Serve: a.createTenant, Missing: missing},
		{Method: http.MethodGet, Path: b + "tenants", Privileges: tenants, Serve: a.listTenants, Missing: missing},
		{Method: http.MethodGet, Path: b + "tenants/{tenantId}", Privileges: tenants, Serve: a.getTenant, Missing: missing},
		{Method: http.MethodPatch, Path: b + "tenants/{tenantId}", Privileges: tenants, Serve: a.updateTenant, Missing: missing},
		// API clients
		{Method: http.MethodPost, Path: b + "clients", Privileges: clients, AnswersSecret: true, Serve: a.createClient, Missing: missing},
		{Method: http.MethodGet, Path: b + "clients", Privileges: clients, Serve: a.listClients, Missing: missing},
		{Method: http.MethodGet, Path: b + "clients/{clientId}", Privileges: clients, Serve: a.getClient, Missing: missing},
		{Method: http.MethodPatch, Path: b + "clients/{clientId}", Privileges: clients, Serve: a.updateClient, Missing: missing},
		{Method: http.MethodPost, Path: b + "clients/{clientId}/secret", Privileges: clients, AnswersSecret: true, Serve: a.rotateSecret, Missing: missing},
		{Method: http.MethodDelete, Path: b + "clients/{clientId}", Privileges: clients, Serve: a.revokeClient, Missing: missing},
		// users of the password grant
		{Method: http.MethodPost, Path: b + "users", Privileges: clients, Idempotent: true, Serve: a.createUser, Missing: missing},
		{Method: http.MethodGet, Path: b + "users", Privileges: clients, Serve: a.listUsers, Missing: missing},
		{Method: http.MethodGet, Path: b + "users/{username}", Privileges: clients, Serve: a.getUser, Missing: missing},
		{Method: http.MethodPatch, Path: b + "users/{username}", Privileges: clients, Serve: a.updateUser, Missing: missing},
		{Method: http.MethodDelete, Path: b + "users/{username}", Privileges: clients, Serve: a.deleteUser, Missing: missing},
		// API keys (X-API-Key)
		{Method: http.MethodPost, Path: b + "api-keys", Privileges: clients, AnswersSecret: true, Serve: a.createAPIKey, Missing: missing},
		{Method: http.MethodGet, Path: b + "api-keys", Privileges: clients, Serve: a.listAPIKeys, Missing: missing},
		{Method: http.MethodDelete, Path: b + "api-keys/{keyId}", Privileges: clients, Serve: a.revokeAPIKey, Missing: missing},
		// UI components (their address and token are never read back)
		{Method: http.MethodPut, Path: b + "ui-components/{componentId}", Privileges: comps, Serve: a.putComponent, Missing: noComps},
		{Method: http.MethodGet, Path: b + "ui-components", Privileges: comps, Serve: a.listComponents, Missing: noComps},
		{Method: http.MethodGet, Path: b + "ui-components/{componentId}", Privileges: comps, Serve: a.getComponent, Missing: noComps},
		{Method: http.MethodDelete, Path: b + "ui-components/{componentId}", Privileges: comps, Serve: a.deleteComponent, Missing: noComps},
		// test system users' own daily limits
		{Method: http.MethodPut, Path: b + "daily-limits/{username}", Privileges: clients, Serve: a.putLimit, Missing: a.b.Tests == nil},
		{Method: http.MethodGet, Path: b + "daily-limits", Privileges: clients, Serve: a.listLimits, Missing: a.b.Tests == nil},
		{Method: http.MethodDelete, Path: b + "daily-limits/{username}", Privileges: clients, Serve: a.deleteLimit, Missing: a.b.Tests == nil},
		// bulk SMS accounts and their credit
		{Method: http.MethodPost, Path: b + "sms-accounts", Privileges: accts, Idempotent: true, Serve: a.createAccount, Missing: noAccts},
		{Method: http.MethodGet, Path: b + "sms-accounts", Privileges: accts, Serve: a.listAccounts, Missing: noAccts},
		{Method: http.MethodGet, Path: b + "sms-accounts/{username}", Privileges: accts, Serve: a.getAccount, Missing: noAccts},
		{Method: http.MethodPatch, Path: b + "sms-accounts/{username}", Privileges: accts, Serve: a.updateAccount, Missing: noAccts},
		{Method: http.MethodPost, Path: b + "sms-accounts/{username}/ledger", Privileges: credit, Idempotent: true, Serve: a.addLedgerEntry, Missing: noCredit},
		{Method: http.MethodGet, Path: b + "sms-accounts/{username}/ledger", Privileges: credit, Serve: a.listLedger, Missing: noCredit},
		{Method: http.MethodGet, Path: b + "sms-accounts/{username}/ledger/export", Privileges: credit, Serve: a.exportLedger, Missing: noCredit},
		{Method: http.MethodGet, Path: b + "reconciliation", Privileges: credit, Serve: a.reconcile, Missing: noCredit},
		// the message trace (receivers masked without admin.trace.receivers)
		{Method: http.MethodGet, Path: b + "messages", Privileges: trace, Serve: a.listMessages, Missing: a.b.Tracer == nil},
		{Method: http.MethodGet, Path: b + "messages/{messageId}", Privileges: trace, Serve: a.traceMessage, Missing: a.b.Tracer == nil},
		// messages from phones, routed or kept as unroutable
		{Method: http.MethodGet, Path: b + "inbound", Privileges: []auth.Privilege{auth.PrivAdminTraceReceivers}, Serve: a.listInbound, Missing: a.b.Inbound == nil},
		// the audit trail
		{Method: http.MethodGet, Path: b + "audit", Privileges: []auth.Privilege{auth.PrivAdminAudit}, Serve: a.listAudit, Missing: a.b.Audit == nil},
	}
}
