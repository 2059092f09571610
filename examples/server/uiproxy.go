package main

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/uiproxyapi"
	"github.com/msgkit/msgkit/uiproxy"
	"golang.org/x/time/rate"
)

// uiDemoFiles is the demo page of the UI proxy: plain HTML, JavaScript and
// CSS, served as they are.
//
//go:embed uidemo
var uiDemoFiles embed.FS

// The demo's components: a grid of invoices and a KPI tile, both fed by
// the mock operations of this server.
const (
	demoGrid      = "demo-invoices"
	demoKPI       = "demo-balance"
	demoReference = "ACME-1"
	uiDemoPath    = "/ui/demo/"
)

// uiProxyFamily is the UI integration proxy under /ui/v1/ over st, calling
// customer APIs through the egress policy of every outbound call; its mock
// operations under /ui/v1/mock/; and the demo page at /ui/demo/. Each
// principal may ask 50 requests a second (burst 100), the customer being
// called on its behalf. The bootstrap section uiComponents configures
// components (bootstrapComponent); the demo makes a grid and a KPI of the
// demo tenant over this server's mock operations.
func uiProxyFamily(opts httpapi.Options, proxy *uiproxy.Proxy) family {
	mock := uiproxyapi.MockHandler(opts)
	page, err := fs.Sub(uiDemoFiles, "uidemo")
	if err != nil {
		panic("examples/server: the demo page: " + err.Error())
	}
	files := http.StripPrefix(uiDemoPath, http.FileServerFS(page))
	demoPage := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The page talks to this server only and runs no inline code.
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	})
	demo := httpapi.WithSpec(demoPage, httpapi.FamilySpec{Family: httpapi.UIProxy, Auth: httpapi.AuthNone,
		Routes: []httpapi.Route{{Method: http.MethodGet, Path: uiDemoPath, Handler: demoPage}}})
	f := family{name: "UI proxy", api: map[string]http.Handler{uiproxyapi.MockBasePath: mock, "GET " + uiDemoPath: demo}}
	f.docs = []apiDoc{{"uiproxy", uiproxyapi.OpenAPI(), restServers}}
	if proxy == nil {
		f.api[uiproxyapi.BasePath] = uiproxyapi.Handler(opts, uiproxyapi.Backend{})
		return f
	}
	f.api[uiproxyapi.BasePath] = uiproxyapi.Handler(opts, uiproxyapi.Backend{
		Proxy: proxy, Rate: httpapi.RateLimit{Rate: rate.Limit(50), Burst: 100}, Clock: opts.Clock,
	})
	f.sections = []section{{"uiComponents", func(ctx context.Context, raw json.RawMessage, secret secretSource) (int, error) {
		return applyEach("uiComponents", raw, func(b bootstrapComponent) error {
			c, err := b.component(secret)
			if err != nil {
				return err
			}
			return proxy.Put(ctx, c)
		})
	}}}
	f.demo = func(ctx context.Context, d *demoCredentials) error {
		mockURL := d.APIBase + uiproxyapi.MockBasePath
		for _, c := range []uiproxy.Component{
			{
				ID: demoGrid, Type: uiproxy.Grid, Service: d.Service, Columns: uiproxy.MockColumns(),
				URL:   mockURL + "grid/{componentId}?reference_id={referenceId}&language={language}&locale={locale}&page_number={pageNumber}&page_size={pageSize}&sort={sort}",
				Token: "demo-customer-token", TokenHeader: "X-Customer-Token",
			},
			{
				ID: demoKPI, Type: uiproxy.KPI, Service: d.Service, Token: "demo-customer-token",
				URL: mockURL + "kpi/{componentId}?reference_id={referenceId}&language={language}&locale={locale}",
			},
		} {
			if err := proxy.Put(ctx, c); err != nil {
				return fmt.Errorf("the demo component %s: %w", c.ID, err)
			}
		}
		return nil
	}
	return f
}

// bootstrapComponent is a UI component of the bootstrap file: the
// component's configuration as the administration API takes it, its token
// given in clear or as an environment variable's name.
type bootstrapComponent struct {
	ID string `json:"id"`
	uiproxy.ComponentInput
	TokenEnv string `json:"tokenEnv"`
}

func (b bootstrapComponent) component(secret secretSource) (uiproxy.Component, error) {
	token, err := secret.get(b.Token, b.TokenEnv)
	if err != nil {
		return uiproxy.Component{}, err
	}
	in := b.ComponentInput
	in.Token = token
	return in.Component(b.ID)
}
