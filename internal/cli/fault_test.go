package cli

// The fault suite (issue 14): the real `pgtrial run` binary against a cluster
// of the test's own, and a fault injected mid-run: a fast restart, kill -9 of
// the postmaster, pg_terminate_backend of the clients' backends, and the
// connection slots exhausted while the clients reconnect. Each test asserts
// the counts by class in run.json's summary and a complete run directory.
//
// `pgtrial run` always reconnects (trial.go sets engine.Config.Reconnect;
// there is no flag): a lost or refused connection fails the transaction it
// was running or about to run, class "connection", and the client connects
// again.
//
// Timing of every test: the run is -T 8s after a 1 s warm-up, 200 tx/s with
// uniform arrivals (so the slots scheduled in the measured window are
// rate × duration exactly), 1 s intervals; the fault comes once two measured
// intervals are written and lasts 1–3 s, so at least three intervals before
// the end are after it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/loader"
	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// The load of every fault test (see the file comment).
const (
	faultRate     = 200
	faultDuration = 8 * time.Second
	faultWarmup   = 1 * time.Second
	faultDB       = "fault"
)

// ownCluster creates and starts a cluster of the test's own (never the
// shared pgtest cluster: these tests restart and kill it), with pgtest's
// durability-off settings plus extra, a database faultDB holding pgbench's
// tables at scale 1, and destroys it when the test ends. Skipped without
// PostgreSQL binaries (fails under CI=true).
func ownCluster(t *testing.T, extra map[string]string) *localpg.Cluster {
	t.Helper()
	began := time.Now()
	settings := map[string]string{"shared_buffers": "128MB"}
	for k, v := range extra {
		settings[k] = v
	}
	c := pgtest.OwnCluster(t, pgtest.Own{Settings: settings})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := c.Connect(ctx, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+faultDB)
	conn.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Every collector: the statements collector needs the extension in the
	// run's database (preloaded by localpg when it is installed).
	if conn, err = c.Connect(ctx, faultDB); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
		t.Logf("no pg_stat_statements, the run goes without its collector: %v", err)
	}
	conn.Close(context.Background())
	cfg, err := pgconn.ParseConfig(c.URL(faultDB))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loader.Run(ctx, loader.Config{Conn: cfg, Schema: workload.Pgbench{Scale: 1, Fillfactor: 100},
		Steps: "dtgvp", Format: workload.CopyBinary, Out: io.Discard}); err != nil {
		t.Fatalf("load pgbench's tables: %v", err)
	}
	t.Logf("own cluster ready in %.1f s", time.Since(began).Seconds())
	return c
}

// faultRun is a `pgtrial run` process of a fault test.
type faultRun struct {
	cmd            *exec.Cmd
	dir            string
	stdout, stderr bytes.Buffer
	exited         chan error
}

// startFaultRun starts the binary bin: `run URL` with the suite's load, the
// run directory dir, --json, and every collector (the default).
func startFaultRun(t *testing.T, bin, url, dir string) *faultRun {
	t.Helper()
	r := &faultRun{dir: dir, exited: make(chan error, 1)}
	r.cmd = exec.Command(bin, "run", url, "-b", "select-only", "--rate", fmt.Sprint(faultRate), "--arrival", "uniform",
		"-c", "4", "-j", "2", "-T", faultDuration.String(), "--warmup", faultWarmup.String(), "--quiet", "--json", "--run-dir", dir)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.exited <- r.cmd.Wait() }()
	t.Cleanup(func() {
		if r.cmd.ProcessState == nil {
			r.cmd.Process.Kill()
			<-r.exited
		}
	})
	return r
}

// awaitMeasured waits until the run has written n timeline rows of the
// measured phase (at most 30 s).
func (r *faultRun) awaitMeasured(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rows, _ := results.ReadTimeline(r.dir)
		k := 0
		for _, row := range rows {
			if row.Phase == results.PhaseMeasure {
				k++
			}
		}
		if k >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d measured timeline rows after 30 s, want %d\nstderr:\n%s", k, n, r.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// wait waits for the exit (at most 20 s) and returns the exit status.
func (r *faultRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-r.exited:
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ee):
			return ee.ExitCode()
		default:
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("pgtrial run still running 20 s after the fault\nstderr:\n%s", r.stderr.String())
	}
	return -1
}

// fault is when a fault was injected: from the first action to the server
// serving again.
type fault struct{ from, to time.Time }

// checkFaultRun checks a finished fault run: exit 0; a complete run
// directory (checkRunDir: run.json with summary and ended_at, the summary
// equal to the measured timeline rows, the latency log); the counts by class
// (committed > 0; connection failures > 0 when wantConn; the classes summing
// to the failures; --json's summary equal to run.json's; every slot of the
// window accounted for); measured timeline rows covering the window with
// commits before and after the fault; and events.jsonl's first connection
// failure inside the fault when wantConn.
func checkFaultRun(t *testing.T, r *faultRun, f fault, wantConn bool) *results.Run {
	t.Helper()
	code := r.wait(t)
	t.Logf("fault from %s to %s (%.2f s)", f.from.Format("15:04:05.000"), f.to.Format("15:04:05.000"), f.to.Sub(f.from).Seconds())
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, r.stderr.String())
	}
	run, rows := checkRunDir(t, r.dir)
	s := run.Summary
	tot := s.Total
	t.Logf("committed %d, failed %d %v, skipped %d, dropped %d; measured %.3f s; aborted %v; warnings %q",
		tot.Committed, tot.Failed, tot.FailedBy, tot.Skipped, tot.Dropped, s.Duration, run.Aborted, run.Warnings)
	if run.Interrupted || run.Aborted {
		t.Errorf("interrupted %v, aborted %v", run.Interrupted, run.Aborted)
	}

	// Counts by class.
	if tot.Committed <= 0 {
		t.Errorf("committed %d, want > 0", tot.Committed)
	}
	if conn := tot.FailedBy["connection"]; wantConn && conn <= 0 {
		t.Errorf("failed by connection %d, want > 0\nstderr:\n%s", conn, r.stderr.String())
	}
	var byClass int64
	for _, n := range tot.FailedBy {
		byClass += n
	}
	if byClass != tot.Failed {
		t.Errorf("failed by class %v sums to %d, failed %d", tot.FailedBy, byClass, tot.Failed)
	}
	if other := tot.FailedBy["other"] + tot.FailedBy["serialization"] + tot.FailedBy["deadlock"]; other != 0 {
		t.Errorf("failures of other classes %v: a connection fault is class connection", tot.FailedBy)
	}
	// What the engine reported (--json on stdout) is what run.json holds.
	var printed results.Summary
	if err := json.Unmarshal(r.stdout.Bytes(), &printed); err != nil {
		t.Errorf("--json output: %v\n%s", err, r.stdout.String())
	} else if p := printed.Total; p.Committed != tot.Committed || p.Failed != tot.Failed || p.Skipped != tot.Skipped || p.Dropped != tot.Dropped {
		t.Errorf("--json total: committed %d, failed %d, skipped %d, dropped %d; run.json %d, %d, %d, %d",
			p.Committed, p.Failed, p.Skipped, p.Dropped, tot.Committed, tot.Failed, tot.Skipped, tot.Dropped)
	}
	if started := float64(tot.Committed + tot.Failed); math.Abs(s.AchievedRate*s.Duration-started) > 0.5 {
		t.Errorf("achieved rate %.3f × %.3f s = %.1f, committed + failed = %.0f", s.AchievedRate, s.Duration, s.AchievedRate*s.Duration, started)
	}
	// Every slot scheduled in the window is in some count: uniform arrivals
	// schedule rate × duration of them. A slot queued behind the outage
	// starts late (its latency shows it), so the counts may fall short of
	// the schedule only by what was still queued at the end: at most a
	// second of slots here, where every outage ends 3 s before the end.
	var timelineSkipped, timelineDropped, timelineFailed int64
	for _, row := range rows {
		if row.Phase == results.PhaseMeasure {
			timelineSkipped += row.Skipped
			timelineDropped += row.Dropped
			timelineFailed += row.Failed
		}
	}
	if timelineSkipped != tot.Skipped || timelineDropped != tot.Dropped || timelineFailed != tot.Failed {
		t.Errorf("measured timeline rows: skipped %d, dropped %d, failed %d; summary %d, %d, %d",
			timelineSkipped, timelineDropped, timelineFailed, tot.Skipped, tot.Dropped, tot.Failed)
	}
	scheduled := faultRate * s.Duration
	counted := float64(tot.Committed + tot.Failed + tot.Skipped + tot.Dropped)
	if counted < scheduled-faultRate || counted > scheduled+faultRate/10 {
		t.Errorf("committed + failed + skipped + dropped = %.0f; %.0f slots were scheduled in %.3f s at %d/s",
			counted, scheduled, s.Duration, faultRate)
	}

	// The timeline covers the window: one row per interval, contiguous, from
	// the measured phase's start to its end, with commits before the fault
	// and after it.
	var measured []results.TimelineRow
	for _, row := range rows {
		if row.Phase == results.PhaseMeasure {
			measured = append(measured, row)
		}
	}
	want := int(faultDuration / time.Second)
	if len(measured) < want-1 || len(measured) > want+1 {
		t.Errorf("%d measured timeline rows, want %d (±1)", len(measured), want)
	}
	var before, after int64
	var table []string
	for _, row := range measured {
		table = append(table, fmt.Sprintf("%s %.3f committed %d failed %d", row.Time.Format("15:04:05.000"), row.Elapsed, row.Committed, row.Failed))
	}
	t.Logf("measured timeline rows (end, elapsed_s, counts):\n  %s", strings.Join(table, "\n  "))
	for i, row := range measured {
		// One row a second; the last may be short: it ends with the phase.
		if i > 0 {
			gap := row.Elapsed - measured[i-1].Elapsed
			if gap > 1.5 || gap < 0.5 && (i < len(measured)-1 || gap <= 0) {
				t.Errorf("timeline rows %d and %d are %.3f s apart, want 1 s", i-1, i, gap)
			}
		}
		switch {
		case row.Time.Before(f.from):
			before += row.Committed
		case row.Time.Add(-time.Second).After(f.to):
			after += row.Committed
		}
	}
	if len(measured) > 0 && len(run.Phases) > 0 {
		m := run.Phases[len(run.Phases)-1]
		first, last := measured[0].Time.Add(-time.Second), measured[len(measured)-1].Time
		if d := first.Sub(m.Start); d < -100*time.Millisecond || d > 100*time.Millisecond {
			t.Errorf("the first measured row starts %v from the measured phase's start", d)
		}
		if d := m.End.Sub(last); d < -100*time.Millisecond || d > time.Second {
			t.Errorf("the last measured row ends %v before the measured phase's end", d)
		}
	}
	if before <= 0 || after <= 0 {
		t.Errorf("committed in intervals before the fault %d, after it %d: want both > 0", before, after)
	}

	// events.jsonl: the fault as the run saw it.
	events, err := results.ReadEvents(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	found := false
	for _, e := range events {
		if e.Kind != results.EventError && e.Kind != results.EventCollector {
			continue
		}
		seen = append(seen, fmt.Sprintf("%s %s %s %v", e.Time.Format("15:04:05.000"), e.Kind, e.Message, e.Data))
		if e.Kind == results.EventError && e.Data["class"] == "connection" && e.Phase == results.PhaseMeasure &&
			!e.Time.Before(f.from) && !e.Time.After(f.to.Add(2*time.Second)) {
			found = true
		}
	}
	t.Logf("error and collector events:\n  %s", strings.Join(seen, "\n  "))
	if wantConn && !found {
		t.Errorf("no first-connection-failure event in the measured phase between the fault's start and 2 s after its end")
	}
	return run
}

// TestFaultRestart: a fast restart of the server mid-run (pg_ctl stop -m
// fast, then start): the clients' transactions fail as class connection,
// they reconnect, and the run goes on to its end.
func TestFaultRestart(t *testing.T) {
	c := ownCluster(t, nil)
	bin := pgtest.BuildPgtrial(t)
	r := startFaultRun(t, bin, c.URL(faultDB), filepath.Join(t.TempDir(), "run"))
	r.awaitMeasured(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var f fault
	f.from = time.Now()
	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	f.to = time.Now()
	checkFaultRun(t, r, f, true)
}

// TestFaultKill9: kill -9 of the postmaster mid-run; the backends exit on
// the postmaster's death, connections are refused until the test starts the
// server again (crash recovery), and the run reconnects.
func TestFaultKill9(t *testing.T) {
	c := ownCluster(t, nil)
	bin := pgtest.BuildPgtrial(t)
	r := startFaultRun(t, bin, c.URL(faultDB), filepath.Join(t.TempDir(), "run"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := c.Status(ctx)
	if err != nil || st.PID <= 0 {
		t.Fatalf("postmaster pid %d: %v", st.PID, err)
	}
	r.awaitMeasured(t, 2)
	var f fault
	f.from = time.Now()
	if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // an outage of a second at least
	// The dead postmaster stays a zombie until PID 1 reaps it, and localpg
	// takes a zombie for a running server (postmasterPID checks kill(pid, 0)
	// and /proc/PID/comm): wait until it is reaped.
	for {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", st.PID)); errors.Is(err, os.ErrNotExist) {
			break
		}
		if time.Since(f.from) > 15*time.Second {
			t.Fatalf("the killed postmaster (pid %d) is still in /proc 15 s later (a zombie nobody reaps?)", st.PID)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("postmaster reaped %.2f s after the kill", time.Since(f.from).Seconds())
	// The start fails while orphaned backends still hold the shared memory
	// ("pre-existing shared memory block is still in use"): retry.
	for {
		res, err := c.Start(ctx)
		if err == nil && res.AlreadyRunning {
			t.Fatalf("start after the kill: %+v", res)
		}
		if err == nil {
			break
		}
		if time.Since(f.from) > 20*time.Second {
			t.Fatalf("no start within 20 s of the kill: %v", err)
		}
		t.Logf("start after the kill: %v", err)
		time.Sleep(200 * time.Millisecond)
	}
	f.to = time.Now()
	checkFaultRun(t, r, f, true)
}

// terminateClients terminates the backends of the run's clients (database
// faultDB, not the collectors', not conn's own) and returns how many.
func terminateClients(t *testing.T, ctx context.Context, conn *pgx.Conn, except []uint32) int {
	t.Helper()
	if except == nil {
		except = []uint32{} // pid <> ALL(NULL) would be NULL: no row
	}
	var n int
	err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = $1 AND backend_type = 'client backend' AND application_name <> $2
		AND pid <> pg_backend_pid() AND pid <> ALL($3)`, faultDB, collect.ApplicationName, except).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFaultTerminate: pg_terminate_backend of every client's backend mid-run
// (FATAL 57P01 to each; twice, a second apart): each client fails the
// transaction it was running or its next one (class connection: the engine
// finds the connection gone when it uses it) and reconnects.
func TestFaultTerminate(t *testing.T) {
	c := ownCluster(t, nil)
	bin := pgtest.BuildPgtrial(t)
	r := startFaultRun(t, bin, c.URL(faultDB), filepath.Join(t.TempDir(), "run"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := c.Connect(ctx, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	r.awaitMeasured(t, 2)
	var f fault
	f.from = time.Now()
	n1 := terminateClients(t, ctx, conn, nil)
	time.Sleep(time.Second)
	n2 := terminateClients(t, ctx, conn, nil)
	f.to = time.Now()
	t.Logf("terminated %d, then %d backends", n1, n2)
	if n1 != 4 || n2 != 4 {
		t.Errorf("terminated %d, then %d client backends; want the 4 clients' both times (reconnected in between)", n1, n2)
	}
	checkFaultRun(t, r, f, true)
}

// TestFaultSlotsExhausted: the clients' backends are terminated while the
// test holds every connection slot (max_connections 20, the superuser's
// reserved ones too), so the clients' reconnects are refused with "too many
// clients" (53300) for 2 s; then the slots are released and the clients
// reconnect.
func TestFaultSlotsExhausted(t *testing.T) {
	c := ownCluster(t, map[string]string{"max_connections": "20"})
	bin := pgtest.BuildPgtrial(t)
	r := startFaultRun(t, bin, c.URL(faultDB), filepath.Join(t.TempDir(), "run"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r.awaitMeasured(t, 2)

	var mu sync.Mutex // guards held and pids
	var held []*pgx.Conn
	var pids []uint32
	defer func() {
		for _, h := range held {
			h.Close(context.Background())
		}
	}()
	// fillFor takes every connection slot it can for d: six goroutines
	// connect over and over (a refusal, 53300, is retried), so that the
	// slots a terminated client frees go to them, not to its reconnect.
	fillFor := func(d time.Duration) (refused int) {
		deadline := time.Now().Add(d)
		var wg sync.WaitGroup
		var errs []error
		for range 6 {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					h, err := c.Connect(ctx, "postgres")
					var pe *pgconn.PgError
					mu.Lock()
					switch {
					case errors.As(err, &pe) && pe.Code == "53300":
						refused++
					case err != nil:
						errs = append(errs, err)
					default:
						held = append(held, h)
						pids = append(pids, h.PgConn().PID())
					}
					mu.Unlock()
					if err != nil {
						time.Sleep(2 * time.Millisecond)
					}
				}
			})
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("fill the connection slots: %v", errors.Join(errs...))
		}
		return refused
	}
	var f fault
	f.from = time.Now()
	if fillFor(200*time.Millisecond) == 0 {
		t.Fatalf("%d connections and no refusal; is max_connections 20?", len(held))
	}
	// Terminate the clients and take the slots they free; repeat until no
	// client holds one (bounded: a client wins a slot back now and then).
	for i := 0; ; i++ {
		n := terminateClients(t, ctx, held[0], pids)
		if n == 0 {
			break
		}
		if i == 20 {
			t.Fatalf("clients still connected after %d rounds of terminate and fill", i)
		}
		fillFor(300 * time.Millisecond)
	}
	t.Logf("holding %d connections", len(held))
	time.Sleep(2 * time.Second)
	for _, h := range held {
		h.Close(context.Background())
	}
	held = nil
	f.to = time.Now()
	checkFaultRun(t, r, f, true)
	if !strings.Contains(r.stderr.String(), "too many clients") && !eventsMention(t, r.dir, "too many clients") {
		t.Errorf("neither stderr nor events.jsonl says \"too many clients\"\nstderr:\n%s", r.stderr.String())
	}
}

// eventsMention reports whether any event of the run directory dir has s in
// its message or data.
func eventsMention(t *testing.T, dir, s string) bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, results.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(data, []byte(s))
}
