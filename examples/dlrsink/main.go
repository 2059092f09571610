// Command dlrsink receives delivery reports, to measure how fast the
// platform reports: it answers every POST of a report body (sms.ReportBody,
// on any path) 200 at once, counts the reports by event, prints the rate
// and totals once a second while reports arrive, and a summary when no
// report has come for -idle (counted from the start until the first one)
// or on SIGINT: totals, duplicates (the same event of the same part again:
// at-least-once delivery allows them), first and last arrival, reports/s
// over that span, and the lag from submission to arrival.
//
//	go run ./examples/dlrsink -addr 127.0.0.1:12040 -idle 10s
//
// The lag is the arrival time less the report's sendTime, which is in whole
// seconds: it is over by up to a second, and what it says is how long a
// customer waits for a report, the network's own delay included (about a
// second on the simulated network).
//
// run.sh in this directory measures the whole path with one command: it
// builds the server, smsload and this sink to a temporary directory, starts
// the server (memory or PostgreSQL) and the sink, runs a load asking for
// SENT_TO_SMSC and DELIVERED reports, and prints the submission rate, the
// report rate and the backlog (last report less end of load):
//
//	examples/dlrsink/run.sh memory
//	MSGKIT_PG=postgres://postgres@127.0.0.1:5432/test?sslmode=disable examples/dlrsink/run.sh postgres
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	cfg := config{Addr: "127.0.0.1:12040", Idle: 10 * time.Second, Every: time.Second}
	flag.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address")
	flag.DurationVar(&cfg.Idle, "idle", cfg.Idle, "stop after this long without a report (0: only on SIGINT)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dlrsink:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "dlrsink: listening on %s\n", ln.Addr())
	if err := run(ctx, ln, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "dlrsink:", err)
		os.Exit(1)
	}
}

type config struct {
	Addr  string
	Idle  time.Duration // 0: until ctx ends
	Every time.Duration // between progress lines
}

// run serves ln until ctx ends or cfg.Idle passes without a report, printing
// progress and then the summary to out.
func run(ctx context.Context, ln net.Listener, cfg config, out io.Writer) error {
	s := newSink(time.Now)
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	start := time.Now()
	tick := time.NewTicker(cfg.Every)
	defer tick.Stop()
	var err error
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case err = <-errc:
			break loop
		case now := <-tick.C:
			if line, ok := s.progress(now); ok {
				fmt.Fprintln(out, line)
			}
			if cfg.Idle > 0 && now.Sub(s.lastOr(start)) >= cfg.Idle {
				break loop
			}
		}
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	srv.Shutdown(shutdown)
	fmt.Fprintln(out, s.summary())
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// report is what the sink reads of a report body.
type report struct {
	MsgID    string `json:"msgId"`
	Event    string `json:"event"`
	PartNum  int    `json:"partNum"`
	SendTime int64  `json:"sendTime"`
}

// sink counts the reports posted to it.
type sink struct {
	now func() time.Time

	mu          sync.Mutex
	events      map[string]int
	total, bad  int
	dups        int
	seen        map[string]struct{} // msgId, partNum and event of each report
	first, last time.Time
	lags        []time.Duration
	printed     int       // total at the last progress line
	printedAt   time.Time // when it was printed
}

func newSink(now func() time.Time) *sink {
	return &sink{now: now, events: map[string]int{}, seen: map[string]struct{}{}}
}

// ServeHTTP takes one report: 200 for a report body, 400 for anything
// else posted, 405 for other methods. The body is read before answering,
// so the poster's connection is reused.
func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var rep report
	err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&rep)
	at := s.now()
	if err != nil || rep.MsgID == "" || rep.Event == "" {
		s.mu.Lock()
		s.bad++
		s.mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	s.add(rep, at)
	w.WriteHeader(http.StatusOK)
}

// add counts rep, arrived at at.
func (s *sink) add(rep report, at time.Time) {
	key := fmt.Sprintf("%s/%d/%s", rep.MsgID, rep.PartNum, rep.Event)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.seen[key]; dup {
		s.dups++
	}
	s.seen[key] = struct{}{}
	s.events[rep.Event]++
	s.total++
	if s.first.IsZero() {
		s.first, s.printedAt = at, at
	}
	s.last = at
	if rep.SendTime > 0 {
		s.lags = append(s.lags, at.Sub(time.Unix(rep.SendTime, 0)))
	}
}

// lastOr is the last arrival, or def before the first.
func (s *sink) lastOr(def time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last.IsZero() {
		return def
	}
	return s.last
}

// progress is the line to print at now: the rate since the last line and
// the totals; ok is false when no report came since.
func (s *sink) progress(now time.Time) (line string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.total == s.printed {
		return "", false
	}
	rate := float64(s.total-s.printed) / now.Sub(s.printedAt).Seconds()
	s.printed, s.printedAt = s.total, now
	return fmt.Sprintf("%s %6.0f reports/s, %d in all (%s)", now.Format("15:04:05"), rate, s.total, s.eventList()), true
}

// eventList is the counts by event, by name. s.mu is held.
func (s *sink) eventList() string {
	names := make([]string, 0, len(s.events))
	for e := range s.events {
		names = append(names, e)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, e := range names {
		parts[i] = fmt.Sprintf("%s %d", e, s.events[e])
	}
	return strings.Join(parts, ", ")
}

// summary says what the sink received in all. Its last field, the Unix
// times of the first and last arrival in milliseconds, is for scripts.
func (s *sink) summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.total == 0 {
		return fmt.Sprintf("summary: no reports, %d bad requests", s.bad)
	}
	span := s.last.Sub(s.first)
	rate := float64(s.total) / max(span, time.Millisecond).Seconds()
	var b strings.Builder
	fmt.Fprintf(&b, "summary: %d reports (%s), %d duplicates, %d bad requests\n", s.total, s.eventList(), s.dups, s.bad)
	fmt.Fprintf(&b, "  first %s, last %s, span %v: %.0f reports/s\n",
		s.first.Format("15:04:05.000"), s.last.Format("15:04:05.000"), span.Round(time.Millisecond), rate)
	if len(s.lags) > 0 {
		lags := slices.Clone(s.lags)
		slices.Sort(lags)
		fmt.Fprintf(&b, "  lag from submission (sendTime, whole seconds) p50 %v p99 %v max %v\n",
			lags[len(lags)/2].Round(time.Millisecond), lags[len(lags)*99/100].Round(time.Millisecond), lags[len(lags)-1].Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "  unix_ms first=%d last=%d", s.first.UnixMilli(), s.last.UnixMilli())
	return b.String()
}
