package httpapi

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
)

// TokenPath is the path of the OAuth 2.0 token endpoint.
const TokenPath = "/oauth2/access-token"

// TokenInfoPath tells a caller what its own bearer token allows (in the
// spirit of RFC 7662 introspection, limited to the caller's own token), so
// that an integrator can check credentials before any real call.
const TokenInfoPath = "/oauth2/token-info"

// OAuthHandler serves the token endpoint, POST /oauth2/access-token, for the
// client credentials grant of the REST interfaces and the password grant
// of the test system, and GET /oauth2/token-info. Requests are limited per client IP
// (Options.TokenRateLimit) before anything else; every answer carries
// Cache-Control: no-store and Pragma: no-cache; errors have the RFC 6749
// body. It panics when opts.Auth is nil.
func OAuthHandler(opts Options) Operations {
	o := opts.withDefaults()
	o.needAuth("OAuthHandler")
	m := newFamilyMux(OAuth, o.Metrics)
	spec := FamilySpec{Family: OAuth, Auth: AuthBody}
	for pattern, h := range oauthRoutes(o) {
		m.handle(pattern, h)
		method, path, _ := strings.Cut(pattern, " ")
		spec.Routes = append(spec.Routes, Route{Method: method, Path: path, Handler: h})
	}
	slices.SortFunc(spec.Routes, func(a, b Route) int { return strings.Compare(a.Path, b.Path) })
	limiter := NewLimiter(o.TokenRateLimit, o.Clock)
	return WithSpec(o.base(m, chain(m, noStore, LimitRate(OAuth, limiter, ByClientIP(o.TrustedProxies)))), spec)
}

// oauthRoutes are the operations of OAuthHandler by ServeMux pattern: the
// set its OpenAPI document (OAuthOpenAPI) describes.
func oauthRoutes(o Options) map[string]http.Handler {
	return map[string]http.Handler{
		http.MethodPost + " " + TokenPath:    &tokenEndpoint{issuer: o.Auth, opts: o},
		http.MethodGet + " " + TokenInfoPath: Bearer(OAuth, o.Auth)(tokenInfo(o.Clock)),
	}
}

// noStore forbids caching of every answer of the token endpoint, errors
// included (RFC 6749 5.1).
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Pragma", "no-cache")
		next.ServeHTTP(w, r)
	})
}

type tokenEndpoint struct {
	issuer TokenIssuer
	opts   Options
}

type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

func (t *tokenEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tok, err := t.grant(w, r)
	if err != nil {
		WriteError(w, r, OAuth, err)
		return
	}
	if err := WriteJSON(w, http.StatusOK, tokenResponse{AccessToken: tok.AccessToken, TokenType: "Bearer", ExpiresIn: tok.ExpiresIn}); err != nil {
		WriteError(w, r, OAuth, err)
	}
}

func oauthInvalid(msg string) error {
	return msgkit.New(msgkit.Invalid, auth.CodeInvalidRequest, msg)
}

func (t *tokenEndpoint) grant(w http.ResponseWriter, r *http.Request) (auth.IssuedToken, error) {
	form, err := t.readForm(w, r)
	if err != nil {
		return auth.IssuedToken{}, err
	}
	switch form.Get("grant_type") {
	case "":
		return auth.IssuedToken{}, oauthInvalid("grant_type is required")
	case "client_credentials":
		id, secret, err := clientCredentials(r, form)
		if err != nil {
			return auth.IssuedToken{}, err
		}
		return t.issuer.ClientCredentials(r.Context(), id, secret, ClientIP(r, t.opts.TrustedProxies))
	case "password":
		// The client may stay anonymous (a public client); when it sends
		// credentials (HTTP Basic, client_id or client_secret), they are
		// verified before the user's (RFC 6749 4.3.2).
		if len(r.Header.Values("Authorization")) > 0 || form.Has("client_id") || form.Has("client_secret") {
			id, secret, err := clientCredentials(r, form)
			if err != nil {
				return auth.IssuedToken{}, err
			}
			if _, err := t.issuer.AuthenticateClient(r.Context(), id, secret, ClientIP(r, t.opts.TrustedProxies)); err != nil {
				return auth.IssuedToken{}, err
			}
		}
		return t.issuer.Password(r.Context(), form.Get("username"), form.Get("password"))
	}
	return auth.IssuedToken{}, msgkit.New(msgkit.Invalid, auth.CodeUnsupportedGrantType,
		"the grant type is not supported; use client_credentials or password")
}

// readForm reads the form body: application/x-www-form-urlencoded, at most
// TokenMaxBodyBytes, no parameter twice (RFC 6749 3.2). Parameters of the
// query string are ignored, so that secrets in URLs are never used.
func (t *tokenEndpoint) readForm(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, oauthInvalid("the body must be application/x-www-form-urlencoded")
	}
	if r.ContentLength > t.opts.TokenMaxBodyBytes {
		return nil, tooLarge(t.opts.TokenMaxBodyBytes)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, t.opts.TokenMaxBodyBytes))
	if err != nil {
		if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, tooLarge(mb.Limit)
		}
		return nil, oauthInvalid("the body could not be read")
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, oauthInvalid("the body is not a valid form")
	}
	for name, vals := range form {
		if len(vals) > 1 {
			return nil, msgkit.Invalidf(auth.CodeInvalidRequest, name, "parameter %s is repeated", name)
		}
	}
	return form, nil
}

// clientCredentials takes the client id and secret from HTTP Basic
// authentication (RFC 6749 2.3.1: both form-encoded, then base64) or from
// the body, not from both.
func clientCredentials(r *http.Request, form url.Values) (id, secret string, err error) {
	if len(r.Header.Values("Authorization")) == 0 {
		return form.Get("client_id"), form.Get("client_secret"), nil
	}
	failed := msgkit.New(msgkit.Unauthorized, auth.CodeInvalidClient, "client authentication failed")
	user, pass, ok := r.BasicAuth()
	if !ok || len(r.Header.Values("Authorization")) != 1 {
		return "", "", failed
	}
	if id, err = url.QueryUnescape(user); err != nil {
		return "", "", failed
	}
	if secret, err = url.QueryUnescape(pass); err != nil {
		return "", "", failed
	}
	if form.Has("client_secret") || (form.Has("client_id") && form.Get("client_id") != id) {
		return "", "", oauthInvalid("authenticate the client with HTTP Basic or with the body, not both")
	}
	return id, secret, nil
}

type tokenInfoResponse struct {
	Active     bool     `json:"active"`
	Subject    string   `json:"sub"`
	ClientID   string   `json:"client_id,omitempty"`
	Username   string   `json:"username,omitempty"`
	Services   []string `json:"services"`
	Privileges []string `json:"privileges"`
	Expires    int64    `json:"exp"`
	ExpiresIn  int64    `json:"expires_in"`
}

// tokenInfo answers GET /oauth2/token-info for the token Bearer verified.
func tokenInfo(clock msgkit.Clock) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := PrincipalFrom(r.Context())
		resp := tokenInfoResponse{
			Active: true, Subject: p.Subject,
			Services: make([]string, len(p.Services)), Privileges: make([]string, len(p.Privileges)),
			Expires:   p.ExpiresAt.Unix(),
			ExpiresIn: int64(p.ExpiresAt.Sub(clock.Now()) / time.Second),
		}
		if p.Kind == auth.SubjectUser {
			resp.Username = p.Subject
		} else {
			resp.ClientID = p.Subject
		}
		for i, s := range p.Services {
			resp.Services[i] = string(s)
		}
		for i, pr := range p.Privileges {
			resp.Privileges[i] = string(pr)
		}
		WriteJSON(w, http.StatusOK, resp)
	})
}
