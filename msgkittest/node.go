package msgkittest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Node is the path of node, with the npm packages of dir installed (npm
// ci when node_modules lacks pkg), for the tests that run a peer written
// with npm packages. Without node, npm or the packages the test is
// skipped, unless MSGKIT_INTEROP=1 says it must run: then it fails.
func Node(t testing.TB, dir, pkg string) string {
	t.Helper()
	unavailable := t.Skipf
	if os.Getenv("MSGKIT_INTEROP") == "1" {
		unavailable = t.Fatalf
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not in PATH (MSGKIT_INTEROP=1 makes this a failure)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err == nil {
		return node
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		unavailable("npm is not in PATH to install %s's packages", dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		unavailable("npm ci in %s: %v\n%s", dir, err, out)
	}
	return node
}
