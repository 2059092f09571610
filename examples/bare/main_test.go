package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

const body = `{"type":"text","auth":{"username":"u","password":"p"},"receiver":"38640123456","text":"hi"}`

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(handler(&counter{}))
	defer srv.Close()
	for body, want := range map[string]int{
		body:       http.StatusAccepted,
		`not json`: 420,
	} {
		if got := post(t, srv.URL, body); got != want {
			t.Errorf("%s: %d, want %d", body, got, want)
		}
	}
}

func post(t *testing.T, url, body string) int {
	t.Helper()
	resp, err := http.Post(url+"/bulk/sendsms", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// With -pg every 202 is a row, written by group commits; a write that
// fails answers 503.
func TestGroupCommit(t *testing.T) {
	dsn := os.Getenv("MSGKIT_TEST_PG")
	if dsn == "" {
		t.Skip("MSGKIT_TEST_PG is not set")
	}
	ctx := context.Background()
	g, err := openGroupCommit(ctx, dsn, "bare_test")
	if err != nil {
		t.Fatal(err)
	}
	defer g.pool.Exec(ctx, `DROP SCHEMA bare_test CASCADE`)
	srv := httptest.NewServer(handler(g))
	defer srv.Close()
	const n = 200
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range n / 8 {
				if got := post(t, srv.URL, body); got != http.StatusAccepted {
					t.Errorf("%d, want 202", got)
				}
			}
		})
	}
	wg.Wait()
	var rows, ids int
	if err := g.pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT id) FROM bare_test.bare_submissions`).Scan(&rows, &ids); err != nil {
		t.Fatal(err)
	}
	if rows != n || ids != n {
		t.Errorf("%d rows with %d ids, want %d", rows, ids, n)
	}

	if _, err := g.pool.Exec(ctx, `DROP TABLE bare_test.bare_submissions`); err != nil {
		t.Fatal(err)
	}
	if got := post(t, srv.URL, body); got != http.StatusServiceUnavailable {
		t.Errorf("a failed write: %d, want 503", got)
	}
}
