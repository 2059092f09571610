package main

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit/adapters/egress"
	"github.com/msgkit/msgkit/msgkittest"
)

// TestRun posts the golden report bodies with the platform's poster, one
// of them twice, and a body that is no report, and waits for the sink to
// stop on its own once idle.
func TestRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var out msgkittest.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), ln, config{Idle: 500 * time.Millisecond, Every: 50 * time.Millisecond}, &out)
	}()
	url := "http://" + ln.Addr().String() + "/dlr"

	files, _ := filepath.Glob("../../sms/testdata/report_*.json")
	if len(files) != 5 {
		t.Fatalf("golden reports: %v", files)
	}
	poster := egress.NewReportPoster(egress.ReportPosterOptions{Policy: egress.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}})
	for i, f := range append(files, files[0]) {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := poster.PostReport(t.Context(), url, body); err != nil {
			t.Fatalf("report %d (%s): %v", i, f, err)
		}
	}
	if resp, err := http.Post(url, "application/json", strings.NewReader(`{"hello":1}`)); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("not a report: %v, %v", resp, err)
	}
	if resp, err := http.Get(url); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %v, %v", resp, err)
	}

	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the sink did not stop when idle")
	}
	got := out.String()
	for _, want := range []string{
		"reports/s, 6 in all (BUFFERED 2, DELIVERED 1, REJECTED 1, SENT_TO_SMSC 1, UNDELIVERED 1)",
		"summary: 6 reports (BUFFERED 2, DELIVERED 1, REJECTED 1, SENT_TO_SMSC 1, UNDELIVERED 1), 1 duplicates, 1 bad requests",
		"reports/s\n", "lag from submission", "unix_ms first=",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestRates checks the progress and summary arithmetic on a clock of its
// own.
func TestRates(t *testing.T) {
	t0 := time.Unix(1795341600, 0)
	s := newSink(nil)
	if _, ok := s.progress(t0); ok {
		t.Error("a progress line before any report")
	}
	for i := range 100 {
		s.add(report{MsgID: "m", PartNum: i, Event: "DELIVERED", SendTime: t0.Unix() - 1}, t0.Add(time.Duration(i)*10*time.Millisecond))
	}
	line, ok := s.progress(t0.Add(2 * time.Second))
	if !ok || !strings.Contains(line, "    50 reports/s, 100 in all (DELIVERED 100)") {
		t.Errorf("progress %q", line)
	}
	if _, ok := s.progress(t0.Add(3 * time.Second)); ok {
		t.Error("a progress line without new reports")
	}
	sum := s.summary()
	for _, want := range []string{
		"summary: 100 reports (DELIVERED 100), 0 duplicates, 0 bad requests",
		"span 990ms: 101 reports/s",
		"p50 1.5s p99 1.99s max 1.99s",
		"unix_ms first=1795341600000 last=1795341600990",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
}
