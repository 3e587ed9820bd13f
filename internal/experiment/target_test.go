package experiment

import (
	"context"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/serverctl"
)

// TestResolveTargetEnvironment: a file without a target section runs
// against the libpq environment when PGHOST or PGPORT is set; a file's
// target.url (or --url) beats it. Nothing connects: the servers named here
// do not exist.
func TestResolveTargetEnvironment(t *testing.T) {
	for _, n := range []string{"PGHOSTADDR", "PGDATABASE", "PGUSER", "PGSERVICE", "PGSERVICEFILE"} {
		t.Setenv(n, "")
	}
	t.Setenv("PGHOST", "envhost.invalid")
	t.Setenv("PGPORT", "6543")
	spec, err := Parse("noTarget.yaml", []byte("workload: {builtin: select-only}\nload: {clients: 1, rate: 10}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	out := func(s string) { lines = append(lines, s) }
	env, err := ResolveTarget(context.Background(), spec.Target, out)
	conn, restarter := env.ConnString, env.Restarter
	if err != nil || conn != "host=envhost.invalid port=6543" || restarter != nil {
		t.Errorf("no target section: %q, %v, %v", conn, restarter, err)
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "pgtrial: target postgres://") ||
		!strings.HasSuffix(lines[0], "@envhost.invalid:6543/ (from PGHOST, PGPORT)") {
		t.Errorf("said %q", lines)
	}

	spec, err = Parse("remote.yaml", []byte("target: {url: 'postgres://u:pw@filehost.invalid/db', restart_command: 'true'}\n"+
		"workload: {builtin: select-only}\nload: {clients: 1, rate: 10}\n"))
	if err != nil {
		t.Fatal(err)
	}
	lines = nil
	env, err = ResolveTarget(context.Background(), spec.Target, out)
	conn, restarter = env.ConnString, env.Restarter
	if err != nil || conn != "postgres://u:pw@filehost.invalid/db" {
		t.Errorf("target.url: %q, %v", conn, err)
	}
	if cr, ok := restarter.(serverctl.CommandRestarter); !ok || cr.Command != "true" || cr.ConnString != conn {
		t.Errorf("restarter %#v", restarter)
	}
	if want := "pgtrial: target postgres://u@filehost.invalid:6543/db (from the file's target.url)"; len(lines) != 1 || lines[0] != want {
		t.Errorf("said %q, want %q", lines, want)
	}
}
