package httpapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/idempotency"
)

// Contract is a family's OpenAPI document as its tests hold the handler
// to it: every request a test sends through Handler or Transport and every
// answer it gets are validated against the document (kin-openapi's
// openapi3filter), so a handler that drifts from its document fails.
type Contract struct {
	doc    *openapi3.T
	router routers.Router
}

// NewContract loads an OpenAPI document (JSON or YAML) and lints it with
// kin-openapi's loader validation, examples included; a document that
// does not pass fails the test at once.
func NewContract(t testing.TB, doc []byte) *Contract {
	t.Helper()
	c, err := LoadContract(doc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// LoadContract is NewContract returning the error, for tests that expect
// a document to be refused.
func LoadContract(doc []byte) (*Contract, error) {
	loader := openapi3.NewLoader()
	d, err := loader.LoadFromData(doc)
	if err != nil {
		return nil, fmt.Errorf("loading the OpenAPI document: %w", err)
	}
	if err := d.Validate(loader.Context, openapi3.EnableSchemaFormatValidation()); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is invalid: %w", err)
	}
	// Requests are routed by path alone: the document's servers name the
	// platform's listeners, which a test's requests do not reach.
	routed := *d
	routed.Servers = openapi3.Servers{{URL: "/"}}
	router, err := gorillamux.NewRouter(&routed)
	if err != nil {
		return nil, fmt.Errorf("routing the OpenAPI document: %w", err)
	}
	return &Contract{doc: d, router: router}, nil
}

// Operations returns the document's operations as ServeMux patterns,
// "METHOD /path/{name}", sorted.
func (c *Contract) Operations() []string {
	var ops []string
	for path, item := range c.doc.Paths.Map() {
		for method := range item.Operations() {
			ops = append(ops, method+" "+path)
		}
	}
	slices.Sort(ops)
	return ops
}

// CheckOperations fails the test unless mounted, the ServeMux patterns a
// family's handler serves, and the document's operations are the same set.
func (c *Contract) CheckOperations(t testing.TB, mounted []string) {
	t.Helper()
	got := slices.Sorted(slices.Values(mounted))
	want := c.Operations()
	for _, op := range got {
		if !slices.Contains(want, op) {
			t.Errorf("%s is served but not documented", op)
		}
	}
	for _, op := range want {
		if !slices.Contains(got, op) {
			t.Errorf("%s is documented but not served", op)
		}
	}
}

// CheckRoutes is CheckOperations for a family's route table
// (httpapi.FamilySpec.Routes); it also fails the test unless each route
// marked Idempotent documents the header Idempotency-Key and the answers
// 409 and 422.
func (c *Contract) CheckRoutes(t testing.TB, routes []httpapi.Route) {
	t.Helper()
	ops := make([]string, len(routes))
	for i, rt := range routes {
		ops[i] = rt.Method + " " + rt.Path
		item := c.doc.Paths.Value(rt.Path)
		if !rt.Idempotent || item == nil || item.GetOperation(rt.Method) == nil {
			continue
		}
		op := item.GetOperation(rt.Method)
		if p := op.Parameters.GetByInAndName("header", idempotency.Header); p == nil {
			t.Errorf("%s takes an Idempotency-Key, which the document does not show", ops[i])
		}
		for _, status := range []int{http.StatusConflict, http.StatusUnprocessableEntity} {
			if op.Responses.Status(status) == nil {
				t.Errorf("%s may answer %d for an Idempotency-Key, which the document does not show", ops[i], status)
			}
		}
	}
	c.CheckOperations(t, ops)
}

type skipRequestKey struct{}

// SkipRequestCheck marks r as deliberately outside the document (a test
// of bad input): its request is not validated, its answer still is. When
// no operation has r's path and method, the answer must be the document's
// components/responses NotFound (404) or MethodNotAllowed (405).
func SkipRequestCheck(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), skipRequestKey{}, true))
}

// Handler returns h validating every request it serves and every answer
// it gives against the document; a mismatch fails t (not at once, so the
// test's own checks still report). Bodies are buffered.
func (c *Contract) Handler(t testing.TB, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqBody, err := readAll(&r.Body)
		if err != nil {
			t.Errorf("contract: reading the request body: %v", err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if err := c.Check(r, reqBody, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
			t.Errorf("contract: %s %s answered %d: %v", r.Method, r.URL.Path, rec.Code, err)
		}
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// Transport returns base (nil: http.DefaultTransport) validating every
// request sent through it and every answer, for tests against an
// httptest.Server.
func (c *Contract) Transport(t testing.TB, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		reqBody, err := readAll(&r.Body)
		if err != nil {
			return nil, err
		}
		resp, err := base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		body, err := readAll(&resp.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(reqBody))
		if err := c.Check(r, reqBody, resp.StatusCode, resp.Header, body); err != nil {
			t.Errorf("contract: %s %s answered %d: %v", r.Method, r.URL.Path, resp.StatusCode, err)
		}
		return resp, nil
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// readAll reads *body and puts back a reader of what it held.
func readAll(body *io.ReadCloser) ([]byte, error) {
	if *body == nil || *body == http.NoBody {
		return nil, nil
	}
	b, err := io.ReadAll(*body)
	(*body).Close()
	*body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

// Check validates one exchange: the request r with its body (unless
// SkipRequestCheck marked it), then the answer. An answer must have a
// status the operation documents, the documented Content-Type, headers
// and body, and no body when the document shows none.
func (c *Contract) Check(r *http.Request, reqBody []byte, status int, header http.Header, body []byte) error {
	ctx := context.Background()
	skip, _ := r.Context().Value(skipRequestKey{}).(bool)
	opts := &openapi3filter.Options{
		// Credentials are the handler's to judge, and their refusals are
		// documented answers: the validator only checks the rest.
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		MultiError:            true,
	}
	route, params, err := c.router.FindRoute(r)
	switch {
	case err != nil && !skip:
		return fmt.Errorf("the request matches no operation of the document: %w", err)
	case err != nil:
		return c.checkUnrouted(r, err, opts, status, header, body)
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	if !skip {
		req := r.Clone(ctx)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
		in.Request = req
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			return fmt.Errorf("request: %w", err)
		}
		in.Request = r
	}
	return checkResponse(in, route.Operation.Responses, status, header, body)
}

// checkUnrouted validates the answer to a request that no operation
// matches against the document's NotFound or MethodNotAllowed response.
func (c *Contract) checkUnrouted(r *http.Request, routeErr error, opts *openapi3filter.Options, status int, header http.Header, body []byte) error {
	name, want := "NotFound", http.StatusNotFound
	if errors.Is(routeErr, routers.ErrMethodNotAllowed) {
		name, want = "MethodNotAllowed", http.StatusMethodNotAllowed
	}
	if status != want {
		return fmt.Errorf("no operation has this method and path (%v), so the answer must be %d", routeErr, want)
	}
	var resp *openapi3.ResponseRef
	if c.doc.Components != nil {
		resp = c.doc.Components.Responses[name]
	}
	if resp == nil {
		return fmt.Errorf("the document has no components/responses/%s for the answer to %v", name, routeErr)
	}
	responses := openapi3.NewResponses(openapi3.WithStatus(status, resp))
	route := &routers.Route{Spec: c.doc, Path: r.URL.Path, Method: r.Method, Operation: &openapi3.Operation{Responses: responses}}
	in := &openapi3filter.RequestValidationInput{Request: r, Route: route, Options: opts}
	return checkResponse(in, responses, status, header, body)
}

func checkResponse(in *openapi3filter.RequestValidationInput, responses *openapi3.Responses, status int, header http.Header, body []byte) error {
	err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: status, Header: header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: in.Options,
	})
	if err != nil {
		return fmt.Errorf("response: %w", err)
	}
	// openapi3filter lets any body through where the document shows none.
	resp := responses.Status(status)
	if resp == nil {
		resp = responses.Default()
	}
	if resp != nil && resp.Value != nil && len(resp.Value.Content) == 0 && len(body) > 0 {
		return fmt.Errorf("response: the document gives %d no body, the answer has %q", status, truncate(body))
	}
	return nil
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// CheckCallback validates a request that msgkit sends to a customer, such
// as a delivery report, against the document: the request body, as JSON,
// of method in webhooks/{name} or, failing that, in the callback {name}
// of an operation.
func (c *Contract) CheckCallback(t testing.TB, name, method string, body []byte) {
	t.Helper()
	if err := c.CheckCallbackBody(name, method, body); err != nil {
		t.Errorf("contract: callback %s: %v", name, err)
	}
}

// CheckCallbackBody is CheckCallback returning the error.
func (c *Contract) CheckCallbackBody(name, method string, body []byte) error {
	item := c.callback(name)
	if item == nil {
		return fmt.Errorf("the document has no webhook or callback %q", name)
	}
	op := item.GetOperation(strings.ToUpper(method))
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return fmt.Errorf("%q has no %s with a request body", name, method)
	}
	mt := op.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return fmt.Errorf("%q takes no application/json body", name)
	}
	v, err := decodeJSON(body)
	if err != nil {
		return err
	}
	return mt.Schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors())
}

// callback finds the path item of webhook or callback name: a callback
// has one expression, the customer's URL.
func (c *Contract) callback(name string) *openapi3.PathItem {
	if item := c.doc.Webhooks[name]; item != nil {
		return item
	}
	for _, item := range c.doc.Paths.Map() {
		for _, op := range item.Operations() {
			if cb := op.Callbacks[name]; cb != nil && cb.Value != nil && cb.Value.Len() == 1 {
				for _, pi := range cb.Value.Map() {
					return pi
				}
			}
		}
	}
	return nil
}

// decodeJSON reads one JSON value as the validator takes it.
func decodeJSON(b []byte) (any, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("the body is not JSON: %w", err)
	}
	return v, nil
}

// Schema returns the schema components/schemas/{name}, for tests
// that hold a document's enumerations to the code's tables; nil when the
// document has none.
func (c *Contract) Schema(name string) *openapi3.Schema {
	if c.doc.Components == nil || c.doc.Components.Schemas[name] == nil {
		return nil
	}
	return c.doc.Components.Schemas[name].Value
}
