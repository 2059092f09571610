package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
)

// badValues are the strings every family refuses in a JSON body, naming
// the member: raw JSON of a string value, each with its name.
var badValues = []struct{ name, raw string }{
	{"NUL", `"in\u0000valid"`},
	{"invalid UTF-8", "\"in\xffvalid\""},
	{"lone surrogate", `"in\ud800valid"`},
	{"far too long", `"` + strings.Repeat("x", 100_001) + `"`},
}

// A body's bad bytes, keys given twice (also in another case) and strings
// over their maximum are refused in every family with the family's error
// naming the member, never quoting more than a short prefix of it, never
// 5xx; and both stores answer every such body alike.
func TestBadBodies(t *testing.T) {
	t.Parallel()
	sameOnEachStore(t, func(t *testing.T, w *walkWorld, probes map[string]probe, got map[string]answer) {
		for _, r := range w.routes() {
			p, _ := probeOf(probes, r)
			if p.body == "" || p.operator != "" && r.route.Method != http.MethodPost || p.contentType != "" && p.contentType != "application/json" {
				continue
			}
			body := fillText(p.body, w.a)
			for _, v := range badVariants(t, body) {
				q := p
				q.body = v.body
				res, _ := w.callRecorded(r, q, w.a, walkTenantA, w.credentialsOf(r, false))
				key := r.op() + " " + v.name
				got[key] = answer{status: res.status, body: normalize(res.body, w.a, res.request)}
				wantRefusal(t, r, v.member, key, res)
			}
		}
	})
}

// sameOnEachStore runs probe against a walk world of each store, which
// keeps its answers in got by a key of its choosing, and holds the two
// stores to the same answer for every key (an accepted request aside: its
// answer has new ids and times). It returns how many keys it compared,
// -1 without PostgreSQL.
func sameOnEachStore(t *testing.T, probe func(t *testing.T, w *walkWorld, probes map[string]probe, got map[string]answer)) int {
	t.Helper()
	answers := map[string]map[string]answer{}
	for name, cfg := range walkStores(t) {
		t.Run(name, func(t *testing.T) {
			got := map[string]answer{}
			answers[name] = got
			probe(t, newWalkWorld(t, cfg(t)), walkProbes(t), got)
		})
	}
	mem, pg := answers["memory"], answers["postgres"]
	if mem == nil || pg == nil {
		return -1
	}
	for k, a := range mem {
		b := pg[k]
		if a.status < 300 && a.status == b.status {
			continue
		}
		if !a.same(b) {
			t.Errorf("%s: the stores answer differently:\n\tmemory   %.300s\n\tpostgres %.300s", k, a, b)
		}
	}
	return len(mem)
}

// badVariant is a body with one fault in one member.
type badVariant struct{ name, member, body string }

// badVariants are the faulty bodies made from a probe's body: each top
// string member (or, for an array of objects, each of the first object's)
// with each bad value, and each member given twice and in another case.
func badVariants(t *testing.T, body string) []badVariant {
	t.Helper()
	prefix, suffix := "", ""
	obj := body
	if strings.HasPrefix(strings.TrimSpace(body), "[") {
		var arr []json.RawMessage
		if err := json.Unmarshal([]byte(body), &arr); err != nil || len(arr) == 0 {
			t.Fatalf("probe body %s: %v", body, err)
		}
		obj, prefix, suffix = string(arr[0]), "[", "]"
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal([]byte(obj), &members); err != nil {
		t.Fatalf("probe body %s: %v", body, err)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range members {
			if !yield(k) {
				return
			}
		}
	})
	write := func(change map[string]string, extra string) string {
		var b strings.Builder
		b.WriteString(prefix + "{")
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			raw := string(members[k])
			if c, ok := change[k]; ok {
				raw = c
			}
			fmt.Fprintf(&b, "%q:%s", k, raw)
		}
		b.WriteString(extra + "}" + suffix)
		return b.String()
	}
	var out []badVariant
	for _, k := range keys {
		if raw := members[k]; len(raw) == 0 || raw[0] != '"' {
			continue
		}
		for _, bad := range badValues {
			out = append(out, badVariant{k + ": " + bad.name, k, write(map[string]string{k: bad.raw}, "")})
		}
	}
	if len(keys) > 0 {
		k := keys[0]
		out = append(out,
			badVariant{k + ": given twice", k, write(nil, fmt.Sprintf(",%q:%s", k, members[k]))},
			badVariant{k + ": given twice in another case", strings.ToUpper(k), write(nil, fmt.Sprintf(",%q:%s", strings.ToUpper(k), members[k]))})
	}
	return out
}

// wantRefusal checks the answer to a faulty body: a refusal of the
// family (bulk SMS 420; the import lists the item as invalid; the others
// 400, or 413 for a body over its limit) that names the member and quotes
// at most a short prefix of it.
func wantRefusal(t *testing.T, r walkRoute, member, what string, got answer) {
	t.Helper()
	switch {
	case strings.HasSuffix(r.route.Path, "/cds/imports"):
		// An import does not fail for one bad contact: the item is
		// invalid, listed in errors naming the member.
		if got.status != http.StatusOK || !strings.Contains(got.body, `"invalid":1`) {
			t.Errorf("%s: %s, want the item invalid", what, got)
		}
	case got.status >= 500 || got.status < 400:
		t.Errorf("%s: %s, want a refusal", what, got)
		return
	case got.status == http.StatusRequestEntityTooLarge:
		return
	case r.route.Path == "/bulk/sendsms":
		// The family's refusal: 420 with the code of its table that fits
		// (109 for bytes and keys; 107, 111, 112 or 115 for a value its
		// field refuses).
		if got.status != 420 || !regexp.MustCompile(`"code":"1[01][0-9]"`).MatchString(got.body) {
			t.Errorf("%s: %s, want 420 with a code of the family", what, got)
		}
	case got.status != http.StatusBadRequest:
		t.Errorf("%s: %s, want 400", what, got)
	}
	if !strings.Contains(strings.ToLower(got.body), strings.ToLower(member)) {
		t.Errorf("%s: the refusal does not name %s: %s", what, member, got)
	}
	if strings.Contains(got.body, strings.Repeat("x", 65)) {
		t.Errorf("%s: the refusal quotes more than a short prefix of the value: %.300s", what, got.body)
	}
	if r.spec.Family == httpapi.CDS && got.status >= 400 && !strings.Contains(got.body, `"items":[{`) {
		t.Errorf("%s: a CDS refusal without items: %s", what, got)
	}
}

// badIDs are path ids no store can hold alike, escaped for a URL path.
var badIDs = []struct{ name, id string }{
	{"NUL", "a%00b"},
	{"invalid UTF-8", "a%FFb"},
	{"far too long", strings.Repeat("9", 5000)},
	{"a negative number", "-1"},
	{"a number beyond int64", "99999999999999999999"},
}

// Ids that no record can have, in any route's path and in a listing's
// search, are answered alike by both stores and never with a 5xx.
func TestBadPaths(t *testing.T) {
	t.Parallel()
	compared := sameOnEachStore(t, func(t *testing.T, w *walkWorld, probes map[string]probe, got map[string]answer) {
		for _, r := range w.routes() {
			p, _ := probeOf(probes, r)
			if p.operator != "" && r.route.Method != http.MethodGet {
				continue
			}
			variants := map[string]ids{}
			for _, bad := range badIDs {
				v := ids{}
				for k := range w.a {
					v[k] = bad.id
				}
				variants["id "+bad.name] = v
			}
			if r.route.Method == http.MethodGet && !strings.Contains(r.route.Path, "{") {
				for _, bad := range badIDs {
					q := p
					q.query = strings.TrimPrefix(p.query+"&q="+bad.id, "&")
					key := r.op() + " q " + bad.name
					res, _ := w.callRecorded(r, q, w.a, walkTenantA, w.credentialsOf(r, false))
					got[key] = answer{status: res.status, body: res.body}
					if res.status >= 500 {
						t.Errorf("%s: %s", key, res)
					}
				}
			}
			if !strings.Contains(r.route.Path, "{") || strings.Count(r.route.Path, "{") == 1 && strings.Contains(r.route.Path, "{serviceUuid}") {
				continue
			}
			for vname, v := range variants {
				q := p
				q.body = fillText(p.body, w.a)
				res, _ := w.callRecorded(r, q, v, walkTenantA, w.credentialsOf(r, false))
				key := r.op() + " " + vname
				got[key] = answer{status: res.status, body: res.body}
				if res.status >= 500 {
					t.Errorf("%s: %s", key, res)
				}
			}
		}
	})
	if compared >= 0 && compared < 200 {
		t.Errorf("%d answers compared: too few to be every route's", compared)
	}
}
