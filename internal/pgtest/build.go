package pgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BuildPgtrial builds cmd/pgtrial into a temporary directory and returns the
// binary's path, for tests that run the command as a process (signals, exit
// codes, the pgbench conformance cases). The module root is found by walking
// up from the test's directory to go.mod.
func BuildPgtrial(t testing.TB) string {
	t.Helper()
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			t.Fatal("pgtest.BuildPgtrial: no go.mod above the test's directory")
		}
		root = parent
	}
	bin := filepath.Join(t.TempDir(), "pgtrial")
	// The go command that runs the tests: go test puts its GOROOT in the
	// environment; else the one on PATH.
	goCmd := "go"
	if root := os.Getenv("GOROOT"); root != "" {
		if _, err := os.Stat(filepath.Join(root, "bin", "go")); err == nil {
			goCmd = filepath.Join(root, "bin", "go")
		}
	}
	cmd := exec.Command(goCmd, "build", "-o", bin, "./cmd/pgtrial")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/pgtrial: %v\n%s", err, out)
	}
	return bin
}
