package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// frozenRun is a `pgtrial run` process against a server the test freezes.
type frozenRun struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	began          time.Time
	exited         chan error
}

func startPgtrial(t *testing.T, bin string, args ...string) *frozenRun {
	t.Helper()
	p := &frozenRun{cmd: exec.Command(bin, args...), exited: make(chan error, 1)}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.began = time.Now()
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

// waitRows waits until dir's timeline has n rows (at most limit).
func (p *frozenRun) waitRows(t *testing.T, dir string, n int, limit time.Duration) {
	t.Helper()
	for {
		rows, _ := results.ReadTimeline(dir)
		if len(rows) >= n {
			return
		}
		select {
		case err := <-p.exited:
			p.exited <- err
			t.Fatalf("pgtrial exited (%v) before %d timeline rows\nstderr:\n%s", err, n, p.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Since(p.began) > limit {
			t.Fatalf("%d timeline rows after %v, want %d\nstderr:\n%s", len(rows), limit, n, p.stderr.String())
		}
	}
}

// wait waits for the exit (at most limit after since) and returns when it
// came and the process's error.
func (p *frozenRun) wait(t *testing.T, since time.Time, limit time.Duration) (time.Time, error) {
	t.Helper()
	select {
	case err := <-p.exited:
		return time.Now(), err
	case <-time.After(time.Until(since.Add(limit))):
		t.Fatalf("pgtrial still running %v later\nstdout:\n%s\nstderr:\n%s", limit, p.stdout.String(), p.stderr.String())
		return time.Time{}, nil
	}
}

// completeRun checks that dir's run.json is final and readable as compare
// reads it, and returns it.
func completeRun(t *testing.T, dir string) *results.Run {
	t.Helper()
	run, err := results.Load(dir)
	if err != nil {
		t.Fatalf("results.Load: %v", err)
	}
	if run.Summary == nil || run.EndedAt.IsZero() || len(run.Phases) == 0 {
		t.Fatalf("run.json not final: summary %v, ended_at %v, phases %v", run.Summary != nil, run.EndedAt, run.Phases)
	}
	if _, err := compare.LoadSide("A", []string{dir}); err != nil {
		t.Errorf("compare's reader refuses the run: %v", err)
	}
	return run
}

// TestRunFrozenServer: `pgtrial run` against a server frozen with SIGSTOP
// (a cluster of the test's own).
//
//   - end (defect 3's acceptance): -T 10s with the server frozen from 8 s on
//     ends within 12 s of its start (it ran until the server came back:
//     41 s for -T 20s), measured 10 s, with the unstarted slots counted and
//     a response p99 that shows the stall (≥ 1 s; it was 4.66 ms);
//   - sigint (defect 4): a first SIGINT returns within a few seconds (it
//     waited 2 s per client on cancel requests, then on the collectors)
//     with a complete run.json that compare reads;
//   - sigint-twice: SIGINT then SIGINT leaves run.json complete, with its
//     summary, end and interrupted mark (it was a 1.7 KB stub).
func TestRunFrozenServer(t *testing.T) {
	c := pgtest.OwnCluster(t, pgtest.Own{})
	url := c.URL("postgres")
	bin := pgtest.BuildPgtrial(t)
	scriptFile := filepath.Join(t.TempDir(), "one.sql")
	if err := os.WriteFile(scriptFile, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("end", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		p := startPgtrial(t, bin, "run", url, "-T", "10s", "--warmup", "0s", "--rate", "200", "-c", "4", "-f", scriptFile, "--run-dir", dir)
		p.waitRows(t, dir, 8, 30*time.Second) // the row of 8 s: the bench start + 8 s
		thaw := pgtest.Freeze(t, c)
		frozenAt := time.Now()
		exitAt, err := p.wait(t, frozenAt, 12*time.Second) // the freeze lasts until 20 s
		thaw()
		t.Logf("exit %v, %v after the start, %v after the freeze\nstdout:\n%s\nstderr:\n%s",
			err, exitAt.Sub(p.began), exitAt.Sub(frozenAt), p.stdout.String(), p.stderr.String())
		if d := exitAt.Sub(p.began); d > 12*time.Second {
			t.Errorf("the run ended %v after its start, want ≤ 12 s", d)
		}
		run := completeRun(t, dir)
		tot := run.Summary.Total
		t.Logf("measured %.3f s, committed %d, unstarted %d, unfinished %d, failed %d; response p99 %.1f ms, max %.1f ms",
			run.Summary.Duration, tot.Committed, tot.Unstarted, tot.Unfinished, tot.Failed, tot.Response.P99, tot.Response.Max)
		if d := run.Summary.Duration; d < 9.95 || d > 10.05 {
			t.Errorf("measured %.3f s, want 10 s", d)
		}
		if tot.Unstarted < 200 || tot.Unfinished < 1 {
			t.Errorf("unstarted %d (want ≈ 400: 2 s at 200/s), unfinished %d", tot.Unstarted, tot.Unfinished)
		}
		if tot.Response.P99 < 1000 {
			t.Errorf("response p99 %.1f ms: the stall does not show", tot.Response.P99)
		}
		if !strings.Contains(p.stdout.String(), "unstarted") {
			t.Errorf("the summary does not say how many slots never started:\n%s", p.stdout.String())
		}
		if run.Interrupted {
			t.Errorf("marked interrupted (%s)", run.InterruptReason)
		}
	})

	for _, twice := range []bool{false, true} {
		name := "sigint"
		if twice {
			name = "sigint-twice"
		}
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			p := startPgtrial(t, bin, "run", url, "-T", "60s", "--warmup", "0s", "--rate", "100", "-c", "4", "-f", scriptFile, "--run-dir", dir)
			p.waitRows(t, dir, 2, 30*time.Second)
			thaw := pgtest.Freeze(t, c)
			defer thaw()
			time.Sleep(300 * time.Millisecond) // every client waits for the server
			sent := time.Now()
			if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			if twice {
				time.Sleep(100 * time.Millisecond)
				if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
			}
			limit := 4 * time.Second
			exitAt, err := p.wait(t, sent, limit)
			t.Logf("exit %v, %v after the first SIGINT\nstdout:\n%s\nstderr:\n%s", err, exitAt.Sub(sent), p.stdout.String(), p.stderr.String())
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitRunFail {
				t.Errorf("exit %v, want status %d", err, exitRunFail)
			}
			run := completeRun(t, dir)
			if !run.Interrupted || run.InterruptReason != "SIGINT" {
				t.Errorf("interrupted %v, reason %q; want SIGINT", run.Interrupted, run.InterruptReason)
			}
			if run.Summary.Total.Committed == 0 || run.Summary.Duration <= 0 {
				t.Errorf("summary: committed %d in %.3f s", run.Summary.Total.Committed, run.Summary.Duration)
			}
		})
	}
}
