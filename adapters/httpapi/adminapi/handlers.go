package adminapi

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/netip"
	"slices"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/audit"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/msgkit/msgkit/uiproxy"
)

type api struct {
	b       Backend
	trusted []netip.Prefix // proxies whose X-Forwarded-For tells the caller's address
}

// ctx is the request's context carrying the caller as the actor of the
// changes it makes (the audit trail's who and from where).
func (a *api) ctx(r *http.Request) context.Context {
	act := audit.Actor{Kind: audit.ActorSystem, From: httpapi.ClientIP(r, a.trusted)}
	if p, ok := httpapi.PrincipalFrom(r.Context()); ok {
		act.Subject = p.Subject
		act.Kind = audit.ActorClient
		if p.Kind == auth.SubjectUser {
			act.Kind = audit.ActorUser
		}
	}
	return audit.WithActor(r.Context(), act)
}

// The wire shapes of the administration. Lists are [] when empty, never
// null; secrets appear only in the answer that made them.
type (
	tenantJSON struct {
		ID        msgkit.ServiceUUID `json:"id"`
		Name      string             `json:"name"`
		Suspended bool               `json:"suspended"`
		CreatedAt time.Time          `json:"createdAt"`
		UpdatedAt time.Time          `json:"updatedAt"`
	}
	clientJSON struct {
		ID         string    `json:"id"`
		Name       string    `json:"name"`
		Networks   []string  `json:"networks"`
		Services   []string  `json:"services"`
		Privileges []string  `json:"privileges"`
		CreatedAt  time.Time `json:"createdAt"`
		Secret     string    `json:"secret,omitempty"`
	}
	userJSON struct {
		Username   string    `json:"username"`
		Services   []string  `json:"services"`
		Privileges []string  `json:"privileges"`
		CreatedAt  time.Time `json:"createdAt"`
	}
	apiKeyJSON struct {
		ID        string    `json:"id"`
		Name      string    `json:"name"`
		CreatedAt time.Time `json:"createdAt"`
		Key       string    `json:"key,omitempty"`
	}
)

func tenantOf(t auth.Tenant) tenantJSON {
	return tenantJSON{ID: t.ID, Name: t.Name, Suspended: t.Suspended, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}

func clientOf(c auth.Client) clientJSON {
	nets := make([]string, len(c.Networks))
	for i, n := range c.Networks {
		nets[i] = n.String()
	}
	return clientJSON{ID: c.ID, Name: c.Name, Networks: nets, Services: texts(c.Services), Privileges: texts(c.Privileges), CreatedAt: c.CreatedAt}
}

func userOf(u auth.User) userJSON {
	return userJSON{Username: u.Username, Services: texts(u.Services), Privileges: texts(u.Privileges), CreatedAt: u.CreatedAt}
}

func apiKeyOf(k auth.APIKey) apiKeyJSON {
	return apiKeyJSON{ID: k.ID, Name: k.Name, CreatedAt: k.CreatedAt}
}

// texts is ss as plain strings, [] when empty.
func texts[T ~string](ss []T) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

func asServices(ss []string) []msgkit.ServiceUUID {
	out := make([]msgkit.ServiceUUID, len(ss))
	for i, s := range ss {
		out[i] = msgkit.ServiceUUID(s)
	}
	return out
}

func asPrivileges(ss []string) []auth.Privilege {
	out := make([]auth.Privilege, len(ss))
	for i, s := range ss {
		out[i] = auth.Privilege(s)
	}
	return out
}

// list parses the listing parameters by spec and answers the page list
// gives, each record in its wire shape.
func list[T, W any](w http.ResponseWriter, r *http.Request, spec msgkit.ListSpec,
	list func(msgkit.ListQuery) (msgkit.Page[T], error), wire func(T) W) error {
	q, err := msgkit.ParseListQuery(r.URL.Query(), spec)
	if err != nil {
		return err
	}
	page, err := list(q)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, httpapi.ListOf(page, q, wire))
}

// one answers the record get finds by the path's wildcard key.
func one[T, W any](w http.ResponseWriter, r *http.Request, key string, get func(context.Context, string) (T, error), wire func(T) W) error {
	if err := noParams(r); err != nil {
		return err
	}
	v, err := get(r.Context(), r.PathValue(key))
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, wire(v))
}

// remove deletes the record of the path's wildcard key with del, as the
// caller (a.ctx), and answers 204.
func (a *api) remove(w http.ResponseWriter, r *http.Request, key string, del func(context.Context, string) error) error {
	if err := noParams(r); err != nil {
		return err
	}
	if err := del(a.ctx(r), r.PathValue(key)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// grants are a change's tenants and privileges; nil stays nil (no change).
func grants(services, privileges *[]string) (*[]msgkit.ServiceUUID, *[]auth.Privilege) {
	var (
		svcs  *[]msgkit.ServiceUUID
		privs *[]auth.Privilege
	)
	if services != nil {
		v := asServices(*services)
		svcs = &v
	}
	if privileges != nil {
		v := asPrivileges(*privileges)
		privs = &v
	}
	return svcs, privs
}

// noParams refuses query parameters on operations that take none.
func noParams(r *http.Request) error {
	for key := range r.URL.Query() {
		return msgkit.Invalidf(msgkit.CodeInvalidQuery, key, "unknown query parameter %q; this operation takes none", key)
	}
	return nil
}

// decode reads a body strictly: a member the operation does not take is
// named, so a typo never passes unnoticed.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	if err := noParams(r); err != nil {
		return err
	}
	return httpapi.DecodeJSON(w, r, v, httpapi.DecodeOptions{DisallowUnknownFields: true})
}

// tenantAt is the path's tenant id; a malformed one is a tenant no one
// has.
func tenantAt(r *http.Request) (msgkit.ServiceUUID, error) {
	raw := r.PathValue("tenantId")
	id, err := msgkit.ParseServiceUUID(raw)
	if err != nil {
		return "", auth.TenantNotFound(msgkit.ServiceUUID(raw))
	}
	return id, noParams(r)
}

func (a *api) createTenant(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	t, err := a.b.Auth.CreateTenant(a.ctx(r), auth.TenantSpec{ID: msgkit.ServiceUUID(in.ID), Name: in.Name})
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusCreated, tenantOf(t))
}

func (a *api) listTenants(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, auth.TenantListSpec, func(q msgkit.ListQuery) (msgkit.Page[auth.Tenant], error) {
		return a.b.Auth.Tenants(r.Context(), q)
	}, tenantOf)
}

func (a *api) getTenant(w http.ResponseWriter, r *http.Request) error {
	id, err := tenantAt(r)
	if err != nil {
		return err
	}
	t, err := a.b.Auth.Tenant(r.Context(), id)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, tenantOf(t))
}

func (a *api) updateTenant(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name      *string `json:"name"`
		Suspended *bool   `json:"suspended"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	id, err := tenantAt(r)
	if err != nil {
		return err
	}
	t, err := a.b.Auth.UpdateTenant(a.ctx(r), id, auth.TenantChange{Name: in.Name, Suspended: in.Suspended})
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, tenantOf(t))
}

func (a *api) createClient(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		ID         string   `json:"id"`
		Name       string   `json:"name"`
		Secret     string   `json:"secret"`
		Networks   []string `json:"networks"`
		Services   []string `json:"services"`
		Privileges []string `json:"privileges"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	nets, err := auth.ParseNetworks("networks", in.Networks)
	if err != nil {
		return err
	}
	c, secret, err := a.b.Auth.CreateClient(a.ctx(r), auth.ClientSpec{ID: in.ID, Name: in.Name, Secret: in.Secret, Networks: nets,
		Services: asServices(in.Services), Privileges: asPrivileges(in.Privileges)})
	if err != nil {
		return err
	}
	out := clientOf(c)
	if in.Secret == "" {
		out.Secret = secret // generated: shown once
	}
	return httpapi.WriteJSON(w, http.StatusCreated, out)
}

func (a *api) listClients(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, auth.ClientListSpec, func(q msgkit.ListQuery) (msgkit.Page[auth.Client], error) {
		return a.b.Auth.Clients(r.Context(), q)
	}, clientOf)
}

func (a *api) getClient(w http.ResponseWriter, r *http.Request) error {
	return one(w, r, "clientId", a.b.Auth.Client, clientOf)
}

func (a *api) updateClient(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name       *string   `json:"name"`
		Networks   *[]string `json:"networks"`
		Services   *[]string `json:"services"`
		Privileges *[]string `json:"privileges"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	ch := auth.ClientChange{Name: in.Name}
	if in.Networks != nil {
		nets, err := auth.ParseNetworks("networks", *in.Networks)
		if err != nil {
			return err
		}
		ch.Networks = &nets
	}
	ch.Services, ch.Privileges = grants(in.Services, in.Privileges)
	c, err := a.b.Auth.UpdateClient(a.ctx(r), r.PathValue("clientId"), ch)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, clientOf(c))
}

func (a *api) rotateSecret(w http.ResponseWriter, r *http.Request) error {
	if err := noParams(r); err != nil {
		return err
	}
	c, secret, err := a.b.Auth.RotateClientSecret(a.ctx(r), r.PathValue("clientId"))
	if err != nil {
		return err
	}
	out := clientOf(c)
	out.Secret = secret
	return httpapi.WriteJSON(w, http.StatusOK, out)
}

func (a *api) revokeClient(w http.ResponseWriter, r *http.Request) error {
	return a.remove(w, r, "clientId", a.b.Auth.RevokeClient)
}

func (a *api) createUser(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Username   string   `json:"username"`
		Password   string   `json:"password"`
		Services   []string `json:"services"`
		Privileges []string `json:"privileges"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	u, err := a.b.Auth.CreateUser(a.ctx(r), auth.UserSpec{Username: in.Username, Password: in.Password,
		Services: asServices(in.Services), Privileges: asPrivileges(in.Privileges)})
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusCreated, userOf(u))
}

func (a *api) listUsers(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, auth.UserListSpec, func(q msgkit.ListQuery) (msgkit.Page[auth.User], error) {
		return a.b.Auth.Users(r.Context(), q)
	}, userOf)
}

func (a *api) getUser(w http.ResponseWriter, r *http.Request) error {
	return one(w, r, "username", a.b.Auth.User, userOf)
}

func (a *api) updateUser(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Password   *string   `json:"password"`
		Services   *[]string `json:"services"`
		Privileges *[]string `json:"privileges"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	ch := auth.UserChange{Password: in.Password}
	ch.Services, ch.Privileges = grants(in.Services, in.Privileges)
	u, err := a.b.Auth.UpdateUser(a.ctx(r), r.PathValue("username"), ch)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, userOf(u))
}

func (a *api) deleteUser(w http.ResponseWriter, r *http.Request) error {
	return a.remove(w, r, "username", a.b.Auth.DeleteUser)
}

func (a *api) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name string `json:"name"`
		Key  string `json:"key"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	k, key, err := a.b.Auth.CreateAPIKey(a.ctx(r), in.Name, in.Key)
	if err != nil {
		return err
	}
	out := apiKeyOf(k)
	if in.Key == "" {
		out.Key = key // generated: shown once
	}
	return httpapi.WriteJSON(w, http.StatusCreated, out)
}

func (a *api) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, auth.APIKeyListSpec, func(q msgkit.ListQuery) (msgkit.Page[auth.APIKey], error) {
		return a.b.Auth.APIKeys(r.Context(), q)
	}, apiKeyOf)
}

func (a *api) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	return a.remove(w, r, "keyId", a.b.Auth.RevokeAPIKey)
}

// entryJSON is an entry of the audit trail.
type entryJSON struct {
	ID         int64           `json:"id"`
	At         time.Time       `json:"at"`
	ActorKind  string          `json:"actorKind"`
	Actor      string          `json:"actor"`
	From       string          `json:"from"`
	Action     string          `json:"action"`
	Resource   string          `json:"resource"`
	ResourceID string          `json:"resourceId"`
	Before     json.RawMessage `json:"before"`
	After      json.RawMessage `json:"after"`
}

func entryOf(e audit.Entry) entryJSON {
	out := entryJSON{ID: e.ID, At: e.At, ActorKind: e.Actor.Kind, Actor: e.Actor.Subject, Action: e.Action,
		Resource: e.Resource, ResourceID: e.ResourceID, Before: e.Before, After: e.After}
	if e.Actor.From.IsValid() {
		out.From = e.Actor.From.String()
	}
	if out.Before == nil {
		out.Before = json.RawMessage("null")
	}
	if out.After == nil {
		out.After = json.RawMessage("null")
	}
	return out
}

func (a *api) listAudit(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, audit.ListSpec, func(q msgkit.ListQuery) (msgkit.Page[audit.Entry], error) {
		return a.b.Audit.Entries(r.Context(), q)
	}, entryOf)
}

// componentJSON is a UI component as the administration shows it: never
// its address template, token or fixed values, which hold the customer's
// secrets; the names of its fixed values only.
type componentJSON struct {
	ID          string                `json:"id"`
	Type        uiproxy.Type          `json:"type"`
	Service     msgkit.ServiceUUID    `json:"service"`
	TokenHeader string                `json:"tokenHeader"`
	Fixed       []string              `json:"fixed"`
	Timeout     string                `json:"timeout"`
	CacheTTL    string                `json:"cacheTTL"`
	Columns     []uiproxy.ColumnInput `json:"columns"`
}

func componentOf(c uiproxy.Component) componentJSON {
	out := componentJSON{ID: c.ID, Type: c.Type, Service: c.Service, TokenHeader: c.TokenHeader,
		Fixed: slices.Sorted(maps.Keys(c.Fixed)), Columns: make([]uiproxy.ColumnInput, len(c.Columns))}
	if out.Fixed == nil {
		out.Fixed = []string{}
	}
	if c.Timeout > 0 {
		out.Timeout = c.Timeout.String()
	}
	if c.CacheTTL > 0 {
		out.CacheTTL = c.CacheTTL.String()
	}
	for i, col := range c.Columns {
		out.Columns[i] = uiproxy.ColumnInput{Name: col.Name, Kind: col.Kind, Filterable: col.Filterable, Sortable: col.Sortable}
	}
	return out
}

func (a *api) putComponent(w http.ResponseWriter, r *http.Request) error {
	var in uiproxy.ComponentInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	c, err := in.Component(r.PathValue("componentId"))
	if err != nil {
		return err
	}
	if err := a.b.Components.Put(a.ctx(r), c); err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, componentOf(c))
}

func (a *api) listComponents(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, uiproxy.ComponentListSpec, func(q msgkit.ListQuery) (msgkit.Page[uiproxy.Component], error) {
		return a.b.Components.List(r.Context(), q)
	}, componentOf)
}

func (a *api) getComponent(w http.ResponseWriter, r *http.Request) error {
	return one(w, r, "componentId", a.b.Components.Get, componentOf)
}

func (a *api) deleteComponent(w http.ResponseWriter, r *http.Request) error {
	return a.remove(w, r, "componentId", a.b.Components.Delete)
}

// limitJSON is a test system user's own daily limit.
type limitJSON struct {
	Username   string `json:"username"`
	DailyLimit int    `json:"dailyLimit"`
}

func limitOf(l testsystem.UserLimit) limitJSON {
	return limitJSON{Username: l.User, DailyLimit: l.Limit}
}

func (a *api) putLimit(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		DailyLimit *int `json:"dailyLimit"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if in.DailyLimit == nil {
		return msgkit.Invalidf(testsystem.CodeInvalidLimit, "dailyLimit", "dailyLimit is required")
	}
	l, err := a.b.Tests.SetDailyLimit(a.ctx(r), r.PathValue("username"), *in.DailyLimit)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, limitOf(l))
}

func (a *api) listLimits(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, testsystem.LimitListSpec, func(q msgkit.ListQuery) (msgkit.Page[testsystem.UserLimit], error) {
		return a.b.Tests.DailyLimits(r.Context(), q)
	}, limitOf)
}

func (a *api) deleteLimit(w http.ResponseWriter, r *http.Request) error {
	return a.remove(w, r, "username", a.b.Tests.DeleteDailyLimit)
}
