package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestSMPPMetrics: with -smpp the server registers the SMPP client's
// metrics, labelled with the connection's configured name; without, the
// simulated network has none.
func TestSMPPMetrics(t *testing.T) {
	file := filepath.Join(t.TempDir(), "smpp.json")
	if err := os.WriteFile(file, []byte(`{"name": "smsc-1", "addr": "127.0.0.1:1", "systemId": "msgkit", "password": "p"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"with -smpp", []string{"-smpp", file}, 5},
		{"simulated network", nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseConfig(c.args, func(string) string { return "" }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			st, err := openStores(t.Context(), cfg, nil, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(st.close)
			reg := prometheus.NewRegistry()
			newPlatform(st, cfg, reg, slog.New(slog.DiscardHandler))
			mfs, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, mf := range mfs {
				if !strings.HasPrefix(mf.GetName(), "msgkit_smpp_") {
					continue
				}
				n++
				for _, m := range mf.GetMetric() {
					if l := m.GetLabel()[0]; l.GetName() != "connection" || l.GetValue() != "smsc-1" {
						t.Errorf("%s labelled %v", mf.GetName(), m.GetLabel())
					}
				}
			}
			if n != c.want {
				t.Errorf("%d SMPP metrics, want %d", n, c.want)
			}
		})
	}
}
