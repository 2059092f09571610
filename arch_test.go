package msgkit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// deps runs go list on pattern and returns each package's dependencies,
// tests excluded, in the order go list gives the packages.
func deps(t *testing.T, pattern string) (pkgs []string, depsOf map[string][]string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the go command")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Deps " "}}`, pattern).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	depsOf = map[string][]string{}
	for line := range strings.Lines(string(out)) {
		pkg, ds, _ := strings.Cut(strings.TrimSpace(line), ":")
		pkgs = append(pkgs, pkg)
		depsOf[pkg] = strings.Fields(ds)
	}
	return pkgs, depsOf
}

// depsBeside is deps, but a package's dependencies are only those it
// reaches without going through a package whose path begins with
// beside.
func depsBeside(t *testing.T, pattern, beside string) (pkgs []string, depsOf map[string][]string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the go command")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}:{{join .Imports " "}}:{{.Module}}`, pattern).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.SplitN(strings.TrimSpace(line), ":", 3)
		imports[fields[0]] = strings.Fields(fields[1])
		if strings.HasPrefix(fields[2], "github.com/msgkit/msgkit") && within(fields[0], "github.com/msgkit/msgkit") {
			pkgs = append(pkgs, fields[0])
		}
	}
	depsOf = map[string][]string{}
	for _, pkg := range pkgs {
		seen := map[string]bool{}
		next := slices.Clone(imports[pkg])
		for len(next) > 0 {
			dep := next[len(next)-1]
			next = next[:len(next)-1]
			if seen[dep] || strings.HasPrefix(dep, beside) {
				continue
			}
			seen[dep] = true
			next = append(next, imports[dep]...)
		}
		depsOf[pkg] = slices.Sorted(maps.Keys(seen))
	}
	return pkgs, depsOf
}

// within reports whether pkg is root or a package under it.
func within(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }

// Dependencies point inward: domain packages import neither the adapters,
// nor net/http, nor a database driver (ARCHITECTURE.md). The Prometheus
// client, which domain components register their metrics with, brings
// net/http along for its exposition format: what is reached only through
// it does not count.
func TestDomainPackagesStayPure(t *testing.T) {
	pkgs, depsOf := depsBeside(t, "github.com/msgkit/msgkit/...", "github.com/prometheus/")
	forbidden := []string{"net/http", "github.com/jackc/pgx", "github.com/msgkit/msgkit/adapters"}
	checked := 0
	for _, pkg := range pkgs {
		if strings.Contains(pkg, "/adapters/") || strings.Contains(pkg, "/examples/") {
			continue
		}
		checked++
		for _, dep := range depsOf[pkg] {
			for _, f := range forbidden {
				if within(dep, f) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
	if checked < 2 {
		t.Fatalf("checked %d packages; go list found too few", checked)
	}
}

// The HTTP kit knows no API family, and the families know only the kit:
// the kit (adapters/httpapi) imports no package under it, and no family
// package (a package right under the kit, such as cdsapi) imports another
// family; the kit's test helpers (httpapitest) import no family either.
func TestHTTPFamiliesStayApart(t *testing.T) {
	const kit = "github.com/msgkit/msgkit/adapters/httpapi"
	pkgs, depsOf := deps(t, kit+"/...")
	var families, helpers []string
	for _, pkg := range pkgs {
		name, ok := strings.CutPrefix(pkg, kit+"/")
		switch {
		case !ok:
		case strings.HasSuffix(name, "test"):
			helpers = append(helpers, pkg)
		case !strings.Contains(name, "/"):
			families = append(families, pkg)
		}
	}
	if !slices.Contains(pkgs, kit) || len(families) < 5 {
		t.Fatalf("go list found the kit %v and %d families: %v", slices.Contains(pkgs, kit), len(families), pkgs)
	}
	for _, dep := range depsOf[kit] {
		if strings.HasPrefix(dep, kit+"/") {
			t.Errorf("the kit imports %s", dep)
		}
	}
	for _, pkg := range append(families, helpers...) {
		for _, dep := range depsOf[pkg] {
			for _, fam := range families {
				if fam != pkg && within(dep, fam) {
					t.Errorf("%s imports the family %s", pkg, dep)
				}
			}
		}
	}
}

// imports runs go list on pattern and returns each package's direct
// imports, tests excluded.
func imports(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, pattern).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	importsOf := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		pkg, is, _ := strings.Cut(strings.TrimSpace(line), ":")
		importsOf[pkg] = strings.Fields(is)
	}
	return importsOf
}

// matches reports whether pkg is pattern, or with pattern "x/..." whether
// pkg is x or a package under it (as the go command reads patterns).
func matches(pkg, pattern string) bool {
	if root, ok := strings.CutSuffix(pattern, "/..."); ok {
		return within(pkg, root)
	}
	return pkg == pattern
}

// Pure cores do no I/O: each imports none of the packages its rule names,
// and of the module only what it lists, and nothing it depends on reaches
// net/http or a database driver.
func TestPureCoresStayPure(t *testing.T) {
	const mod = "github.com/msgkit/msgkit"
	noIO := []string{"context", "net", "net/http/...", "os/...", "io/...", "log/...", "database/...", "syscall", "github.com/jackc/pgx/..."}
	// readers is noIO for a package that reads what its caller opens
	// (io.Reader, io.ReaderAt) and opens nothing itself.
	readers := []string{"context", "net", "net/http/...", "os/...", "io/fs", "log/...", "database/...", "syscall", "github.com/jackc/pgx/..."}
	rules := []struct {
		pkg    string
		not    []string // import patterns it may not import
		module []string // the module's packages it may import
	}{
		// The encodings of short messages: septets, parts and PDUs.
		{mod + "/sms/gsm", noIO, []string{mod}},
		// The SMPP 3.4 codec: it reads PDUs from an io.Reader and
		// dials nothing.
		{mod + "/sms/smpp/pdu", readers, nil},
		// The office file checks: formats, not uploads; finance calls
		// them, never the other way.
		{mod + "/finance/officefile", readers, nil},
	}
	_, depsOf := deps(t, mod+"/...")
	importsOf := imports(t, mod+"/...")
	for _, r := range rules {
		is, ok := importsOf[r.pkg]
		if !ok {
			t.Errorf("go list does not know %s", r.pkg)
			continue
		}
		for _, imp := range is {
			if slices.ContainsFunc(r.not, func(p string) bool { return matches(imp, p) }) {
				t.Errorf("%s imports %s", r.pkg, imp)
			}
			if within(imp, mod) && !slices.Contains(r.module, imp) {
				t.Errorf("%s imports %s; of the module it may import only %v", r.pkg, imp, r.module)
			}
		}
		for _, dep := range depsOf[r.pkg] {
			if matches(dep, "net/http/...") || matches(dep, "github.com/jackc/pgx/...") {
				t.Errorf("%s depends on %s", r.pkg, dep)
			}
		}
	}
}

// Outbound HTTP clients live with the guarded dialer (adapters/egress):
// the HTTP kit and its families make no requests of their own (no
// http.Client, Transport or request of theirs; the kit imports no egress,
// a family may, for the codes of its clients' failures), and egress
// knows no HTTP family.
func TestOutboundClientsLiveInEgress(t *testing.T) {
	const kit, egress = "github.com/msgkit/msgkit/adapters/httpapi", "github.com/msgkit/msgkit/adapters/egress"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{.Dir}}:{{join .GoFiles " "}}`, kit+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	importsOf := imports(t, "github.com/msgkit/msgkit/adapters/...")
	clients := []string{"Client", "Transport", "NewRequest", "NewRequestWithContext", "DefaultClient", "DefaultTransport", "Get", "Post", "PostForm", "Head"}
	checked := 0
	for line := range strings.Lines(string(out)) {
		pkg, rest, _ := strings.Cut(strings.TrimSpace(line), ":")
		dir, files, _ := strings.Cut(rest, ":")
		if strings.HasSuffix(pkg, "test") {
			continue // test helpers call handlers as clients do
		}
		checked++
		if pkg == kit && slices.Contains(importsOf[pkg], egress) {
			t.Errorf("%s imports %s", pkg, egress)
		}
		fset := token.NewFileSet()
		for _, name := range strings.Fields(files) {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, isIdent := sel.X.(*ast.Ident); isIdent && x.Name == "http" && slices.Contains(clients, sel.Sel.Name) {
					t.Errorf("%s: http.%s: outbound clients live in %s", fset.Position(sel.Pos()), sel.Sel.Name, egress)
				}
				return true
			})
		}
	}
	if checked < 6 {
		t.Fatalf("checked %d packages of the kit; go list found too few", checked)
	}
	for _, imp := range importsOf[egress] {
		if within(imp, kit) {
			t.Errorf("%s imports %s", egress, imp)
		}
	}
}
