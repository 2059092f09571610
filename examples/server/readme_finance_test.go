package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// readmeFinanceLines are the lines of the fenced block of README.md's
// section "Finance from an empty database".
func readmeFinanceLines(t *testing.T) []string {
	t.Helper()
	return readmeLines(t, "### Finance from an empty database")
}

// TestReadmeFinance runs README's finance sequence as written on a server
// started as its first line says, without the demo, on the memory store
// and on an empty PostgreSQL schema: the bootstrap example's client puts
// a partner and a document type, then creates, lists and reads an
// invoice of it, and the export names both. The README cannot rot.
func TestReadmeFinance(t *testing.T) {
	t.Parallel()
	lines := readmeFinanceLines(t)
	// The first line starts the server: VAR=value ... go run ./examples/server ARGS.
	start := strings.Fields(lines[0])
	env := map[string]string{}
	var args []string
	for i, w := range start {
		if k, v, ok := strings.Cut(w, "="); ok && !strings.HasPrefix(w, "-") && args == nil {
			env[k] = v
			continue
		}
		if w == "./examples/server" {
			args = append([]string{}, start[i+1:]...)
			if start[i-1] != "run" || start[i-2] != "go" {
				t.Fatalf("the first line does not go run the server: %s", lines[0])
			}
			break
		}
	}
	if args == nil || len(lines) < 7 {
		t.Fatalf("the block does not start the server and make the calls:\n%s", strings.Join(lines, "\n"))
	}
	for i, a := range args {
		if strings.HasPrefix(a, "examples/") { // a path from the repository's root
			args[i] = filepath.Join("..", "..", a)
		}
	}
	for name, extra := range map[string]func(t *testing.T) []string{
		"memory": func(*testing.T) []string { return nil },
		"postgres": func(t *testing.T) []string {
			pg := pgConfig(t)
			return []string{"-store", "postgres", "-pg", pg.pgDSN, "-pg-schema", pg.pgSchema}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := parse(t, append(append([]string(nil), args...), extra(t)...)...)
			if cfg.demo {
				t.Fatal("the README's server makes the demo; the sequence is for a server without it")
			}
			cfg.getenv = func(k string) string { return env[k] }
			l, out := startPlatform(t, cfg)
			if out.Len() != 0 {
				t.Errorf("a server without the demo printed:\n%s", out)
			}
			sh := &bannerShell{vars: map[string]string{}}
			answers := map[string]string{}
			for _, line := range lines[1:] {
				got := sh.run(t, strings.ReplaceAll(line, "localhost:8080", "http://"+l.API))
				answers[line] = got
			}
			if sh.vars["TOKEN"] == "" {
				t.Fatal("no token")
			}
			var created, read struct {
				ID          int64  `json:"id"`
				CustName    string `json:"custName"`
				CustCity    string `json:"custCity"`
				Status      string `json:"status"`
				InvTypeName string `json:"invTypeName"`
				Total       json.Number
			}
			var list struct {
				Data []struct {
					ID int64 `json:"id"`
				} `json:"data"`
			}
			var docs struct {
				Data []struct {
					DocumentTypeName        string `json:"documentTypeName"`
					BizPartnerExternalRefID string `json:"bizPartnerExternalRefId"`
				} `json:"data"`
			}
			for line, got := range answers {
				var err error
				switch {
				case strings.Contains(line, "classCodeName=CUSTOMER_INVOICE"):
					err = json.Unmarshal([]byte(got), &created)
				case strings.Contains(line, "invoices?custID="):
					err = json.Unmarshal([]byte(got), &list)
				case strings.Contains(line, "/invoices/1 "):
					err = json.Unmarshal([]byte(got), &read)
				case strings.Contains(line, "finance-documents"):
					err = json.Unmarshal([]byte(got), &docs)
				}
				if err != nil {
					t.Errorf("%s: %v: %s", line, err, got)
				}
			}
			if created.ID != 1 || created.CustName != "Harbour Cafe Ltd" || created.CustCity != "Koper" || created.Status != "draft" ||
				created.InvTypeName != "Customer invoice" {
				t.Errorf("the created invoice: %+v", created)
			}
			if len(list.Data) != 1 || list.Data[0].ID != created.ID {
				t.Errorf("the listing: %+v", list)
			}
			if read != created {
				t.Errorf("the invoice read %+v, created %+v", read, created)
			}
			if len(docs.Data) != 1 || docs.Data[0].DocumentTypeName != "Customer invoice" || docs.Data[0].BizPartnerExternalRefID != "ERP-4711" {
				t.Errorf("the export: %+v", docs)
			}
		})
	}
}
