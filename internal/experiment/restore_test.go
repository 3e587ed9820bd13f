package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// ownCluster is a cluster of the test's own (these tests restart it),
// destroyed at the end.
func ownCluster(t *testing.T) (*localpg.Cluster, string) {
	t.Helper()
	pgtest.Cluster(t) // skips without PostgreSQL binaries
	dir := t.TempDir()
	for _, p := range []string{dir, filepath.Dir(dir)} { // reachable by the server's OS user
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c, err := localpg.Open(localpg.Config{Name: "restore", Dir: filepath.Join(dir, "c"), NoSync: true,
		Settings: map[string]string{"shared_buffers": "32MB", "fsync": "off", "autovacuum": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Destroy(ctx); err != nil && !errors.Is(err, localpg.ErrNoCluster) {
			t.Errorf("destroy the cluster: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return c, c.URL("postgres")
}

// ownState is postgresql.auto.conf (the file), the settings in effect and
// the tables outside the catalogs.
func ownState(t *testing.T, c *localpg.Cluster, url string) string {
	t.Helper()
	var s string
	pgtest.QueryRow(t, url, `SELECT
		(SELECT string_agg(name || '=' || setting, ',' ORDER BY name) FROM pg_settings WHERE name IN ('work_mem', 'shared_buffers', 'random_page_cost')) || ' | ' ||
		coalesce((SELECT string_agg(schemaname || '.' || tablename, ',' ORDER BY 1) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')), '')`, nil, &s)
	return autoConf(t, c.DataDir()) + "\n" + s
}

// TestExperimentInterruptedWhileChanging: the first signal (ctx cancelled)
// while a variant is being applied, during its restart or during its setup
// SQL, still leaves the server as it was: the settings back (the restart
// is not cut short), the setup's table dropped, no restore.json, and
// experiment.json ended and interrupted with the reason. With Urgent closed
// as well (the second signal) the same holds, within the urgent bound.
func TestExperimentInterruptedWhileChanging(t *testing.T) {
	c, url := ownCluster(t)
	pgtest.Exec(t, url, "ALTER SYSTEM SET random_page_cost = 3.25", "SELECT pg_reload_conf()")
	before := ownState(t, c, url)

	for _, tc := range []struct {
		name     string
		variant  string
		trigger  string        // a line of Out after which ctx is cancelled; "": as the first restart begins
		after    time.Duration // that much later
		urgent   bool          // close Urgent with the cancel
		maxTaken time.Duration // from the cancel to Execute's return
	}{
		{"restart", `{name: sb, settings: {shared_buffers: 48MB, work_mem: 7MB}, setup: ["CREATE TABLE probe (x int)"], teardown: ["DROP TABLE probe"]}`,
			"", 0, false, 90 * time.Second},
		{"setup", `{name: s, settings: {work_mem: 7MB, random_page_cost: 1.5}, setup: ["CREATE TABLE probe (x int)", "SELECT pg_sleep(5)"], teardown: ["DROP TABLE probe"]}`,
			"applying its settings", 800 * time.Millisecond, false, 30 * time.Second},
		{"urgent-run", `{name: sb, settings: {shared_buffers: 48MB, work_mem: 7MB}, setup: ["CREATE TABLE probe (x int)"], teardown: ["DROP TABLE probe"]}`,
			"run 1 of 1", 500 * time.Millisecond, true, urgentRestoreTimeout + 15*time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := oneSQLFile(t, `
workload: {scripts: [{file: one.sql}]}
load: {clients: 1, rate: 50}
protocol: {warmup: 0s, window: 4s, repeats: 1}
variants: [`+tc.variant+`]
collect: false
`)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			urgent := make(chan struct{})
			var once sync.Once
			var cancelled time.Time
			var mu sync.Mutex
			stop := func() {
				mu.Lock()
				cancelled = time.Now()
				mu.Unlock()
				cancel()
				if tc.urgent {
					close(urgent)
				}
			}
			restarts := 0
			r := restarterFunc(func(rctx context.Context) error {
				restarts++
				if tc.trigger == "" {
					once.Do(func() { time.AfterFunc(200*time.Millisecond, stop) }) // pg_ctl stop is under way
				}
				if tc.urgent {
					// A restart whose stop is under way (it is not cut) and
					// that takes a while before its start: cut short there,
					// it leaves the server stopped.
					if _, err := c.Stop(context.WithoutCancel(rctx)); err != nil {
						return err
					}
					time.Sleep(300 * time.Millisecond)
					if err := rctx.Err(); err != nil {
						return err
					}
					_, err := c.Start(rctx)
					return err
				}
				return c.Restart(rctx)
			})
			env, log := testEnv(t, url, r)
			env.Urgent = urgent
			env.Interrupt = func() (string, time.Time) { return "SIGTERM", time.Time{} }
			env.Out = func(s string) {
				log.add(s)
				if tc.trigger != "" && strings.Contains(s, tc.trigger) {
					once.Do(func() { time.AfterFunc(tc.after, stop) })
				}
			}
			rec, err := Execute(ctx, spec, env)
			mu.Lock()
			took := time.Since(cancelled)
			mu.Unlock()
			if err == nil || rec == nil || cancelled.IsZero() {
				t.Fatalf("err %v, record %v, cancelled %v\n%s", err, rec != nil, !cancelled.IsZero(), log)
			}
			if tc.trigger == "" && restarts != 2 {
				t.Errorf("%d restarts, want 2 (apply, put back)\n%s", restarts, log)
			}
			if took > tc.maxTaken {
				b, _ := os.ReadFile(c.LogFile())
				t.Logf("the server's log:\n%s", b)
				t.Errorf("Execute returned %v after the cancel, want at most %v\n%s", took, tc.maxTaken, log)
			}
			if got := ownState(t, c, url); got != before {
				t.Errorf("the server changed:\nbefore:\n%s\nafter:\n%s\nlog:\n%s", before, got, log)
			}
			if _, err := os.Stat(filepath.Join(env.Dir, RestoreFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("restore.json is still there: %v", err)
			}
			loaded, err := LoadRecord(env.Dir)
			if err != nil || loaded.EndedAt.IsZero() || !loaded.Interrupted || loaded.Reason != "SIGTERM" || loaded.Unrestored {
				t.Errorf("experiment.json: %v, %+v", err, loaded)
			}
		})
	}
}

type restarterFunc func(context.Context) error

func (f restarterFunc) Restart(ctx context.Context) error { return f(ctx) }

// oneSQLFile writes an experiment file beside one.sql (SELECT 1) and parses
// it.
func oneSQLFile(t *testing.T, text string) *Spec {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one.sql"), []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "exp.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}
