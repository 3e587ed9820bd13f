package explain

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
)

// tailTx is one synthetic slow transaction: its times (s on the run's
// clock, ms) and what its backend's samples show.
type tailTx struct {
	pid              uint32
	intended         float64 // s
	lagMs, serviceMs float64
	wait             string // "Lock:relation", "CPU", …; "" no samples of the pid (idle or unsampled)
	relation         string
}

func (x tailTx) start() float64 { return x.intended + x.lagMs/1000 }
func (x tailTx) end() float64   { return x.start() + x.serviceMs/1000 }

func (x tailTx) row() results.SlowRow {
	end := x.end()
	return results.SlowRow{Elapsed: math.Ceil(end), Script: "tpcb-like", Outcome: "committed", PID: x.pid,
		IntendedS: x.intended, StartS: x.start(), EndS: end,
		ResponseMs: x.lagMs + x.serviceMs, ServiceMs: x.serviceMs, LagMs: x.lagMs, Tries: 1}
}

// tailCase is the synthetic run of the tail tests: resultstest's 30 s open
// run (warm-up 5 s: the window is (5, 35] s on its clock) with a 3 s
// injected lock on pgbench_accounts at 15–18 s, a checkpoint at
// 12.5–18.5 s and autovacuum of pgbench_accounts seen at 20 s; its p99
// set to 8.2 ms over 10,000 transactions (100 above the p99's rank).
//
//	A 60 Lock:relation (pgbench_accounts) in the lock, lag 400 ms, service 2 s
//	H  6 queued behind 6 of A: intended in the lock, started when A's
//	  transaction on their connection ended, service 10 ms; 44 of A and the
//	  6 end in the interval (17, 18]: slow.csv's cap
//	B 10 LWLock:WALWrite in the checkpoint before the lock, 250 ms
//	G  4 Lock:transactionid, no occurrence (explained by the wait alone)
//	C  5 of 20 ms between two samples: not sampled
//	D  3 on CPU, no occurrence: unexplained
//	E  2 with pid 0: pid unknown
//	F  2 whose pid is in no sample though samples were taken: idle
//
// plus rows below the p99, rows outside the window, and pid 9999 on CPU in
// every sample from 5 to 20 s (another backend: never attributed).
func tailCase(t *testing.T, open bool) (string, *results.Run, []tailTx) {
	t.Helper()
	dir := t.TempDir()
	o := resultstest.Options{Duration: 30 * time.Second, StallAt: 10 * time.Second, StallFor: 3 * time.Second, Table: "pgbench_accounts"}
	if !open {
		o.Rate = -1
	}
	run, err := resultstest.WriteRun(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	run.Summary.Total.Response.P99, run.Summary.Total.Response.Count = 8.2, 10000

	var txs []tailTx
	add := func(n int, f func(i int) tailTx) {
		for i := range n {
			txs = append(txs, f(i))
		}
	}
	lag := func(ms float64) float64 {
		if open {
			return ms
		}
		return 0
	}
	add(60, func(i int) tailTx {
		return tailTx{pid: uint32(2000 + i), intended: 15.165 + 0.01*float64(i), lagMs: lag(400), serviceMs: 2000, wait: "Lock:relation", relation: "pgbench_accounts"}
	})
	if open {
		for i := range 6 {
			a := txs[i]
			txs = append(txs, tailTx{pid: a.pid, intended: 15.3 + 0.05*float64(i), lagMs: 1000 * (a.end() - 15.3 - 0.05*float64(i)), serviceMs: 10})
		}
	}
	add(10, func(i int) tailTx {
		return tailTx{pid: uint32(2100 + i), intended: 12.6 + 0.1*float64(i), serviceMs: 250, wait: "LWLock:WALWrite"}
	})
	add(4, func(i int) tailTx {
		return tailTx{pid: uint32(2200 + i), intended: 26.1 + 0.5*float64(i), lagMs: lag(100), serviceMs: 400, wait: "Lock:transactionid"}
	})
	add(5, func(i int) tailTx {
		return tailTx{pid: uint32(2300 + i), intended: 25.06 + float64(i), lagMs: lag(5), serviceMs: 20}
	})
	add(3, func(i int) tailTx {
		return tailTx{pid: uint32(2400 + i), intended: 28.2 + 0.4*float64(i), lagMs: lag(10), serviceMs: 300, wait: "CPU"}
	})
	add(2, func(i int) tailTx { return tailTx{pid: 0, intended: 30.1 + 0.4*float64(i), serviceMs: 50, wait: "CPU"} })
	add(2, func(i int) tailTx {
		return tailTx{pid: uint32(2500 + i), intended: 32.1 + 0.5*float64(i), serviceMs: 300}
	})

	var rows []results.SlowRow
	for _, x := range txs {
		rows = append(rows, x.row())
	}
	// Not above the p99, or outside the window: never in the finding.
	below := tailTx{pid: 2600, intended: 22.1, serviceMs: 5, wait: "CPU"}
	warm := tailTx{pid: 2601, intended: 1.5, serviceMs: 900, wait: "CPU"}
	after := tailTx{pid: 2602, intended: 35.2, serviceMs: 500, wait: "CPU"}
	for _, x := range []tailTx{below, warm, after} {
		rows = append(rows, x.row())
	}
	if err := resultstest.WriteSlow(dir, rows); err != nil {
		t.Fatal(err)
	}

	// Samples every 100 ms at x.x5 s, from 0.05 to 35.95 s.
	zero := run.BenchStart
	var act []results.ActivityRow
	for k := range 360 {
		at := 0.05 + 0.1*float64(k)
		sample := func(pid uint32, wait, relation string) {
			typ, ev, _ := strings.Cut(wait, ":")
			if wait == "CPU" {
				ev = "CPU"
			}
			act = append(act, results.ActivityRow{Time: zero.Add(time.Duration(at * float64(time.Second))), Elapsed: at,
				PeriodMs: 100, PID: pid, State: "active", Type: typ, Event: ev, Relation: relation})
		}
		n := len(act)
		if at > 5 && at < 20 {
			sample(9999, "CPU", "")
		}
		for _, x := range append(txs, below, warm, after) {
			if x.pid != 0 && x.wait != "" && at >= x.start() && at <= x.end() {
				sample(x.pid, x.wait, x.relation)
			}
		}
		if len(act) == n {
			act = append(act, results.ActivityRow{Time: zero.Add(time.Duration(at * float64(time.Second))), Elapsed: at, PeriodMs: 100})
		}
	}
	if err := resultstest.WriteActivity(dir, act); err != nil {
		t.Fatal(err)
	}
	// A last line of each cut short by a crash.
	for _, name := range []string{results.SlowFile, results.ActivityFile} {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("2026-01-02T03:04:40.000Z,33.5"); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return dir, run, txs
}

func tailGroup(tl *results.Tail, wait, part, occPrefix string) results.TailGroup {
	for _, g := range tl.Groups {
		if g.Wait == wait && g.Part == part && strings.HasPrefix(g.Occurrence, occPrefix) && (occPrefix != "" || g.Occurrence == "") {
			return g
		}
	}
	return results.TailGroup{}
}

func TestTailJoin(t *testing.T) {
	dir, run, txs := tailCase(t, true)
	tl, warns := tail(&runInput{dir: dir, run: run, cfg: Defaults()})
	if tl == nil {
		t.Fatalf("no tail finding: %v", warns)
	}
	if len(warns) != 0 {
		t.Errorf("warnings %v", warns)
	}
	for _, l := range tl.Summary {
		t.Log(l)
	}
	if tl.Kept != 92 || tl.Above != 100 || tl.CappedIntervals != 1 || tl.PerInterval != results.SlowPerInterval {
		t.Errorf("kept %d of ~%d, capped %d of %d: want 92 of ~100, 1 interval capped", tl.Kept, tl.Above, tl.CappedIntervals, tl.PerInterval)
	}
	if tl.SamplePeriodMs != 100 || !tl.Open {
		t.Errorf("period %v ms, open %v", tl.SamplePeriodMs, tl.Open)
	}
	cases := []struct {
		wait, part, occ, relation string
		n                         int
	}{
		{"Lock:relation", results.TailService, "injected lock on pgbench_accounts", "pgbench_accounts", 60}, // the stall ranks before the checkpoint it also overlaps
		{"Lock:relation", results.TailLag, "injected lock on pgbench_accounts", "pgbench_accounts", 6},      // queued behind the 60's connections
		{"LWLock:WALWrite", results.TailService, "checkpoint", "", 10},
		{"Lock:transactionid", results.TailService, "", "", 4},
		{results.TailNotSampled, results.TailService, "", "", 5},
		{"CPU", results.TailService, "", "", 3},
		{results.TailNoPID, results.TailService, "", "", 2},
		{results.TailIdle, results.TailService, "", "", 2},
	}
	if len(tl.Groups) != len(cases) {
		t.Errorf("%d groups, want %d: %+v", len(tl.Groups), len(cases), tl.Groups)
	}
	for _, c := range cases {
		g := tailGroup(tl, c.wait, c.part, c.occ)
		if g.Count != c.n || g.Relation != c.relation {
			t.Errorf("group %s (%s) during %q: %d (relation %q), want %d (%q)", c.wait, c.part, c.occ, g.Count, g.Relation, c.n, c.relation)
		}
	}
	if g := tl.Groups[0]; g.Wait != "Lock:relation" || math.Abs(g.Share-60.0/92) > 1e-9 || g.Occurrence != "injected lock on pgbench_accounts, 3 s at 15.0–18.0 s" {
		t.Errorf("first group %+v", g)
	}
	if tl.Unexplained != 12 || tl.NotSampled != 5 || tl.ShorterThanPeriod != 5 {
		t.Errorf("unexplained %d, not sampled %d (%d shorter than the period): want 12, 5, 5", tl.Unexplained, tl.NotSampled, tl.ShorterThanPeriod)
	}
	// Lag and service: Σ over the 92.
	var lag, service float64
	for _, x := range txs {
		lag += x.lagMs
		service += x.serviceMs
	}
	if math.Abs(tl.LagMs-lag) > 0.1 || math.Abs(tl.ServiceMs-service) > 0.1 || math.Abs(tl.ResponseMs-lag-service) > 0.1 {
		t.Errorf("lag %v service %v response %v, want %v %v", tl.LagMs, tl.ServiceMs, tl.ResponseMs, lag, service)
	}
	// The occurrences overlapped: the lock 66, the checkpoint those and
	// the 10, autovacuum (seen at 20 s, taken from 19 s) none.
	occ := map[string]int{}
	for _, o := range tl.Occurrences {
		occ[o.Kind] += o.Count
	}
	if occ[results.OccurStall] != 66 || occ[results.OccurCheckpoint] != 76 || occ[results.OccurAutovacuum] != 0 || occ[results.OccurError] != 0 {
		t.Errorf("occurrences %+v", tl.Occurrences)
	}
	if len(tl.Slowest) != results.TailSlowest || tl.Slowest[0].ResponseMs != 2400 || tl.Slowest[0].Wait != "Lock:relation" ||
		tl.Slowest[0].Samples < 19 || tl.Slowest[0].WaitShare != 1 {
		t.Errorf("slowest %+v", tl.Slowest[:min(1, len(tl.Slowest))])
	}
	sum := strings.Join(tl.Summary, "\n")
	for _, want := range []string{
		"of 92 transactions above p99 (8.20 ms; 92 kept of ~100 above it: slow.csv keeps the slowest 50 per interval, and 1 interval reached that cap)",
		"60 (65 %) waited on Lock:relation (pgbench_accounts) during the injected lock on pgbench_accounts, 3 s at 15.0–18.0 s",
		"10 (11 %) waited on LWLock:WALWrite during the checkpoint (timed) at 12.5–18.5 s",
		"6 (6.5 %) queued while their connection's backend waited on Lock:relation (pgbench_accounts) during the injected lock",
		"4 (4.3 %) waited on Lock:transactionid",
		"12 unexplained (5 not sampled, 3 on CPU, 2 with an idle backend, 2 with no backend pid",
		"once every 100 ms; 5 of them ran for less than that",
		"was lag",
		"37.4 s (23 %) was lag",
		"not a proof of cause",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
}

func TestTailClosedModel(t *testing.T) {
	dir, run, _ := tailCase(t, false)
	tl, _ := tail(&runInput{dir: dir, run: run, cfg: Defaults()})
	if tl == nil || tl.Open || tl.LagMs != 0 || tl.Kept != 86 {
		t.Fatalf("closed model: %+v", tl)
	}
	for _, g := range tl.Groups {
		if g.Part != results.TailService {
			t.Errorf("closed model: a group of the lag: %+v", g)
		}
	}
	sum := strings.Join(tl.Summary, "\n")
	if strings.Contains(sum, "was lag") || !strings.Contains(sum, "closed model") {
		t.Errorf("closed model summary:\n%s", sum)
	}
}

func TestTailMissing(t *testing.T) {
	base := resultstest.Options{Duration: 10 * time.Second}
	cases := []struct {
		name  string
		opts  resultstest.Options
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"no slow.csv", base, func(*testing.T, string) {}, "no slow.csv"},
		{"empty slow.csv", base, func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, results.SlowFile), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "slow.csv has no rows"},
		{"header only", base, func(t *testing.T, dir string) {
			if err := resultstest.WriteSlow(dir, nil); err != nil {
				t.Fatal(err)
			}
		}, "slow.csv has no rows"},
		{"no activity.csv", base, tailOneSlow, "did not sample the backends by pid"},
		{"no waits collector", resultstest.Options{Duration: 10 * time.Second, NoCollectors: true}, tailOneSlow, "the waits collector did not run"},
		{"pg_wait_sampling", base, func(t *testing.T, dir string) {
			tailOneSlow(t, dir)
			if err := os.Remove(filepath.Join(dir, results.WaitsFile)); err != nil {
				t.Fatal(err)
			}
			w, err := results.CreateWaits(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(results.WaitRow{Source: "pg_wait_sampling", Class: "client", Type: "CPU", Event: "CPU", Samples: 1, Ticks: 1}.Record()); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}, "pg_wait_sampling"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			run, err := resultstest.WriteRun(dir, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			c.setup(t, dir)
			tl, warns := tail(&runInput{dir: dir, run: run, cfg: Defaults()})
			if tl != nil {
				t.Errorf("a finding without its evidence: %+v", tl)
			}
			if len(warns) != 1 || !strings.Contains(warns[0], c.want) {
				t.Errorf("warnings %q, want one with %q", warns, c.want)
			}
		})
	}
	// Run (the whole findings) keeps the warning and a nil Tail.
	dir := t.TempDir()
	run, err := resultstest.WriteRun(dir, base)
	if err != nil {
		t.Fatal(err)
	}
	f := Run(dir, run, Defaults())
	if f.Tail != nil || !strings.Contains(strings.Join(f.Warnings, "\n"), "tail: not explained: the run has no slow.csv") {
		t.Errorf("Run: tail %+v, warnings %q", f.Tail, f.Warnings)
	}
}

// tailOneSlow writes a slow.csv of one transaction above any p99.
func tailOneSlow(t *testing.T, dir string) {
	t.Helper()
	x := tailTx{pid: 77, intended: 8, serviceMs: 1e5}
	if err := resultstest.WriteSlow(dir, []results.SlowRow{x.row()}); err != nil {
		t.Fatal(err)
	}
}

// An activity.csv without samples: every transaction is "not sampled",
// with a warning, and the occurrences still explain some.
func TestTailEmptyActivity(t *testing.T) {
	dir, run, _ := tailCase(t, true)
	if err := os.Remove(filepath.Join(dir, results.ActivityFile)); err != nil {
		t.Fatal(err)
	}
	if err := resultstest.WriteActivity(dir, nil); err != nil {
		t.Fatal(err)
	}
	tl, warns := tail(&runInput{dir: dir, run: run, cfg: Defaults()})
	if tl == nil || len(warns) != 1 || !strings.Contains(warns[0], "no samples") {
		t.Fatalf("tail %v, warnings %q", tl, warns)
	}
	if tl.NotSampled != 90 || tl.SamplePeriodMs != 0 || tl.ShorterThanPeriod != 0 {
		t.Errorf("not sampled %d (want the 90 with a pid), period %v, shorter %d", tl.NotSampled, tl.SamplePeriodMs, tl.ShorterThanPeriod)
	}
	if g := tailGroup(tl, results.TailNotSampled, results.TailService, "injected lock"); g.Count != 60 {
		t.Errorf("the lock's transactions: %+v", tl.Groups)
	}
	if tl.Unexplained != 92-76 {
		t.Errorf("unexplained %d, want 16 (all but the 76 that overlapped an occurrence)", tl.Unexplained)
	}
}
