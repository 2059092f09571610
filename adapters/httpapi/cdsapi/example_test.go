package cdsapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/cdsapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/contacts"
	"golang.org/x/crypto/bcrypt"
)

func ExampleHandler() {
	ctx := context.Background()
	svc := auth.New(memstore.New().Auth(), auth.Options{BcryptCost: bcrypt.MinCost})
	const tenant = "0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a"
	_, _, err := svc.CreateClient(ctx, auth.ClientSpec{
		ID: "crm", Secret: "s3cret", Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Services: []msgkit.ServiceUUID{tenant}, Privileges: []auth.Privilege{auth.PrivNews},
	})
	if err != nil {
		panic(err)
	}
	tok, err := svc.ClientCredentials(ctx, "crm", "s3cret", netip.MustParseAddr("192.0.2.7"))
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle(cdsapi.BasePath, cdsapi.Handler(httpapi.Options{Auth: svc}, cdsapi.Backend{Contacts: contacts.NewService(contacts.Stores{Contacts: memstore.New().Contacts()}, nil, nil)}))

	// The token opens the tenant's CDS routes: a list, then its listing.
	call := func(method, path, body string) {
		r := httptest.NewRequest(method, cdsapi.BasePath+"services/"+tenant+path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		fmt.Println(w.Code, strings.Contains(w.Body.String(), `"name":"Newsletter"`))
	}
	call("POST", "/cds/lists", `{"name":"Newsletter"}`)
	call("GET", "/cds/lists", "")
	// Output:
	// 201 true
	// 200 true
}
