package cli

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// csvRows reads a collector file of a run directory: header → column index,
// and the rows.
func csvRows(t *testing.T, dir, name string) (map[string]int, [][]string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(recs) == 0 {
		t.Fatalf("%s is empty", name)
	}
	cols := map[string]int{}
	for i, h := range recs[0] {
		cols[h] = i
	}
	for _, c := range []string{"time", "elapsed_s"} {
		if _, ok := cols[c]; !ok {
			t.Fatalf("%s has no %s column: %v", name, c, recs[0])
		}
	}
	return cols, recs[1:]
}

func rowTimeOf(t *testing.T, cols map[string]int, row []string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, row[cols["time"]])
	if err != nil {
		t.Fatalf("time %q: %v", row[cols["time"]], err)
	}
	return v
}

// TestRunCollectors: a short run with every collector: the files exist with
// rows on the run's clock, run.json has the server, host and evidence, the
// summary prints the Evidence section.
func TestRunCollectors(t *testing.T) {
	url := runTestDB(t)
	pgtest.Measure(t) // sustained load: not beside another measurement
	pgtest.Exec(t, url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
	dir := filepath.Join(t.TempDir(), "run")
	out, _ := mustRun(t, 0, "run", url, "--rate", "200", "-T", "3s", "--warmup", "1s", "-c", "2", "-b", "tpcb-like",
		"--quiet", "--run-dir", dir)
	run, _ := checkRunDir(t, dir)
	if strings.Join(run.Collectors, ",") != "waits,statements,server,os" {
		t.Errorf("collectors %v, warnings %v", run.Collectors, run.Warnings)
	}
	for _, w := range run.Warnings {
		t.Logf("warning: %s", w)
	}
	if run.Server == nil || run.Server.VersionNum < 130000 || run.Server.Settings["shared_buffers"] == "" || len(run.Server.Tables) == 0 {
		t.Errorf("server info: %+v", run.Server)
	}
	if run.Host == nil || !run.Host.Local || run.Host.CPUs < 1 || run.Host.MemoryBytes <= 0 {
		t.Errorf("host: %+v", run.Host)
	}
	ev := run.Evidence
	if ev == nil {
		t.Fatal("no evidence in run.json")
	}
	if ev.WALBytes <= 0 || ev.WALBytesPerTx <= 0 || ev.BlocksHit <= 0 || ev.HitRatio <= 0 || ev.HitRatio > 1 {
		t.Errorf("server evidence: WAL %d B (%.0f per tx), hit %d, ratio %.3f", ev.WALBytes, ev.WALBytesPerTx, ev.BlocksHit, ev.HitRatio)
	}
	if len(ev.Statements) == 0 || ev.Statements[0].Calls <= 0 {
		t.Errorf("statement evidence: %+v", ev.Statements)
	}
	// pgtrial's own CPU (getrusage over the measured phase), in CPUs.
	if ev.CPU == nil || ev.ClientCPU <= 0 || ev.ClientCPU > float64(runtime.NumCPU()) {
		t.Errorf("OS evidence: cpu %+v, client %v CPUs", ev.CPU, ev.ClientCPU)
	}
	for _, f := range []string{results.WaitsFile, results.StatementsFile, results.ServerFile, results.OSFile} {
		_, rows := csvRows(t, dir, f)
		if len(rows) == 0 {
			t.Errorf("%s has no rows", f)
		}
	}
	// Server rows every second on the run's grid: elapsed_s is a whole number of seconds.
	cols, rows := csvRows(t, dir, results.ServerFile)
	for _, r := range rows {
		e, _ := strconv.ParseFloat(r[cols["elapsed_s"]], 64)
		if e != float64(int(e)) {
			t.Errorf("server.csv row at elapsed %v s: not on the 1 s grid", e)
		}
	}
	for _, want := range []string{"evidence (measured window", "checkpoints", "WAL", "hit ratio", "statements by total time", "CPU", "checklist", "open_model_latency"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}

	// --no-collect: none of it.
	dir2 := filepath.Join(t.TempDir(), "run")
	mustRun(t, 0, "run", url, "--rate", "100", "-T", "1s", "--warmup", "0s", "-c", "1", "-b", "select-only", "--quiet", "--no-collect", "--run-dir", dir2)
	run2, _ := checkRunDir(t, dir2)
	if len(run2.Collectors) != 0 || run2.Evidence != nil || run2.Server != nil {
		t.Errorf("--no-collect: collectors %v, evidence %v", run2.Collectors, run2.Evidence)
	}
	for _, f := range []string{results.WaitsFile, results.StatementsFile, results.ServerFile, results.OSFile} {
		if _, err := os.Stat(filepath.Join(dir2, f)); err == nil {
			t.Errorf("--no-collect wrote %s", f)
		}
	}
}

// TestRunEvidenceLockStall (issue acceptance): another session holds ACCESS
// EXCLUSIVE on pgbench_accounts for 3 s during an open-model select-only
// run; waits.csv shows Lock waits of client backends in the intervals that
// overlap the stall, and in no interval that lies wholly outside it.
func TestRunEvidenceLockStall(t *testing.T) {
	url := runTestDB(t)
	pgtest.Measure(t) // sustained load: not beside another measurement
	dir := filepath.Join(t.TempDir(), "run")
	const stallAt, stallFor = 4 * time.Second, 3 * time.Second

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	locker, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(context.Background())
	var held, released time.Time
	lockDone := make(chan error, 1)
	start := time.Now()
	go func() {
		time.Sleep(stallAt)
		tx, err := locker.Begin(ctx)
		if err != nil {
			lockDone <- err
			return
		}
		if _, err := tx.Exec(ctx, "LOCK TABLE pgbench_accounts IN ACCESS EXCLUSIVE MODE"); err != nil {
			lockDone <- err
			return
		}
		held = time.Now()
		time.Sleep(stallFor)
		released = time.Now()
		lockDone <- tx.Rollback(ctx)
	}()
	mustRun(t, 0, "run", url, "--rate", "100", "-T", "10s", "--warmup", "0s", "-c", "4", "-b", "select-only",
		"--quiet", "--collect", "waits", "--run-dir", dir)
	if err := <-lockDone; err != nil {
		t.Fatal(err)
	}
	t.Logf("lock held from %.3f s to %.3f s after the command started", held.Sub(start).Seconds(), released.Sub(start).Seconds())

	cols, rows := csvRows(t, dir, results.WaitsFile)
	const iv = time.Second
	tolerance := 150 * time.Millisecond // one wait sample (100 ms) and scheduling
	lockIntervals, stallIntervals := 0, 0
	seen := map[time.Time]bool{}
	for _, r := range rows {
		end := rowTimeOf(t, cols, r)
		begin := end.Add(-iv)
		inside := !begin.Before(held) && !end.After(released)                                 // wholly in the stall
		outside := !end.After(held.Add(-tolerance)) || !begin.Before(released.Add(tolerance)) // wholly out of it
		isLock := r[cols["class"]] == "client" && r[cols["wait_event_type"]] == "Lock"
		if isLock {
			lockIntervals++
			n, _ := strconv.Atoi(r[cols["samples"]])
			if n <= 0 {
				t.Errorf("Lock row with %d samples: %v", n, r)
			}
			if outside {
				t.Errorf("Lock waits in the interval ending %s, outside the stall [%s, %s]", end.Format("15:04:05.000"), held.Format("15:04:05.000"), released.Format("15:04:05.000"))
			}
			seen[end] = true
		}
		if inside && !seen[end] {
			stallIntervals++
		}
	}
	// Every interval wholly inside the stall has Lock samples.
	for _, r := range rows {
		end := rowTimeOf(t, cols, r)
		if !end.Add(-iv).Before(held) && !end.After(released) && !seen[end] {
			t.Errorf("no Lock waits in the interval ending %s, inside the stall", end.Format("15:04:05.000"))
		}
	}
	if lockIntervals < 2 {
		t.Errorf("%d intervals with Lock waits for a 3 s stall", lockIntervals)
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Evidence == nil || len(run.Evidence.Waits) == 0 {
		t.Fatalf("no wait evidence: %+v", run.Evidence)
	}
	found := false
	for _, w := range run.Evidence.Waits {
		found = found || (w.Type == "Lock" && w.Event == "relation" && w.Share > 0.1)
	}
	if !found {
		t.Errorf("evidence waits lack Lock:relation above 10 %%: %+v", run.Evidence.Waits)
	}
}

// TestRunEvidenceCheckpoints (issue acceptance, the lab of seeds/001): a
// 90 s run with checkpoint_timeout=30s and full_page_writes on records at
// least 2 checkpoint events with write and sync times, and the full-page
// images of the 5 s after a checkpoint starts are more than 5× those of the
// 5 s before it.
func TestRunEvidenceCheckpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("90 s run; not with -short")
	}
	url := runTestDB(t)
	pgtest.Measure(t) // sustained load: not beside another measurement
	// Server-wide settings, restored after: not parallel.
	pgtest.Exec(t, url, "ALTER SYSTEM SET checkpoint_timeout = '30s'", "ALTER SYSTEM SET full_page_writes = on", "SELECT pg_reload_conf()")
	t.Cleanup(func() {
		pgtest.Exec(t, url, "ALTER SYSTEM RESET checkpoint_timeout", "ALTER SYSTEM RESET full_page_writes", "SELECT pg_reload_conf()")
	})
	pgtest.Exec(t, url, "CHECKPOINT") // the next timed one is 30 s from now
	dir := filepath.Join(t.TempDir(), "run")
	mustRun(t, 0, "run", url, "--rate", "300", "-T", "90s", "--warmup", "0s", "-c", "2", "-b", "tpcb-like",
		"--quiet", "--collect", "server", "--run-dir", dir)

	events, err := results.ReadEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	var starts []time.Time
	for _, e := range events {
		if e.Kind != results.EventCheckpoint {
			continue
		}
		t.Logf("checkpoint event %s: %v", e.Time.Format("15:04:05.000"), e.Data)
		if e.Data["write_ms"] == nil || e.Data["sync_ms"] == nil {
			t.Errorf("checkpoint event without write/sync times: %+v", e.Data)
		}
		// The event is the completion; checkpoint_time (pg_control, 1 s
		// resolution) is when the checkpoint started, the redo point
		// after which every first change of a page writes its image.
		st, _ := e.Data["checkpoint_time"].(string)
		start, err := time.Parse(time.RFC3339, st)
		if err != nil {
			t.Errorf("checkpoint event without its start time: %+v", e.Data)
			continue
		}
		starts = append(starts, start)
	}
	if len(starts) < 2 {
		t.Fatalf("%d checkpoint events in 90 s with checkpoint_timeout=30s", len(starts))
	}
	cols, rows := csvRows(t, dir, results.ServerFile)
	fpi := func(from, to time.Time) (n int64) {
		for _, r := range rows {
			if end := rowTimeOf(t, cols, r); end.After(from) && !end.After(to) {
				v, _ := strconv.ParseInt(r[cols["wal_fpi"]], 10, 64)
				n += v
			}
		}
		return n
	}
	compared := 0
	runStart, runEnd := rowTimeOf(t, cols, rows[0]), rowTimeOf(t, cols, rows[len(rows)-1])
	for _, s := range starts {
		// pg_control's second resolution: the start is in [s, s+1 s).
		if s.Add(-5*time.Second).Before(runStart) || s.Add(6*time.Second).After(runEnd) {
			continue // not 5 s of run on both sides
		}
		before, after := fpi(s.Add(-5*time.Second), s), fpi(s, s.Add(5*time.Second))
		t.Logf("checkpoint at %s: FPI %d in the 5 s before, %d in the 5 s after", s.Format("15:04:05"), before, after)
		if after <= 5*before {
			t.Errorf("checkpoint at %s: FPI after %d is not more than 5× before %d", s.Format("15:04:05"), after, before)
		}
		compared++
	}
	if compared == 0 {
		t.Errorf("no checkpoint with 5 s of run on both sides: %v", starts)
	}
}
