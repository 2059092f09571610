package routing_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/routing"
)

func fill(t *testing.T, body string) (routing.Route, bool, []string) {
	t.Helper()
	var in routing.Input
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	r, hasID, err := routing.Fill(in)
	if err == nil {
		return r, hasID, nil
	}
	e, ok := err.(*msgkit.Error)
	if !ok || e.Kind != msgkit.Invalid || e.Code != routing.CodeInvalidRoute {
		t.Fatalf("%s: %v", body, err)
	}
	var names []string
	for _, f := range e.Fields {
		names = append(names, f.Name)
	}
	return r, false, names
}

func TestFill(t *testing.T) {
	for _, tt := range []struct {
		body  string
		want  routing.Route
		hasID bool
	}{
		{`{"id":7,"sigtran_connect_id":"12","smpp_connect_id":"3","esme_connect_id":"0"}`, routing.Route{ID: 7, Sigtran: "12", SMPP: "3", ESME: "0"}, true},
		// Numbers, as the sample calls send them; the unused one absent.
		{`{"sigtran_connect_id":12,"esme_connect_id":44}`, routing.Route{Sigtran: "12", SMPP: "0", ESME: "44"}, false},
		{`{"sigtran_connect_id":" sg-1 ","smpp_connect_id":0,"esme_connect_id":"esme.7","id":null}`, routing.Route{Sigtran: "sg-1", SMPP: "0", ESME: "esme.7"}, false},
		{`{"sigtran_connect_id":"1","smpp_connect_id":"","esme_connect_id":5}`, routing.Route{Sigtran: "1", SMPP: "0", ESME: "5"}, false},
	} {
		r, hasID, problems := fill(t, tt.body)
		if problems != nil || r != tt.want || hasID != tt.hasID {
			t.Errorf("%s = %+v %v %v, want %+v", tt.body, r, hasID, problems, tt.want)
		}
	}
	for _, tt := range []struct {
		body string
		want []string
	}{
		{`{"sigtran_connect_id":"1","smpp_connect_id":"2","esme_connect_id":"3"}`, []string{"smpp_connect_id", "esme_connect_id"}},
		{`{"sigtran_connect_id":"1"}`, []string{"smpp_connect_id", "esme_connect_id"}},
		{`{"sigtran_connect_id":"1","smpp_connect_id":0,"esme_connect_id":"0"}`, []string{"smpp_connect_id", "esme_connect_id"}},
		{`{"smpp_connect_id":"2"}`, []string{"sigtran_connect_id"}},
		{`{"id":0,"sigtran_connect_id":"1","smpp_connect_id":"2"}`, []string{"id"}},
		{`{"id":"7","sigtran_connect_id":"1","smpp_connect_id":"2"}`, []string{"id"}},
		{`{"id":1.5,"sigtran_connect_id":true,"smpp_connect_id":-2,"esme_connect_id":"a b"}`, []string{"id", "sigtran_connect_id", "smpp_connect_id", "esme_connect_id"}},
		{`{"sigtran_connect_id":{},"smpp_connect_id":[1]}`, []string{"sigtran_connect_id", "smpp_connect_id"}},
		{`{"sigtran_connect_id":"1","smpp_connect_id":1e3}`, []string{"smpp_connect_id"}},
	} {
		if _, _, problems := fill(t, tt.body); !slices.Equal(problems, tt.want) {
			t.Errorf("%s: problems %v, want %v", tt.body, problems, tt.want)
		}
	}
}

// Fill takes any body without a panic; a route it accepts keeps the
// exclusivity rule.
func FuzzFill(f *testing.F) {
	for _, s := range []string{`{"sigtran_connect_id":12,"esme_connect_id":44}`, `{"id":"x","smpp_connect_id":"1","esme_connect_id":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in routing.Input
		if json.Unmarshal(data, &in) != nil {
			return
		}
		r, _, err := routing.Fill(in)
		if err != nil {
			if e, ok := err.(*msgkit.Error); !ok || e.Kind != msgkit.Invalid {
				t.Fatalf("%v", err)
			}
			return
		}
		if (r.SMPP == routing.Unused) == (r.ESME == routing.Unused) || r.Sigtran == routing.Unused || r.Sigtran == "" || r.SMPP == "" || r.ESME == "" {
			t.Fatalf("accepted %+v", r)
		}
	})
}
