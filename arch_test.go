package msgkit_test

import (
	"os/exec"
	"strings"
	"testing"
)

// Dependencies point inward: domain packages import neither the adapters,
// nor net/http, nor a database driver (ARCHITECTURE.md).
func TestDomainPackagesStayPure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Deps " "}}`, "github.com/msgkit/msgkit/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	forbidden := []string{"net/http", "github.com/jackc/pgx", "github.com/msgkit/msgkit/adapters"}
	checked := 0
	for line := range strings.Lines(string(out)) {
		pkg, deps, _ := strings.Cut(strings.TrimSpace(line), ":")
		if strings.Contains(pkg, "/adapters/") || strings.Contains(pkg, "/examples/") {
			continue
		}
		checked++
		for dep := range strings.FieldsSeq(deps) {
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
	if checked < 2 {
		t.Fatalf("checked %d packages; go list found too few", checked)
	}
}
