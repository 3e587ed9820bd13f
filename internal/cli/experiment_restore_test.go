package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// restoreCluster is a cluster of the test's own (the experiments ALTER
// SYSTEM it), destroyed at the end.
func restoreCluster(t *testing.T) (*localpg.Cluster, string) {
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

// serverState is what an experiment must leave as it found it:
// postgresql.auto.conf (the file) and the tables outside the catalogs.
func serverState(t *testing.T, c *localpg.Cluster, url string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.DataDir(), "postgresql.auto.conf"))
	if err != nil {
		t.Fatal(err)
	}
	var tables string
	pgtest.QueryRow(t, url, `SELECT coalesce(string_agg(schemaname || '.' || tablename, ',' ORDER BY 1), '')
		FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`, nil, &tables)
	return string(data) + "\ntables: " + tables
}

// expProc is a pgtrial experiment running as a process.
type expProc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	exited         chan error
}

func startExperiment(t *testing.T, bin string, args ...string) *expProc {
	t.Helper()
	p := &expProc{cmd: exec.Command(bin, args...), exited: make(chan error, 1)}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// waitRun waits (at most 30 s) until the experiment's first run has written
// a timeline row: the variant is applied, the run is under way.
func (p *expProc) waitRun(t *testing.T, runDir string) {
	t.Helper()
	began := time.Now()
	for {
		if rows, _ := results.ReadTimeline(runDir); len(rows) >= 1 {
			return
		}
		select {
		case err := <-p.exited:
			t.Fatalf("the experiment exited (%v) before its run\nstderr:\n%s", err, p.stderr.String())
		default:
		}
		if time.Since(began) > 30*time.Second {
			t.Fatalf("no timeline row in %s after 30 s\nstderr:\n%s", runDir, p.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// wait waits (at most d) for the exit and returns cmd.Wait's error.
func (p *expProc) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case err := <-p.exited:
		return err
	case <-time.After(d):
		t.Fatalf("still running %v after the signal\nstderr:\n%s", d, p.stderr.String())
		return nil
	}
}

// TestExperimentSignalsRestore: an experiment whose variant changes two
// settings (work_mem, absent from postgresql.auto.conf before, and
// random_page_cost, present) and whose setup creates a table is stopped by
// a double SIGINT 20 ms apart, a SIGHUP, a SIGTERM, and kill -9 followed by
// --restore: each time postgresql.auto.conf and the table list are as they
// were, and experiment.json has an end and interrupted. After the kill -9,
// a second experiment is refused (the marker) until --force; a second
// --restore has nothing to do.
func TestExperimentSignalsRestore(t *testing.T) {
	c, url := restoreCluster(t)
	bin := pgtest.BuildPgtrial(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "one.sql")
	if err := os.WriteFile(script, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "sig.yaml")
	if err := os.WriteFile(file, []byte(`
name: sig
workload: {scripts: [{file: one.sql}]}
load: {clients: 1, rate: 50}
protocol: {warmup: 0s, window: 6s, repeats: 1}
variants:
  - name: b
    settings: {work_mem: 7MB, random_page_cost: 1.7}
    setup: ["CREATE TABLE sig_probe (x int)"]
    teardown: ["DROP TABLE sig_probe"]
collect: false
`), 0o644); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, url, "ALTER SYSTEM SET random_page_cost = 3.25", "SELECT pg_reload_conf()")
	before := serverState(t, c, url)

	// during starts the experiment into a new directory, waits for its run,
	// checks that the server holds the variant, and returns the process.
	during := func(t *testing.T, name string) (*expProc, string) {
		expDir := filepath.Join(dir, name)
		p := startExperiment(t, bin, "experiment", "--url", url, "--dir", expDir, "--quiet", file)
		p.waitRun(t, filepath.Join(expDir, experiment.RunsDir, "001-b-r1"))
		if mid := serverState(t, c, url); !strings.Contains(mid, "work_mem = '7MB'") || !strings.Contains(mid, "pgtrial.unrestored") || !strings.Contains(mid, "sig_probe") {
			t.Fatalf("during the run the server does not hold the variant:\n%s", mid)
		}
		if fi, err := os.Stat(filepath.Join(expDir, experiment.RestoreFile)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("restore.json during the run: %v, %v", fi, err)
		}
		return p, expDir
	}
	after := func(t *testing.T, expDir string, wantReason string) {
		t.Helper()
		if got := serverState(t, c, url); got != before {
			t.Errorf("the server changed:\nbefore:\n%s\nafter:\n%s", before, got)
		}
		rec, err := experiment.LoadRecord(expDir)
		if err != nil {
			t.Fatal(err)
		}
		if rec.EndedAt.IsZero() || !rec.Interrupted || rec.Reason != wantReason || rec.Unrestored {
			t.Errorf("experiment.json: ended %v, interrupted %v, reason %q (want %q), unrestored %v", rec.EndedAt, rec.Interrupted, rec.Reason, wantReason, rec.Unrestored)
		}
		if _, err := os.Stat(filepath.Join(expDir, experiment.RestoreFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("restore.json is still there: %v", err)
		}
	}

	for _, tc := range []struct {
		name string
		sigs []os.Signal
	}{
		{"double-sigint", []os.Signal{os.Interrupt, os.Interrupt}},
		{"sighup", []os.Signal{syscall.SIGHUP}},
		{"sigterm", []os.Signal{syscall.SIGTERM}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, expDir := during(t, tc.name)
			for i, s := range tc.sigs {
				if i > 0 {
					time.Sleep(20 * time.Millisecond)
				}
				if err := p.cmd.Process.Signal(s); err != nil {
					t.Fatal(err)
				}
			}
			err := p.wait(t, 40*time.Second)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitRunFail {
				t.Errorf("exit: %v, want status %d\nstderr:\n%s", err, exitRunFail, p.stderr.String())
			}
			after(t, expDir, signalName(tc.sigs[0]))
			if t.Failed() {
				t.Logf("stderr:\n%s", p.stderr.String())
			}
		})
	}

	t.Run("kill-9", func(t *testing.T) {
		p, expDir := during(t, "kill")
		if err := p.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		p.wait(t, 10*time.Second)
		if got := serverState(t, c, url); got == before {
			t.Fatal("kill -9 left nothing behind: the test does not test --restore")
		}

		// Another experiment is refused, naming the directory; --force runs it.
		other := filepath.Join(dir, "other.yaml")
		if err := os.WriteFile(other, []byte(`
name: other
workload: {scripts: [{file: one.sql}]}
load: {clients: 1, rate: 50}
protocol: {warmup: 0s, window: 1s, repeats: 1}
variants: [{name: f, settings: {work_mem: 5MB}}]
collect: false
`), 0o644); err != nil {
			t.Fatal(err)
		}
		q := startExperiment(t, bin, "experiment", "--url", url, "--dir", filepath.Join(dir, "refused"), "--quiet", other)
		err := q.wait(t, 30*time.Second)
		var ee *exec.ExitError
		msg := q.stderr.String()
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(msg, "pgtrial experiment --restore "+expDir) ||
			!strings.Contains(msg, "--force") || !strings.Contains(msg, "did not put back") {
			t.Errorf("a second experiment on the marked server: %v\n%s", err, msg)
		}
		q = startExperiment(t, bin, "experiment", "--url", url, "--dir", filepath.Join(dir, "forced"), "--quiet", "--force", other)
		if err := q.wait(t, 40*time.Second); err != nil {
			t.Errorf("--force: %v\n%s", err, q.stderr.String())
		}
		// The forced experiment leaves the killed one's marker in place.
		if mid := serverState(t, c, url); !strings.Contains(mid, "pgtrial.unrestored = '"+expDir+"'") {
			t.Errorf("after the forced experiment the marker is gone:\n%s", mid)
		}

		out, err := exec.Command(bin, "experiment", "--restore", expDir).CombinedOutput()
		if err != nil {
			t.Fatalf("--restore: %v\n%s", err, out)
		}
		for _, want := range []string{"restored work_mem reset", "restored random_page_cost = \"3.25\"", "reset pgtrial.unrestored", "1 of 1 statements ran", "the server is back"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("--restore says no %q:\n%s", want, out)
			}
		}
		after(t, expDir, "killed")
		out, err = exec.Command(bin, "experiment", "--restore", expDir).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "nothing to restore") {
			t.Errorf("second --restore: %v\n%s", err, out)
		}
	})
}
