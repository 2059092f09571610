package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/auth"
	"golang.org/x/crypto/bcrypt"
)

func ExampleWriteError() {
	err := msgkit.New(msgkit.NotFound, "INVOICE_NOTFOUND", "invoice 7 not found")
	for _, fam := range []httpapi.Family{httpapi.CDS, httpapi.Finance, httpapi.Routing, httpapi.TestSystem} {
		w := httptest.NewRecorder()
		httpapi.WriteError(w, httptest.NewRequest("GET", "/", nil), fam, err)
		fmt.Print(w.Code, " ", w.Body)
	}
	// Output:
	// 404 {"code":"INVOICE_NOTFOUND","message":"invoice 7 not found","description":"Not Found","items":[]}
	// 404 {"Code":404,"Message":"invoice 7 not found"}
	// 404 {"Code":"INVOICE_NOTFOUND","Message":"invoice 7 not found"}
	// 404 {"code":"INVOICE_NOTFOUND","message":"invoice 7 not found"}
}

func ExampleDecodeJSON() {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var invoice struct {
			CustID int `json:"custID"`
		}
		if err := httpapi.DecodeJSON(w, r, &invoice, httpapi.DecodeOptions{}); err != nil {
			httpapi.WriteError(w, r, httpapi.Finance, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/finance/sit/v1/invoices", strings.NewReader(`{"custID":"42"}`)))
	fmt.Print(w.Code, " ", w.Body)
	// Output: 400 {"Code":400,"Message":"custID must be an integer in range, not string"}
}

func ExampleOAuthHandler() {
	ctx := context.Background()
	svc := auth.New(memstore.New().Auth(), auth.Options{BcryptCost: bcrypt.MinCost})
	_, _, err := svc.CreateClient(ctx, auth.ClientSpec{
		ID: "crm", Secret: "s3cret", Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Services: []msgkit.ServiceUUID{"0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a"}, Privileges: []auth.Privilege{auth.PrivNews},
	})
	if err != nil {
		panic(err)
	}
	h := httpapi.OAuthHandler(httpapi.Options{Auth: svc})

	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"crm"}, "client_secret": {"s3cret"}}
	r := httptest.NewRequest("POST", "/oauth2/access-token", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = "192.0.2.7:50000"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int    `json:"expires_in"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &tok)
	fmt.Println(w.Code, tok.TokenType, tok.ExpiresIn, w.Header().Get("Cache-Control"))

	// The token tells what it allows.
	r = httptest.NewRequest("GET", "/oauth2/token-info", nil)
	r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var info struct {
		ClientID   string   `json:"client_id"`
		Services   []string `json:"services"`
		Privileges []string `json:"privileges"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &info)
	fmt.Println(w.Code, info.ClientID, info.Services, info.Privileges)
	// Output:
	// 200 Bearer 3600 no-store
	// 200 crm [0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a] [news]
}
