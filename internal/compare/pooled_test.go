package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
)

// pooledRun writes a run directory as a run does (results.Create,
// WriteInterval, Finish): a 1 s warm-up of 100 transactions at 5 s each
// (to be left out), then 3 measured intervals of n transactions each, of
// which slow per interval take 1 s and the others 1–2 ms; run.json's
// summary is the measured phase's.
func pooledRun(t *testing.T, dir, label string, t0 time.Time, n, slow int) RunRef {
	t.Helper()
	run := &results.Run{StartedAt: t0, Workload: results.Workload{Name: "tpcb-like"},
		Model: results.Model{Kind: results.ModelClosed, Clients: 2}}
	d, err := results.Create(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.NewSet(1, metrics.Layout{Scripts: 1})
	rec := s.Recorder(0)
	tx := func(us int64) {
		rec.Record(&metrics.Tx{Outcome: metrics.Committed, Tries: 1, Response: us, Service: us})
	}
	for range 100 {
		tx(5_000_000)
	}
	if err := d.WriteInterval(results.PhaseWarmup, s.Tick(t0, t0.Add(time.Second)), nil); err != nil {
		t.Fatal(err)
	}
	measure := metrics.NewInterval(s.Layout())
	for i := 1; i <= 3; i++ {
		for j := range n {
			if j < slow {
				tx(1_000_000)
			} else {
				tx(1000 + int64(j%1000))
			}
		}
		start := t0.Add(time.Duration(i) * time.Second)
		iv := s.Tick(start, start.Add(time.Second))
		measure.Merge(iv)
		if err := d.WriteInterval(results.PhaseMeasure, iv, nil); err != nil {
			t.Fatal(err)
		}
	}
	sum := results.Summarize(measure, nil, 0)
	run.Summary = &sum
	run.Phases = []results.Phase{{Name: results.PhaseWarmup, Start: t0, End: t0.Add(time.Second)},
		{Name: results.PhaseMeasure, Start: t0.Add(time.Second), End: t0.Add(4 * time.Second)}}
	run.EndedAt = t0.Add(4 * time.Second)
	if err := d.Finish(run); err != nil {
		t.Fatal(err)
	}
	loaded, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return RunRef{Label: label, Dir: dir, Run: loaded, StartedAt: t0}
}

// TestPooledOneStalledRun: four runs of 1–2 ms and one whose tenth of
// transactions took 1 s. The median of the runs' p99s stays at ~2 ms; the
// pooled p99 (2 % of all transactions took 1 s) is 1 s, and the warm-up's
// 5 s transactions are in neither. A side with a run without latency.hlog
// has no pooled figure and says which run and why.
func TestPooledOneStalledRun(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var a, b []RunRef
	for i := range 5 {
		slow := 0
		if i == 2 {
			slow = 100 // of 1000 per interval
		}
		a = append(a, pooledRun(t, filepath.Join(root, fmt.Sprintf("a%d", i)), fmt.Sprintf("A#%d", i+1), t0.Add(time.Duration(2*i)*time.Minute), 1000, slow))
		b = append(b, pooledRun(t, filepath.Join(root, fmt.Sprintf("b%d", i)), fmt.Sprintf("B#%d", i+1), t0.Add(time.Duration(2*i+1)*time.Minute), 1000, 0))
	}
	if err := os.Remove(filepath.Join(b[3].Dir, results.LatencyFile)); err != nil {
		t.Fatal(err)
	}
	rep := Build(Options{NameA: "A", NameB: "B"}, a, b)
	p99 := metric(t, rep, "p99")
	t.Logf("A: median of p99s %.3f ms, pooled p99 %v ms over %+v", p99.Verdict.A.Median, deref(p99.PooledA), rep.PooledA)
	if p99.Verdict.A.Median > 3 {
		t.Errorf("A's median p99 %.3f ms: the stalled run moved it", p99.Verdict.A.Median)
	}
	if p99.PooledA == nil || *p99.PooledA < 999 || *p99.PooledA > 1002 {
		t.Errorf("A's pooled p99 %v ms, want 1 s (2 %% of A's transactions took 1 s)", deref(p99.PooledA))
	}
	if max := metric(t, rep, "max"); max.PooledA == nil || *max.PooledA > 1002 {
		t.Errorf("A's pooled max %v ms: the warm-up's 5 s transactions are pooled", deref(max.PooledA))
	}
	if p50 := metric(t, rep, "p50"); p50.PooledA == nil || *p50.PooledA < 1 || *p50.PooledA > 2 {
		t.Errorf("A's pooled p50 %v ms, want 1–2 ms", deref(p50.PooledA))
	}
	if rep.PooledA == nil || rep.PooledA.Runs != 5 || rep.PooledA.Count != 15000 || len(rep.PooledA.Missing) != 0 {
		t.Errorf("A pooled %+v, want 5 runs, 15000 transactions", rep.PooledA)
	}
	if tps := metric(t, rep, "tps"); tps.PooledA != nil || tps.PooledB != nil {
		t.Error("tps has a pooled figure")
	}
	if p99.PooledB != nil || rep.PooledB == nil || len(rep.PooledB.Missing) != 1 ||
		!strings.Contains(rep.PooledB.Missing[0], "B#4") || !strings.Contains(rep.PooledB.Missing[0], results.LatencyFile) {
		t.Errorf("B without B#4's histogram: pooled p99 %v, %+v: want none, naming B#4 and %s", deref(p99.PooledB), rep.PooledB, results.LatencyFile)
	}
}

// TestPooledCountMismatch: a latency.hlog that does not hold the summary's
// transactions (another run's, or cut short) gives no pooled figure.
func TestPooledCountMismatch(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	r := pooledRun(t, filepath.Join(root, "a"), "A#1", t0, 100, 0)
	r.Run.Summary.Total.Response.Count++
	if _, err := results.MeasuredResponse(r.Dir, r.Run); err == nil || !strings.Contains(err.Error(), "301") {
		t.Errorf("count mismatch: %v, want an error with the summary's count", err)
	}
	r.Run.Phases = nil
	if _, err := results.MeasuredResponse(r.Dir, r.Run); err == nil || !strings.Contains(err.Error(), "no measured phase") {
		t.Errorf("no phases: %v", err)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
