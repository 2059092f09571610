package msgkit_test

import (
	"os/exec"
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

// within reports whether pkg is root or a package under it.
func within(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }

// Dependencies point inward: domain packages import neither the adapters,
// nor net/http, nor a database driver (ARCHITECTURE.md).
func TestDomainPackagesStayPure(t *testing.T) {
	pkgs, depsOf := deps(t, "github.com/msgkit/msgkit/...")
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
