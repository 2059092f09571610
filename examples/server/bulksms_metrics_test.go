package main

import (
	"slices"
	"testing"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/prometheus/client_golang/prometheus"
)

// The bulk SMS family registers the metrics of its gateway, transmitter
// and dispatcher on the registry it is given, the store's gauges among
// them, and every one of them gathers.
func TestBulkSMSMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	newBulkSMS(memstore.New().SMS(), bulkSMSOptions{Metrics: reg})
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range families {
		names = append(names, f.GetName())
	}
	want := []string{
		"msgkit_sms_parts_total",
		"msgkit_sms_queue_oldest_seconds",
		"msgkit_sms_queue_parts",
		"msgkit_sms_report_attempts_total",
		"msgkit_sms_report_held_back_reports",
		"msgkit_sms_report_lines_held_back",
		"msgkit_sms_report_outbox_oldest_seconds",
		"msgkit_sms_report_outbox_reports",
		"msgkit_sms_reports_put_off_total",
		"msgkit_sms_submissions_total",
	}
	if !slices.Equal(names, want) {
		t.Errorf("registered %v, want %v", names, want)
	}
}
