package msgkit_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/msgkit/msgkit"

// pathSpan is a span of code in Markdown that spells a path inside the
// module: "sms/smpp", "adapters/pgstore/", "examples/smsload/bootstrap.json".
// Spans with spaces, a leading slash (an HTTP path) or no slash at all (a
// word or a Go name such as sms.Upstream) are something else; "." is the
// root.
var pathSpan = regexp.MustCompile("`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*/?)`")

// readmePaths returns the paths inside the module that README.md's text
// spells in code spans outside fenced blocks, relative to the module's
// root and without a trailing slash; "." is the root. An import path of
// the module counts as its path; other import paths do not count.
func readmePaths(text string) []string {
	var paths []string
	fenced := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range pathSpan.FindAllStringSubmatch(line, -1) {
			p := m[1]
			if p != "." && !strings.Contains(p, "/") {
				continue // a word or a Go name, not a path
			}
			p = strings.TrimSuffix(p, "/")
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") && !strings.HasPrefix(first, ".") {
				// An import path: the module's own are paths here,
				// others' are not.
				if p == module {
					p = "."
				} else if rel, ok := strings.CutPrefix(p, module+"/"); ok {
					p = rel
				} else {
					continue
				}
			}
			paths = append(paths, p)
		}
	}
	return paths
}

// section returns the text of the level-2 section of text headed title,
// without the heading, or false.
func section(text, title string) (string, bool) {
	_, rest, ok := strings.Cut(text, "\n## "+title+"\n")
	if !ok {
		return "", false
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}

// README's layout keeps up with the packages: every package of the module
// has its path, in a code span, in the Layout section ("sms/smpp" or
// "sms/smpp/"; "." for the root), and every path README spells anywhere
// exists, and names a package when it is a directory with Go files. A
// package added, moved or removed fails this test until README says so.
func TestReadmeNamesEveryPackage(t *testing.T) {
	pkgs, _ := deps(t, module+"/...")
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	layout, ok := section(text, "Layout")
	if !ok {
		t.Fatal("README.md has no section ## Layout")
	}

	var want []string // the packages' paths relative to the module's root
	for _, pkg := range pkgs {
		rel, ok := strings.CutPrefix(pkg, module+"/")
		switch {
		case pkg == module:
			rel = "."
		case !ok:
			t.Fatalf("go list gave %s, outside the module %s", pkg, module)
		}
		want = append(want, rel)
	}
	if len(want) < 10 || !slices.Contains(want, ".") {
		t.Fatalf("go list found too few packages: %v", want)
	}
	listed := readmePaths(layout)
	for _, p := range want {
		if !slices.Contains(listed, p) {
			t.Errorf("README.md's Layout does not list the package %s (as `%s/`)", p, p)
		}
	}

	for _, p := range readmePaths(text) {
		info, err := os.Stat(filepath.FromSlash(p))
		if err != nil {
			t.Errorf("README.md names %s, which does not exist", p)
			continue
		}
		if !info.IsDir() || slices.Contains(want, p) {
			continue
		}
		if goFiles, _ := filepath.Glob(filepath.Join(filepath.FromSlash(p), "*.go")); len(goFiles) > 0 {
			t.Errorf("README.md names %s, a directory of Go files that go list does not give as a package", p)
		}
	}
}
