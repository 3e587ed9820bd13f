package collect

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// TestOneClock is a short real run on a results.Dir: the collectors start
// first (as a run's do, before the clients connect), the bench starts
// 150 ms later with the first phase event, and the client's intervals end on
// the bench's grid. Every row of timeline.csv, server.csv and os.csv must
// then count elapsed_s from the bench start (time − elapsed_s = the bench
// start) and lie on one grid of the interval, and run.json records the
// bench start.
func TestOneClock(t *testing.T) {
	url := pgtest.ConnString(t)
	dir := t.TempDir()
	const interval = 200 * time.Millisecond
	run := &results.Run{Model: results.Model{Kind: results.ModelClosed, Clients: 1}}
	d, err := results.Create(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	c, err := Start(ctx, Config{ConnString: url, Dir: dir, RunStart: run.StartedAt, Clock: d.Clock(),
		Interval: interval, Kinds: []string{KindServer, KindOS}, Local: true, Events: d})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop(ctx, time.Now())

	time.Sleep(150 * time.Millisecond) // the clients connecting: not a multiple of the interval
	bench := time.Now()
	if err := d.Event(results.Event{Time: bench, Kind: results.EventPhase, Phase: results.PhaseMeasure}); err != nil {
		t.Fatal(err)
	}
	set := metrics.NewSet(1, metrics.Layout{Scripts: 1})
	const n = 6
	prev := bench
	for k := 1; k <= n; k++ {
		end := bench.Add(time.Duration(k) * interval)
		time.Sleep(time.Until(end))
		if err := d.WriteInterval(results.PhaseMeasure, set.Tick(prev, end), []string{"s"}); err != nil {
			t.Fatal(err)
		}
		prev = end
	}
	if w := c.Stop(ctx, prev); len(w) > 0 {
		t.Logf("collector warnings: %v", w)
	}
	run.Phases = []results.Phase{{Name: results.PhaseMeasure, Start: bench, End: prev}}
	if err := d.Finish(run); err != nil {
		t.Fatal(err)
	}

	loaded, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !loaded.BenchStart.Equal(bench) {
		t.Errorf("run.json bench_start %v, want the bench start %v", loaded.BenchStart, bench)
	}
	// A row's time is written to the ms and elapsed_s to the ms: 2 ms.
	const slack = 2 * time.Millisecond
	check := func(file string, tm time.Time, elapsed float64) {
		t.Helper()
		zero := tm.Add(-time.Duration(elapsed * float64(time.Second)))
		if d := zero.Sub(bench).Abs(); d > slack {
			t.Errorf("%s row at %v, elapsed_s %.3f: counts from %v, %v from the bench start %v", file, tm, elapsed, zero, d, bench)
		}
		if k := elapsed / interval.Seconds(); math.Abs(k-math.Round(k)) > 0.01 || k < 0.5 {
			t.Errorf("%s row elapsed_s %.3f is not on the grid k·%v from the bench start", file, elapsed, interval)
		}
	}
	tl, err := results.ReadTimeline(dir)
	if err != nil || len(tl) != n {
		t.Fatalf("timeline: %d rows, %v", len(tl), err)
	}
	for _, r := range tl {
		check(results.TimelineFile, r.Time, r.Elapsed)
	}
	srv, err := results.ReadServer(dir)
	if err != nil || len(srv) < n-1 {
		t.Fatalf("server.csv: %d rows, %v", len(srv), err)
	}
	for _, r := range srv {
		check(results.ServerFile, r.Time, r.ElapsedS)
	}
	osRows, err := results.ReadOS(dir)
	if err != nil || len(osRows) < n-1 {
		t.Fatalf("os.csv: %d rows, %v", len(osRows), err)
	}
	for _, r := range osRows {
		check(results.OSFile, r.Time, r.ElapsedS)
	}
	// The same instant in both files: the timeline's row at k·interval and
	// the server's row at k·interval have the same time.
	times := map[string]bool{}
	for _, r := range tl {
		times[results.FormatTime(r.Time)] = true
	}
	shared := 0
	for _, r := range srv {
		if times[results.FormatTime(r.Time)] {
			shared++
		}
	}
	if shared < n-1 {
		t.Errorf("%d of server.csv's %d rows share a time with timeline.csv's %d, want ≥ %d", shared, len(srv), len(tl), n-1)
	}
}

// Without its clock started, Stop returns at once (no loop waits for a
// bench start that never comes) and the files have their headers only.
func TestStopBeforeClock(t *testing.T) {
	url := pgtest.ConnString(t)
	dir := t.TempDir()
	clock := results.NewClock()
	ctx := context.Background()
	c, err := Start(ctx, Config{ConnString: url, Dir: dir, Clock: clock, Interval: 100 * time.Millisecond,
		Kinds: []string{KindServer}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	c.Stop(ctx, t0)
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("Stop took %v without a started clock", d)
	}
	rows, err := results.ReadServer(dir)
	if err != nil || len(rows) != 0 {
		t.Errorf("server.csv: %d rows, %v; want the header only", len(rows), err)
	}
}
