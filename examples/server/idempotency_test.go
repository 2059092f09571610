package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/msgkit/msgkit/adapters/httpapi"
)

// keyed is call with an Idempotency-Key.
func keyed(t *testing.T, method, u, token, key, body, contentType string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", contentType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// Two servers on one PostgreSQL database share their Idempotency-Keys: a
// bulk SMS submission and a CDS create sent to one and retried on the
// other are answered the first answer, and act once.
func TestIdempotencyKeysAcrossReplicas(t *testing.T) {
	t.Parallel()
	pg := pgConfig(t)
	l1, out := startPlatform(t, parse(t, "-store", "postgres", "-pg", pg.pgDSN, "-pg-schema", pg.pgSchema, "-demo", "true"))
	l2, _ := startPlatform(t, parse(t, "-store", "postgres", "-pg", pg.pgDSN, "-pg-schema", pg.pgSchema)) // no second demo
	send := sendPattern.FindStringSubmatch(out.String())
	creds := demoPattern.FindStringSubmatch(out.String())
	cds := regexp.MustCompile(`curl -s '(\S+/news/v1/services/[^/]+)/cds/contacts\S*'`).FindStringSubmatch(out.String())
	if send == nil || creds == nil || cds == nil {
		t.Fatalf("the demo printed no calls:\n%s", out)
	}

	// Bulk SMS.
	on := func(l listeners, u string) string { return strings.Replace(u, l1.SMSHTTP, l.SMSHTTP, 1) }
	r1, b1 := keyed(t, http.MethodPost, send[1], "", `"order-17"`, send[2], "application/json")
	r2, b2 := keyed(t, http.MethodPost, on(l2, send[1]), "", `"order-17"`, send[2], "application/json")
	if r1.StatusCode != http.StatusAccepted || r2.StatusCode != http.StatusAccepted || string(b1) != string(b2) ||
		r1.Header.Get(httpapi.ReplayedHeader) != "" || r2.Header.Get(httpapi.ReplayedHeader) != "true" {
		t.Fatalf("sendsms on one server and the other: %d %s, %d %v %s", r1.StatusCode, b1, r2.StatusCode, r2.Header, b2)
	}
	var sub struct {
		Auth struct{ Username string } `json:"auth"`
	}
	if err := json.Unmarshal([]byte(send[2]), &sub); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), pg.pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var messages int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM "+pg.pgSchema+".sms_messages WHERE account = $1", sub.Auth.Username).Scan(&messages); err != nil {
		t.Fatal(err)
	}
	if messages != 1 {
		t.Errorf("%d messages of the demo account, want 1", messages)
	}

	// A CDS create.
	_, tb := call(t, http.MethodPost, "http://"+l1.API+"/oauth2/access-token", "",
		strings.NewReader(url.Values{"grant_type": {"client_credentials"}, "client_id": {creds[1]}, "client_secret": {creds[2]}}.Encode()),
		"application/x-www-form-urlencoded")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(tb, &tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("token: %s", tb)
	}
	lists := cds[1] + "/cds/lists"
	r1, b1 = keyed(t, http.MethodPost, lists, tok.AccessToken, "list-1", `{"name":"Retried"}`, "application/json")
	r2, b2 = keyed(t, http.MethodPost, strings.Replace(lists, l1.API, l2.API, 1), tok.AccessToken, "list-1", `{"name":"Retried"}`, "application/json")
	if r1.StatusCode != http.StatusCreated || r2.StatusCode != http.StatusCreated || string(b1) != string(b2) || r2.Header.Get(httpapi.ReplayedHeader) != "true" {
		t.Fatalf("a list on one server and the other: %d %s, %d %v %s", r1.StatusCode, b1, r2.StatusCode, r2.Header, b2)
	}
	_, page := call(t, http.MethodGet, lists+"?name=Retried", tok.AccessToken, nil, "")
	if n := strings.Count(string(page), `"name":"Retried"`); n != 1 {
		t.Errorf("%d lists named Retried, want 1: %s", n, page)
	}
}
