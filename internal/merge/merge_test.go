package merge

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
)

// seg shapes one synthetic segment, written through results' writers as
// trial.Run writes one.
type seg struct {
	index, count int
	offsetMs     float64 // its clock against the server's: its times are true − offset
	seed         uint64
	mutate       func(r *results.Run, config map[string]any)
	interrupted  bool
	crashed      bool
}

var (
	base      = time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC) // the true (server's) bench start
	names     = []string{"select-only", "tpcb-like"}
	perSegIvs = 8 // intervals of 1 s: 2 of warm-up, 6 measured
	warmIvs   = 2
)

// txs of one segment's measured window, for the direct computation.
type written struct {
	dir       string
	resp      [][]int64 // per script: committed responses, µs, measured
	committed int64
	failed    map[string]int64
	rows      []results.TimelineRow
}

func writeSeg(t *testing.T, dir string, s seg) *written {
	t.Helper()
	rnd := rand.New(rand.NewPCG(s.seed, uint64(s.index)))
	off := time.Duration(s.offsetMs * float64(time.Millisecond))
	local := func(tt time.Time) time.Time { return tt.Add(-off) }
	bench := local(base.Add(time.Duration(s.index) * 300 * time.Microsecond)) // a --start-at's few µs apart
	threads := 4
	run := &results.Run{
		Tool:      results.Tool{Name: "pgtrial", Version: "test"},
		StartedAt: bench.Add(-time.Second),
		Target:    results.Target{Database: "bench", ServerVersion: "15.0"},
		Workload: results.Workload{Name: "select-only+tpcb-like", Scale: 1, Scripts: []results.ScriptWeight{
			{Name: names[0], Weight: 3, SHA256: "aaaa1111"}, {Name: names[1], Weight: 1, SHA256: "bbbb2222"}}},
		Model: results.Model{Kind: results.ModelOpen, Clients: 2, Threads: threads / s.count, Rate: 400 / float64(s.count),
			Arrival: "uniform", Overload: "queue", DurationS: 6},
		Segment: &results.Segment{Index: s.index, Count: s.count, Clients: 2 * s.count, Threads: threads, Rate: 400,
			FirstClient: 2 * s.index, FirstThread: s.index * threads / s.count,
			StartAt: base, Clock: []results.ClockOffset{
				{At: bench.Add(-time.Second), OffsetMs: s.offsetMs - 0.2, RTTMs: 0.1},
				{At: bench.Add(9 * time.Second), OffsetMs: s.offsetMs + 0.2, RTTMs: 0.1}}},
	}
	config := map[string]any{"random_seed": "42", "warmup_s": 2.0, "interval_s": 1.0, "protocol": "prepared", "max_tries": 1.0,
		"per_command": false, "continue_on_error": false, "reconnect": true}
	if s.mutate != nil {
		s.mutate(run, config)
	}
	d, err := results.Create(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	ev := func(e results.Event) {
		if err := d.Event(e); err != nil {
			t.Fatal(err)
		}
	}
	ev(results.Event{Time: bench.Add(-10 * time.Millisecond), Kind: "config", Data: config})
	ev(results.Event{Time: bench, Kind: results.EventPhase, Phase: results.PhaseWarmup})
	measureStart := bench.Add(time.Duration(warmIvs) * time.Second)
	ev(results.Event{Time: measureStart, Kind: results.EventPhase, Phase: results.PhaseMeasure})
	ev(results.Event{Time: measureStart.Add(2500 * time.Millisecond), Kind: results.EventCheckpoint, Data: map[string]any{"kind": "timed"}})

	w := &written{dir: dir, resp: make([][]int64, len(names)), failed: map[string]int64{}}
	layout := metrics.Layout{Scripts: len(names)}
	measure := metrics.NewInterval(layout)
	n := perSegIvs
	if s.interrupted || s.crashed {
		n = perSegIvs - 2
	}
	for k := range n {
		iv := metrics.NewInterval(layout)
		// The tick comes a little late, as a timer does.
		iv.Start = bench.Add(time.Duration(k)*time.Second + time.Duration(k)*37*time.Microsecond)
		iv.End = bench.Add(time.Duration(k+1)*time.Second + time.Duration(k+1)*37*time.Microsecond)
		phase := results.PhaseMeasure
		if k < warmIvs {
			phase = results.PhaseWarmup
		}
		for range 80 + rnd.IntN(40) {
			sc := 0
			if rnd.IntN(4) == 0 {
				sc = 1
			}
			tx := metrics.Tx{Script: sc, Outcome: metrics.Committed, Tries: 1}
			switch r := rnd.IntN(100); {
			case r == 0:
				tx.Outcome = metrics.FailedSerialization
			case r == 1:
				tx.Outcome = metrics.FailedDeadlock
			default:
				tx.Service = 100 + int64(rnd.ExpFloat64()*400*float64(sc+1))
				tx.Lag = int64(rnd.IntN(50))
				if rnd.IntN(200) == 0 {
					tx.Service += 50_000 // a slow one
				}
				tx.Response = tx.Service + tx.Lag
			}
			for _, h := range []*metrics.Hists{&iv.Scripts[sc], &iv.Total} {
				h.Stats.Add(&tx, 0)
				if tx.Outcome == metrics.Committed {
					metrics.RecordValue(h.Response, tx.Response)
					metrics.RecordValue(h.Service, tx.Service)
					metrics.RecordValue(h.Lag, tx.Lag)
				}
			}
			if phase == results.PhaseMeasure {
				if tx.Outcome == metrics.Committed {
					w.resp[sc] = append(w.resp[sc], tx.Response)
					w.committed++
				} else {
					w.failed[tx.Outcome.String()]++
				}
			}
		}
		if err := d.WriteInterval(phase, iv, names); err != nil {
			t.Fatal(err)
		}
		w.rows = append(w.rows, results.NewTimelineRow(bench, phase, iv))
		if phase == results.PhaseMeasure {
			measure.Merge(iv)
		}
	}
	if s.crashed {
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		return w
	}
	sum := results.Summarize(measure, names, run.Model.Rate)
	run.Summary = &sum
	run.BenchStart = bench
	run.Phases = []results.Phase{{Name: results.PhaseWarmup, Start: bench, End: measureStart}, {Name: results.PhaseMeasure, Start: measure.Start, End: measure.End}}
	run.EndedAt = measure.End.Add(100 * time.Millisecond)
	if s.interrupted {
		run.Interrupted, run.InterruptReason = true, "SIGINT"
	}
	if err := d.Finish(run); err != nil {
		t.Fatal(err)
	}
	return w
}

// writeSegs writes count segments into a temporary directory; mutate, if
// set, changes segment i's.
func writeSegs(t *testing.T, count int, mutate map[int]seg) ([]string, []*written) {
	t.Helper()
	root := t.TempDir()
	offsets := []float64{0, 150, -80, 40, 7, -3}
	var dirs []string
	var ws []*written
	for i := range count {
		s := seg{index: i, count: count, offsetMs: offsets[i%len(offsets)], seed: 7}
		if m, ok := mutate[i]; ok {
			s.mutate, s.interrupted, s.crashed = m.mutate, m.interrupted, m.crashed
			if m.count != 0 {
				s.count = m.count
			}
			if m.index >= 0 {
				s.index = m.index
			}
		}
		dir := filepath.Join(root, "seg"+string(rune('a'+i)))
		ws = append(ws, writeSeg(t, dir, s))
		dirs = append(dirs, dir)
	}
	return dirs, ws
}

// p99 is the nearest-rank quantile of vs, v[⌈n·q⌉ − 1], as the HDR
// histogram reports its bucket (highest equivalent value), ms.
func quantile(vs []int64, q float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	k := metrics.NearestRank(q, int64(len(s)))
	return hdrMs(s[k-1])
}

// hdrMs is v (µs) as an HDR histogram reports it, by its bucket's highest
// equivalent value, ms.
func hdrMs(v int64) float64 {
	h := metrics.NewHistogram()
	metrics.RecordValue(h, v)
	return float64(metrics.Quantile(h, 1)) / 1000
}

func TestMergeExact(t *testing.T) {
	dirs, ws := writeSegs(t, 4, nil)
	// A collector's file in every segment, a txlog in every segment.
	for i, d := range dirs {
		for name, text := range map[string]string{results.OSFile: "time,elapsed_s\n", results.WaitsFile: "time,elapsed_s\n"} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(text+strconv.Itoa(i)+"\n"), results.FileMode); err != nil {
				t.Fatal(err)
			}
		}
		if err := results.MakeDirs("txlog", filepath.Join(d, "txlog")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "txlog", "pgtrial_log.123"), []byte(strconv.Itoa(i)+" 0 100 0 1 2\n"), results.FileMode); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "merged")
	// In another order than their indexes: the merge sorts them.
	run, err := Dirs([]string{dirs[2], dirs[0], dirs[3], dirs[1]}, out)
	if err != nil {
		t.Fatal(err)
	}
	var committed int64
	failed := map[string]int64{}
	all := make([][]int64, len(names))
	var union []int64
	for _, w := range ws {
		committed += w.committed
		for k, v := range w.failed {
			failed[k] += v
		}
		for sc := range names {
			all[sc] = append(all[sc], w.resp[sc]...)
			union = append(union, w.resp[sc]...)
		}
	}
	s := run.Summary
	if s.Total.Committed != committed || s.Total.Response.Count != committed {
		t.Errorf("merged committed %d (histogram %d), the segments' sum %d", s.Total.Committed, s.Total.Response.Count, committed)
	}
	for k, v := range failed {
		if s.Total.FailedBy[k] != v {
			t.Errorf("failed %s: merged %d, sum %d", k, s.Total.FailedBy[k], v)
		}
	}
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999, 1} {
		if got, want := pick(s.Total.Response, q), quantile(union, q); got != want {
			t.Errorf("total q%g: merged %.3f ms, the union's %.3f ms", q, got, want)
		}
		for sc := range names {
			if got, want := pick(s.Scripts[sc].Response, q), quantile(all[sc], q); got != want {
				t.Errorf("%s q%g: merged %.3f ms, the union's %.3f ms", names[sc], q, got, want)
			}
		}
	}
	// Rates over segment 0's window, from the sums.
	started := committed
	for _, v := range failed {
		started += v
	}
	d0 := ws[0].rows[len(ws[0].rows)-1].Time.Sub(ws[0].rows[warmIvs-1].Time).Seconds()
	if diff := s.AchievedRate - float64(started)/d0; diff > 1e-9 || diff < -1e-9 {
		t.Errorf("achieved rate %.6f, want %d / %.6f s = %.6f", s.AchievedRate, started, d0, float64(started)/d0)
	}
	if run.Model.Rate != 400 || run.Model.Clients != 8 || run.Model.Threads != 4 || s.TargetRate != 400 {
		t.Errorf("model %+v, target %g: want the whole load's", run.Model, s.TargetRate)
	}
	if run.Segment != nil || run.Merge == nil || len(run.Merge.Segments) != 4 {
		t.Fatalf("segment %v, merge %+v", run.Segment, run.Merge)
	}
	for i, ms := range run.Merge.Segments {
		if ms.Index != i || ms.Committed != ws[i].committed || ms.Dir != dirs[i] {
			t.Errorf("merge.segments[%d] = %+v", i, ms)
		}
	}
	if got := run.Merge.Segments[1].ShiftMs; got != 150 {
		t.Errorf("segment 1's shift %g ms, want 150", got)
	}
	if sp := run.Merge.StartSpreadMs; sp < 0.8 || sp > 1 { // 3 × 0.3 ms
		t.Errorf("start spread %g ms, want 0.9", sp)
	}

	// The timeline: each interval the sum of the segments' rows.
	rows, err := results.ReadTimeline(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != perSegIvs {
		t.Fatalf("%d timeline rows, want %d (the segments' aligned on one clock)", len(rows), perSegIvs)
	}
	for k, r := range rows {
		var c, f int64
		for _, w := range ws {
			c += w.rows[k].Committed
			f += w.rows[k].Failed
		}
		if r.Committed != c || r.Failed != f || r.Phase != ws[0].rows[k].Phase {
			t.Errorf("row %d: committed %d failed %d phase %s, want %d %d %s", k, r.Committed, r.Failed, r.Phase, c, f, ws[0].rows[k].Phase)
		}
	}
	// latency.hlog: the measured histograms hold the union.
	h, err := results.MeasuredResponse(out, run)
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != committed {
		t.Errorf("latency.hlog's measured total %d, want %d", h.TotalCount(), committed)
	}
	// Events: every segment's phase events, the server's only from segment 0.
	events, err := results.ReadEvents(out)
	if err != nil {
		t.Fatal(err)
	}
	phases, ckpt := 0, 0
	for i, e := range events {
		if i > 0 && e.Time.Before(events[i-1].Time) {
			t.Errorf("event %d (%s) before the one before it", i, e.Kind)
		}
		if _, ok := e.Data["segment"]; !ok {
			t.Errorf("event %d (%s) does not say its segment", i, e.Kind)
		}
		switch e.Kind {
		case results.EventPhase:
			phases++
		case results.EventCheckpoint:
			ckpt++
		}
	}
	if phases != 8 || ckpt != 1 {
		t.Errorf("%d phase events (want 8), %d checkpoints (want segment 0's 1)", phases, ckpt)
	}
	if len(run.Checks) == 0 {
		t.Error("no checklist")
	}
	// Segment 0's collector files; the others' os.csv apart; every txlog.
	for name, want := range map[string]string{results.WaitsFile: "0", results.OSFile: "0", "segments/001/os.csv": "1", "segments/003/os.csv": "3",
		"txlog/seg000.pgtrial_log.123": "0", "txlog/seg002.pgtrial_log.123": "2"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if err != nil || strings.Fields(lines[len(lines)-1])[0] != want {
			t.Errorf("%s: %q %v, want segment %s's", name, data, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "segments", "000")); err == nil {
		t.Error("segment 0's os.csv is the merged run's, not in segments/000")
	}
	if got := run.Merge.Segments[1].OSFile; got != filepath.Join("segments", "001", "os.csv") {
		t.Errorf("merge.segments[1].os_file = %q", got)
	}

	// The merged directory is itself refused as a segment.
	_, err = Dirs([]string{out}, filepath.Join(t.TempDir(), "again"))
	wantRefusal(t, err, "is a merged run")
}

func pick(p results.Percentiles, q float64) float64 {
	switch q {
	case 0.5:
		return p.P50
	case 0.9:
		return p.P90
	case 0.99:
		return p.P99
	case 0.999:
		return p.P999
	}
	return p.Max
}

func wantRefusal(t *testing.T, err error, parts ...string) {
	t.Helper()
	var re *RefusalError
	if !errors.As(err, &re) {
		t.Fatalf("error %v, want a refusal", err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("refusal %q does not say %q", err, p)
		}
	}
}

func TestMergeRefusals(t *testing.T) {
	mut := func(f func(r *results.Run, c map[string]any)) map[int]seg {
		return map[int]seg{2: {index: -1, mutate: f}}
	}
	cases := []struct {
		name   string
		mutate map[int]seg
		want   []string
	}{
		{"workload", mut(func(r *results.Run, c map[string]any) { r.Workload.Name = "other" }), []string{"workload (workload.name)", `"select-only+tpcb-like" vs "other"`}},
		{"script text", mut(func(r *results.Run, c map[string]any) { r.Workload.Scripts[1].SHA256 = "cccc3333" }), []string{"script texts", "bbbb2222", "cccc3333"}},
		{"weights", mut(func(r *results.Run, c map[string]any) { r.Workload.Scripts[0].Weight = 2 }), []string{"scripts (workload.scripts: name@weight)"}},
		{"rate", mut(func(r *results.Run, c map[string]any) { r.Segment.Rate = 500 }), []string{"whole-load rate (segment.rate)", "400 tx/s vs 500 tx/s"}},
		{"model", mut(func(r *results.Run, c map[string]any) { r.Model.Kind = results.ModelClosed }), []string{"load model (model.kind)"}},
		{"arrivals", mut(func(r *results.Run, c map[string]any) { r.Model.Arrival = "poisson" }), []string{"arrivals (model.arrival)"}},
		{"duration", mut(func(r *results.Run, c map[string]any) { r.Model.DurationS = 7 }), []string{"duration (model.duration_s)", "6 s vs 7 s"}},
		{"clients", mut(func(r *results.Run, c map[string]any) { r.Segment.Clients = 16 }), []string{"whole-load clients (segment.clients)"}},
		{"threads", mut(func(r *results.Run, c map[string]any) { r.Segment.Threads = 8 }), []string{"whole-load threads (segment.threads)"}},
		{"start", mut(func(r *results.Run, c map[string]any) { r.Segment.StartAt = base.Add(time.Second) }), []string{"start (segment.start_at)"}},
		{"seed", mut(func(r *results.Run, c map[string]any) { c["random_seed"] = "43" }), []string{"random seed", "42 vs 43"}},
		{"warm-up", mut(func(r *results.Run, c map[string]any) { c["warmup_s"] = 3.0 }), []string{"warm-up (config warmup_s)", "2 vs 3"}},
		{"interval", mut(func(r *results.Run, c map[string]any) { c["interval_s"] = 2.0 }), []string{"interval (config interval_s)", "1 vs 2"}},
		{"variables", mut(func(r *results.Run, c map[string]any) { c["variables"] = map[string]any{"scale": "2"} }), []string{"variables (config variables, -D)"}},
		{"count", map[int]seg{2: {index: -1, count: 5}}, []string{"segment count (segment.count)", "4 vs 5"}},
		{"duplicate", map[int]seg{2: {index: 1}}, []string{"are both segment 1 of 4", "segb", "segc"}},
		{"not a segment", mut(func(r *results.Run, c map[string]any) { r.Segment = nil }), []string{"segc is not a segment run", `no "segment"`}},
		{"crashed", map[int]seg{2: {index: -1, crashed: true}}, []string{"segc never finished", "crashed"}},
		{"interrupted", map[int]seg{2: {index: -1, interrupted: true}}, []string{"segc (segment 2 of 4) was interrupted (SIGINT)", "--allow-partial"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dirs, _ := writeSegs(t, 4, c.mutate)
			_, err := Dirs(dirs, filepath.Join(t.TempDir(), "out"))
			want := c.want
			if !strings.HasPrefix(c.name, "not") && c.name != "crashed" && c.name != "interrupted" && c.name != "duplicate" {
				want = append(want, "sega and ") // the two directories: the first given and the one that differs
				want = append(want, "segc are not segments of one load")
			}
			wantRefusal(t, err, want...)
		})
	}
	t.Run("missing", func(t *testing.T) {
		dirs, _ := writeSegs(t, 4, nil)
		_, err := Dirs([]string{dirs[0], dirs[1], dirs[3]}, filepath.Join(t.TempDir(), "out"))
		wantRefusal(t, err, "the load has 4 segments (segment.count) and segment 2 of them is missing")
	})
	t.Run("allow partial", func(t *testing.T) {
		dirs, _ := writeSegs(t, 4, map[int]seg{2: {index: -1, interrupted: true}})
		run, err := Merge(Config{Dirs: dirs, Out: filepath.Join(t.TempDir(), "out"), AllowPartial: true})
		if err != nil {
			t.Fatal(err)
		}
		if !run.Interrupted || !slices.ContainsFunc(run.Warnings, func(w string) bool { return strings.Contains(w, "NOT the whole load") }) {
			t.Errorf("interrupted %v, warnings %q: want the partial merge said", run.Interrupted, run.Warnings)
		}
	})
	t.Run("output exists", func(t *testing.T) {
		dirs, _ := writeSegs(t, 2, nil)
		_, err := Dirs(dirs, dirs[0])
		wantRefusal(t, err, "is one of the segments")
	})
}
