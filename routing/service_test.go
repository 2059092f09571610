package routing_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/routing"
)

func body(t *testing.T, s string) routing.Input {
	t.Helper()
	var in routing.Input
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return in
}

func wantErr(t *testing.T, err error, kind msgkit.Kind, code string, fields ...string) {
	t.Helper()
	e, ok := errors.AsType[*msgkit.Error](err)
	if !ok || e.Kind != kind || e.Code != code {
		t.Fatalf("error %v, want %s %s", err, kind, code)
	}
	var names []string
	for _, f := range e.Fields {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, fields) {
		t.Errorf("%v names %v, want %v", err, names, fields)
	}
}

// A Go program that imports routing gets what the HTTP family answers:
// the same bodies read the same way, the same refusals with the same
// codes, the same ids given.
func TestServiceIsTheAPI(t *testing.T) {
	ctx := context.Background()
	svc := routing.New(memstore.New().Routing())

	// Connection ids as numbers, as the sample calls send them; the id is
	// given by the store.
	r, err := svc.Create(ctx, body(t, `{"sigtran_connect_id":12,"esme_connect_id":44}`))
	if want := (routing.Route{ID: 1, Sigtran: "12", SMPP: routing.Unused, ESME: "44"}); err != nil || r != want {
		t.Fatalf("Create = %+v, %v, want %+v", r, err, want)
	}
	// A Go program's own route, spelled with InputOf.
	r, err = svc.Create(ctx, routing.InputOf(routing.Route{ID: 9, Sigtran: " sg-1 ", SMPP: "smpp.3"}))
	if want := (routing.Route{ID: 9, Sigtran: "sg-1", SMPP: "smpp.3", ESME: routing.Unused}); err != nil || r != want {
		t.Fatalf("Create(InputOf) = %+v, %v, want %+v", r, err, want)
	}
	if r, err = svc.Create(ctx, body(t, `{"sigtran_connect_id":"1","smpp_connect_id":"2"}`)); err != nil || r.ID != 10 {
		t.Fatalf("the id after 9: %+v, %v", r, err)
	}

	// The refusals of the API, with its codes.
	_, err = svc.Create(ctx, body(t, `{"id":9,"sigtran_connect_id":"1","smpp_connect_id":"2"}`))
	wantErr(t, err, msgkit.Conflict, routing.CodeRouteExists, "id")
	_, err = svc.Create(ctx, body(t, `{"sigtran_connect_id":"1","smpp_connect_id":"2","esme_connect_id":"3"}`))
	wantErr(t, err, msgkit.Invalid, routing.CodeInvalidRoute, "smpp_connect_id", "esme_connect_id")
	_, err = svc.Update(ctx, 9, body(t, `{"id":10,"sigtran_connect_id":"1","smpp_connect_id":"2"}`))
	wantErr(t, err, msgkit.Invalid, routing.CodeInvalidRoute, "id")
	_, err = svc.Update(ctx, 11, body(t, `{"sigtran_connect_id":"1","smpp_connect_id":"2"}`))
	wantErr(t, err, msgkit.NotFound, routing.CodeRouteNotFound)
	_, err = svc.Route(ctx, 11)
	wantErr(t, err, msgkit.NotFound, routing.CodeRouteNotFound)
	for _, raw := range []string{"0", "-1", "x", "9223372036854775808"} {
		_, err = routing.ParseID(raw)
		wantErr(t, err, msgkit.NotFound, routing.CodeRouteNotFound)
	}

	// An update replaces the connection ids; an id in the body may repeat
	// the path's.
	if r, err = svc.Update(ctx, 9, body(t, `{"id":9,"sigtran_connect_id":"sg-1","esme_connect_id":7}`)); err != nil {
		t.Fatal(err)
	}
	if got, err := svc.Route(ctx, 9); err != nil || got != r || got.ESME != "7" || got.SMPP != routing.Unused {
		t.Errorf("Route(9) = %+v, %v after the update %+v", got, err, r)
	}
	if err := svc.Delete(ctx, 1); err != nil {
		t.Fatal(err)
	}
	wantErr(t, svc.Delete(ctx, 1), msgkit.NotFound, routing.CodeRouteNotFound)
	rs, err := svc.Routes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []int64{9, 10}) {
		t.Errorf("Routes ids %v, want [9 10]", ids)
	}
}
