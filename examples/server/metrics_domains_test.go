package main

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// The campaigns', contacts', test system's and UI proxy's metrics are
// registered on the process's registry on every store, the store's with
// -store postgres only.
func TestDomainMetricsRegistered(t *testing.T) {
	domains := []string{"msgkit_campaign_messages_pending", "msgkit_campaign_messages_total", "msgkit_campaign_tasks",
		"msgkit_cds_import_rows_total", "msgkit_testsystem_messages_judged_total", "msgkit_testsystem_sessions_completed_total",
		"msgkit_testsystem_sessions_started_total", "msgkit_uiproxy_call_seconds", "msgkit_uiproxy_calls_total"}
	store := []string{"msgkit_pg_pool_acquire_seconds_total", "msgkit_pg_pool_acquired_connections", "msgkit_pg_pool_acquires_total",
		"msgkit_pg_pool_canceled_acquires_total", "msgkit_pg_pool_connections", "msgkit_pg_pool_empty_acquire_wait_seconds_total",
		"msgkit_pg_pool_empty_acquires_total", "msgkit_pg_pool_idle_connections", "msgkit_pg_pool_max_connections",
		"msgkit_store_errors_total", "msgkit_store_tx_retries_total"}
	for _, tc := range []struct {
		name string
		cfg  func(t *testing.T) config
		want []string
	}{
		{"memory", func(*testing.T) config { return config{store: "memory"} }, domains},
		{"postgres", func(t *testing.T) config { return pgConfig(t) }, append(slices.Clone(domains), store...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg(t)
			cfg.getenv = func(string) string { return "" }
			cfg, err := parseConfig([]string{"-store", cfg.store, "-pg", cfg.pgDSN, "-pg-schema", cfg.pgSchema}, cfg.getenv, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			reg := prometheus.NewRegistry()
			logger := slog.New(slog.DiscardHandler)
			st, err := openStores(context.Background(), cfg, reg, logger)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(st.close)
			newPlatform(st, cfg, reg, logger)
			mfs, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, mf := range mfs {
				if slices.Contains(domains, mf.GetName()) || slices.Contains(store, mf.GetName()) {
					got = append(got, mf.GetName())
				}
			}
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Errorf("registered %v\nwant %v", got, tc.want)
			}
		})
	}
}
