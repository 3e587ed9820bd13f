package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// setPGEnv points the libpq environment at the test server's database of
// url (PGHOST, PGPORT, PGDATABASE, PGUSER; PGSSLMODE=disable as in its
// URL) and empties the other variables that could change the target.
// t.Setenv: the tests of this package do not run in parallel.
func setPGEnv(t *testing.T, url string) *pgconn.Config {
	t.Helper()
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"PGHOSTADDR", "PGSERVICE", "PGSERVICEFILE", "PGPASSWORD", "PGTARGETSESSIONATTRS"} {
		t.Setenv(n, "")
	}
	t.Setenv("PGHOST", cfg.Host)
	t.Setenv("PGPORT", strconv.Itoa(int(cfg.Port)))
	t.Setenv("PGDATABASE", cfg.Database)
	t.Setenv("PGUSER", cfg.User)
	t.Setenv("PGSSLMODE", "disable")
	return cfg
}

// TestTargetFromEnvironment: with PGHOST, PGPORT, PGDATABASE and PGUSER set
// and no target on the command line, init loads and run measures that
// server (not the local cluster "default", which is never opened here), and
// the first line of each says so; with --json, on stderr.
func TestTargetFromEnvironment(t *testing.T) {
	url := pgtest.ConnString(t)
	cfg := setPGEnv(t, url)
	want := fmt.Sprintf("pgtrial: target postgres://%s@%s:%d/%s (from PGHOST, PGPORT, PGDATABASE, PGUSER)", cfg.User, cfg.Host, cfg.Port, cfg.Database)

	_, errOut := mustRun(t, 0, "init", "-q", "-s", "1")
	if first, _, _ := strings.Cut(errOut, "\n"); first != want {
		t.Errorf("init: first line %q, want %q\nstderr:\n%s", first, want, errOut)
	}
	if n := countRows(t, url, "pgbench_branches"); n != 1 {
		t.Fatalf("init loaded %d branches into the PGDATABASE database, want 1", n)
	}

	dir := filepath.Join(t.TempDir(), "env")
	out, errOut := mustRun(t, 0, "run", "-b", "select-only", "--closed", "-T", "2", "--warmup", "0s", "-c", "1",
		"--no-collect", "--json", "--run-dir", dir)
	if first, _, _ := strings.Cut(errOut, "\n"); first != want {
		t.Errorf("run: first line %q, want %q\nstderr:\n%s", first, want, errOut)
	}
	var js jsonSummary
	if err := json.Unmarshal([]byte(out), &js); err != nil || js.Total.Committed == 0 {
		t.Errorf("stdout is not the JSON summary of a run (%v):\n%s", err, out)
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tg := run.Target; tg.Port != int(cfg.Port) || tg.Database != cfg.Database || tg.User != cfg.User {
		t.Errorf("run.json target %s@%s:%d/%s, want the environment's %s@%s:%d/%s",
			tg.User, tg.Host, tg.Port, tg.Database, cfg.User, cfg.Host, cfg.Port, cfg.Database)
	}

	// The command line beats the environment: PGPORT names no server, the
	// URL does.
	t.Setenv("PGPORT", "1")
	_, errOut = mustRun(t, 0, "run", pgtest.WithPassword(t, url), "-b", "select-only", "--closed", "-t", "5", "--warmup", "0s", "-c", "1",
		"--no-collect", "--quiet", "--run-dir", filepath.Join(t.TempDir(), "arg"))
	if first, _, _ := strings.Cut(errOut, "\n"); !strings.HasSuffix(first, "(from the argument)") || strings.Contains(errOut, pgtest.Password) ||
		!strings.HasPrefix(first, fmt.Sprintf("pgtrial: target postgres://%s@%s:%d/", cfg.User, cfg.Host, cfg.Port)) {
		t.Errorf("run URL: first line %q", first)
	}
}
