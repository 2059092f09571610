package financeapi

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/finance"
)

// An invoice create and a file upload with an Idempotency-Key act once,
// and their retries get the first answer; the document shows it all.
func TestIdempotencyKeys(t *testing.T) {
	e := newEnv(t)
	h := contract(t).Handler(t, e.h)
	invoice := func(body string) func() *http.Request {
		return func() *http.Request {
			r := httptest.NewRequest("POST", BasePath+"invoices?classCodeName=SUPPLIER_INVOICE", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			return httpapitest.Bearer(r, e.tokens[admin])
		}
	}
	invoices := func(t testing.TB) int {
		p, err := e.store.ListInvoices(context.Background(), msgkit.ListQuery{PageNumber: 1, PageSize: 1}, finance.Scope{All: true}, msgkit.Date{})
		if err != nil {
			t.Fatal(err)
		}
		return p.Total
	}
	httpapitest.CheckIdempotent(t, e.f, h, httpapi.Finance, httpapitest.IdempotentCase{
		New:    invoice(supplierBody),
		Other:  invoice(strings.Replace(supplierBody, "CB-7781", "CB-7782", 1)),
		Count:  invoices,
		Golden: "idempotency",
	})

	inv := id(e.create(t, "SUPPLIER_INVOICE", supplierBody))
	pdf := []byte("%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n")
	upload := func(ct string, body *bytes.Buffer) func() *http.Request {
		return func() *http.Request {
			r := httptest.NewRequest("POST", fmt.Sprintf("%sinvoices/%d/files", UploadBasePath, inv), bytes.NewReader(body.Bytes()))
			r.Header.Set("Content-Type", ct)
			return httpapitest.Bearer(r, e.tokens[admin])
		}
	}
	httpapitest.CheckIdempotent(t, e.f, h, httpapi.Finance, httpapitest.IdempotentCase{
		New:   upload(multipartBody(t, uploadField, "CB-7781.pdf", pdf)),
		Other: upload(multipartBody(t, uploadField, "CB-7781-signed.pdf", pdf)),
		Count: func(t testing.TB) int {
			fs, err := e.store.Files(context.Background(), finance.InvoiceID(inv))
			if err != nil {
				t.Fatal(err)
			}
			return len(fs)
		},
	})
}
