package msgkit_test

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// exampleFunc is the start of a runnable example's declaration.
var exampleFunc = regexp.MustCompile(`(?m)^func Example\w*\(\)`)

// Every domain package has a runnable Example in its test files
// (ARCHITECTURE.md): each package that is not the root, an adapter, an
// example program or a test helper (a package whose name ends in test).
func TestDomainPackagesHaveExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	const module = "github.com/msgkit/msgkit"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{.Dir}}|{{join .TestGoFiles " "}} {{join .XTestGoFiles " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for line := range strings.Lines(string(out)) {
		parts := strings.SplitN(strings.TrimSpace(line), "|", 3)
		if len(parts) != 3 {
			t.Fatalf("go list line %q", line)
		}
		pkg, dir, files := parts[0], parts[1], strings.Fields(parts[2])
		if pkg == module || within(pkg, module+"/adapters") || within(pkg, module+"/examples") || strings.HasSuffix(path.Base(pkg), "test") {
			continue
		}
		checked++
		if !hasExample(t, dir, files) {
			t.Errorf("%s has no Example function in its test files", pkg)
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d domain packages; go list found too few", checked)
	}
}

func hasExample(t *testing.T, dir string, files []string) bool {
	t.Helper()
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if exampleFunc.Match(src) {
			return true
		}
	}
	return false
}
