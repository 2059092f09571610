package main

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smstest"
)

// The bulk SMS family's retention job removes a finished message once
// the family's clock has passed its keep time, and not before. The job's
// ticker runs on synctest's time; the keep time is read on the injected
// clock.
func TestRetentionJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
		clock := msgkittest.NewClock(t0)
		store := memstore.New().SMS()
		b := newBulkSMS(store, bulkSMSOptions{
			Gateway:   sms.GatewayOptions{Clock: clock.Now},
			Retention: sms.RetentionOptions{Clock: clock.Now, KeepFor: 2 * time.Hour},
		})
		if err := store.CreateAccount(t.Context(), smstest.Account("shop", "10")); err != nil {
			t.Fatal(err)
		}
		m := smstest.Message("m-1", "shop", "0.01")
		m.SubmittedAt = t0
		if err := store.Accept(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		smstest.FinishMessage(t, store, "m-1", 2, sms.StateDelivered, t0.Add(time.Minute), false)
		stored := func() bool {
			_, err := store.Message(t.Context(), "m-1")
			if err != nil && !errors.Is(err, msgkit.NotFound) {
				t.Fatal(err)
			}
			return err == nil
		}

		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { b.forget(ctx); close(done) }()
		clock.Advance(2 * time.Hour) // the keep time runs from the finish, a minute on
		time.Sleep(retentionEvery)
		synctest.Wait()
		if !stored() {
			t.Fatal("the message left before its keep time")
		}
		clock.Advance(time.Minute + time.Second)
		time.Sleep(retentionEvery)
		synctest.Wait()
		if stored() {
			t.Error("the message is still stored a run after its keep time")
		}
		cancel()
		<-done
	})
}

// -keep-finished-for defaults by store, -mem-keep-finished-for is its
// alias, and the memory store's own trimming follows it.
func TestParseConfigKeepFinishedFor(t *testing.T) {
	none := func(string) string { return "" }
	for _, c := range []struct {
		args []string
		env  map[string]string
		want time.Duration
	}{
		{nil, nil, time.Hour},
		{[]string{"-store", "postgres", "-pg", "postgres://x"}, nil, 30 * 24 * time.Hour},
		{[]string{"-store", "postgres", "-pg", "postgres://x", "-keep-finished-for", "48h"}, nil, 48 * time.Hour},
		{[]string{"-keep-finished-for", "10m"}, nil, 10 * time.Minute},
		{[]string{"-mem-keep-finished-for", "10m"}, nil, 10 * time.Minute},
		{[]string{"-store", "postgres", "-pg", "postgres://x", "-mem-keep-finished-for", "2h"}, nil, 2 * time.Hour},
		{[]string{"-keep-finished-for", "10m", "-mem-keep-finished-for", "10m"}, nil, 10 * time.Minute},
		{nil, map[string]string{"MSGKIT_KEEP_FINISHED_FOR": "3h"}, 3 * time.Hour},
		{nil, map[string]string{"MSGKIT_MEM_KEEP_FINISHED_FOR": "3h"}, 3 * time.Hour},
	} {
		cfg, err := parseConfig(c.args, func(k string) string { return c.env[k] }, io.Discard)
		if err != nil || cfg.keepFinishedFor != c.want {
			t.Errorf("parseConfig(%v, %v): keep %v, %v; want %v", c.args, c.env, cfg.keepFinishedFor, err, c.want)
			continue
		}
		if cfg.store == "memory" && cfg.mem.KeepFinishedFor != c.want {
			t.Errorf("parseConfig(%v, %v): the memory store keeps for %v, want %v", c.args, c.env, cfg.mem.KeepFinishedFor, c.want)
		}
	}
	for _, args := range [][]string{
		{"-keep-finished-for", "0s"}, {"-keep-finished-for", "a month"}, {"-mem-keep-finished-for", "-1h"},
		{"-keep-finished-for", "1h", "-mem-keep-finished-for", "2h"},
	} {
		if _, err := parseConfig(args, none, io.Discard); err == nil {
			t.Errorf("parseConfig(%v) accepted", args)
		}
	}
}
