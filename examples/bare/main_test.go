package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	for body, want := range map[string]int{
		`{"type":"text","auth":{"username":"u","password":"p"},"receiver":"38640123456","text":"hi"}`: http.StatusAccepted,
		`not json`: 420,
	} {
		resp, err := http.Post(srv.URL+"/bulk/sendsms", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", body, resp.StatusCode, want)
		}
	}
}
