package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// readmeLines are the lines of the first sh block of README.md's section
// named heading.
func readmeLines(t *testing.T, heading string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %s", heading)
	}
	_, block, ok := strings.Cut(rest, "```sh\n")
	if !ok {
		t.Fatal("the section has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	return strings.Split(strings.TrimSpace(block), "\n")
}

// TestReadmeOperator runs README's operator's first day as written: a
// server with the operator's client only, then a tenant, its client, its
// bulk SMS account, a top-up and a message through the API, on
// PostgreSQL (the line's own store, on a schema of the test's) and in
// memory. The README cannot rot.
func TestReadmeOperator(t *testing.T) {
	t.Parallel()
	lines := readmeLines(t, "### An operator's first day, through the API")
	env := map[string]string{}
	var args []string
	for i, w := range strings.Fields(lines[0]) {
		if k, v, ok := strings.Cut(w, "="); ok && args == nil && !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "'") {
			env[k] = v
			continue
		}
		if w == "./examples/server" {
			args = strings.Fields(lines[0])[i+1:]
			break
		}
	}
	if args == nil || len(lines) < 8 {
		t.Fatalf("the block does not start the server and make the calls:\n%s", strings.Join(lines, "\n"))
	}
	// withStore is args with the line's store replaced: none (memory),
	// or the test's PostgreSQL schema.
	withStore := func(pg []string) []string {
		var out []string
		for i := 0; i < len(args); i++ {
			switch a := args[i]; a {
			case "-store", "-pg":
				i++
			default:
				if strings.HasPrefix(a, "examples/") {
					a = filepath.Join("..", "..", a)
				}
				out = append(out, a)
			}
		}
		return append(out, pg...)
	}
	if !strings.Contains(lines[0], "-store postgres") {
		t.Errorf("the README's first day is not on PostgreSQL: %s", lines[0])
	}
	for name, store := range map[string]func(t *testing.T) []string{
		"memory": func(*testing.T) []string { return nil },
		"postgres": func(t *testing.T) []string {
			pg := pgConfig(t)
			return []string{"-store", "postgres", "-pg", pg.pgDSN, "-pg-schema", pg.pgSchema}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := parse(t, withStore(store(t))...)
			cfg.getenv = func(k string) string { return env[k] }
			l, out := startPlatform(t, cfg)
			if out.Len() != 0 {
				t.Errorf("the operator's server printed:\n%s", out)
			}
			sh := &bannerShell{vars: map[string]string{}}
			var answers []string
			for _, line := range lines[1:] {
				line = strings.ReplaceAll(line, "localhost:8080", "http://"+l.API)
				line = strings.ReplaceAll(line, "localhost:12020", "http://"+l.SMSHTTP)
				answers = append(answers, sh.run(t, line))
			}
			if sh.vars["OP"] == "" {
				t.Fatal("no operator token")
			}
			var client struct{ Secret string }
			if err := json.Unmarshal([]byte(answers[2]), &client); err != nil || len(client.Secret) < 40 {
				t.Errorf("the client's answer: %s", answers[2])
			}
			var ledger struct {
				Data []struct {
					Kind, Amount, Actor, MessageID string
				}
			}
			if err := json.Unmarshal([]byte(answers[6]), &ledger); err != nil {
				t.Fatal(err)
			}
			sum := decimal.Zero
			var kinds []string
			for _, e := range ledger.Data {
				kinds = append(kinds, e.Kind+" "+e.Amount)
				sum = sum.Add(decimal.RequireFromString(e.Amount))
			}
			if strings.Join(kinds, ", ") != "charge -0.035, top_up 50" || sum.String() != "49.965" {
				t.Errorf("the ledger: %s", answers[6])
			}
			var trail struct {
				Data []struct{ ActorKind, Actor, Action, Resource string }
			}
			if err := json.Unmarshal([]byte(answers[7]), &trail); err != nil || len(trail.Data) != 5 {
				t.Fatalf("the trail: %s", answers[7])
			}
			var got []string
			for _, e := range trail.Data {
				got = append(got, e.ActorKind+":"+e.Actor+" "+e.Action+" "+e.Resource)
			}
			want := "client:ops-console top_up sms_account, client:ops-console create sms_account, client:ops-console create client, " +
				"client:ops-console create tenant, system: create client" // the last, the bootstrap file's
			if strings.Join(got, ", ") != want {
				t.Errorf("the trail, newest first:\n%s\nwant\n%s", strings.Join(got, ", "), want)
			}
		})
	}
}
