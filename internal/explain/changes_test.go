package explain

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
	"github.com/pgtrial/pgtrial/schema"
)

// synth is a synthetic measured window of n 1-second intervals starting
// 2 s after the clock's zero: tps and p99 per interval (seeded noise
// around the levels given by the functions), with occurrences, waits and
// server rows added by the test.
type synth struct {
	zero   time.Time
	n      int
	tps    func(i int) float64 // level of interval i
	p99    func(i int) float64
	failed func(i int) int64
	seed   uint64
}

const synthWarm = 2 // seconds of warm-up before the window

func (s synth) at(sec float64) time.Time {
	return s.zero.Add(time.Duration(sec * float64(time.Second)))
}

// input builds the changeInput as readChangeInput would from a directory.
func (s synth) input(occ []results.Occurrence, waits []results.WaitRow, server []results.ServerRow) *changeInput {
	rng := rand.New(rand.NewPCG(s.seed, 17))
	ci := &changeInput{cfg: Defaults(), zero: s.zero, interval: time.Second, open: true,
		window: results.Window{From: s.at(synthWarm), To: s.at(float64(synthWarm + s.n))}}
	for i := range s.n {
		end := s.at(float64(synthWarm + i + 1))
		tps := s.tps(i) * (1 + 0.03*rng.NormFloat64())
		p99 := 5.0
		if s.p99 != nil {
			p99 = s.p99(i)
		}
		p99 *= math.Exp(0.1 * rng.NormFloat64())
		row := results.TimelineRow{Time: end, Elapsed: end.Sub(s.zero).Seconds(), Phase: results.PhaseMeasure,
			TPS: tps, Committed: int64(tps), ResponseP99: p99, LagP99: 0.2 * math.Exp(0.1*rng.NormFloat64())}
		if s.failed != nil {
			row.Failed = s.failed(i)
		}
		ci.rows = append(ci.rows, row)
		ci.starts = append(ci.starts, end.Add(-time.Second))
	}
	ci.occurrences = append(occ, errorBursts(ci.rows, ci.starts)...)
	ci.waits, ci.server = waits, server
	return ci
}

func flat(v float64) func(int) float64 { return func(int) float64 { return v } }

// step is a level of a until interval k, then b.
func step(a, b float64, k int) func(int) float64 {
	return func(i int) float64 {
		if i < k {
			return a
		}
		return b
	}
}

var synthZero = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// changesOf is the changes of one series.
func changesOf(c *results.Changes, series string) []results.Change {
	var out []results.Change
	for _, ch := range c.Changes {
		if ch.Series == series {
			out = append(out, ch)
		}
	}
	return out
}

// TestChangesStepMatchedToStall: tps falls from 1,000 to 600 at 20 s into
// the window, where an injected stall starts (end unknown): one tps
// change at the start of that interval, matched to the stall's start, with
// its levels; p99 and lag, noise only, have none.
func TestChangesStepMatchedToStall(t *testing.T) {
	s := synth{zero: synthZero, n: 40, tps: step(1000, 600, 20), seed: 1}
	stall := results.Occurrence{Kind: results.OccurStall, Start: s.at(synthWarm + 20.3), Label: "injected lock on t"}
	c := detectChanges(s.input([]results.Occurrence{stall}, nil, nil))
	tps := changesOf(c, results.SeriesTPS)
	if len(tps) != 1 || len(c.Changes) != 1 {
		t.Fatalf("want one tps change, got %+v", c.Changes)
	}
	ch := tps[0]
	if ch.AtS != synthWarm+20 || ch.SinceS != 20 {
		t.Errorf("change at %v s (%v s into the window), want 22 (20)", ch.AtS, ch.SinceS)
	}
	if math.Abs(ch.Before-1000) > 20 || math.Abs(ch.After-600) > 20 || ch.Relative == nil || math.Abs(*ch.Relative+0.4) > 0.03 {
		t.Errorf("levels %v → %v (%v), want 1000 → 600 (−40 %%)", ch.Before, ch.After, ch.Relative)
	}
	if ch.Unexplained || len(ch.Matched) != 1 || ch.Matched[0].Kind != results.OccurStall || ch.Matched[0].Edge != "start" ||
		math.Abs(ch.Matched[0].OffsetS-0.3) > 1e-6 {
		t.Errorf("matched %+v, want the stall's start 0.3 s after", ch.Matched)
	}
	if len(c.Quiet) != 0 {
		t.Errorf("the stall is matched, yet quiet: %+v", c.Quiet)
	}
	for _, se := range c.Series {
		if se.N != 40 || se.Missing != "" || !(se.Sigma > 0) || se.Beta != 3*math.Log(40) {
			t.Errorf("series %+v: want n 40, σ > 0, β 3·ln 40", se)
		}
	}
	if len(c.Series) != 3 || c.Series[1].Scale != "log" || c.Series[0].Scale != "" {
		t.Errorf("series %+v: want tps, log p99, log lag", c.Series)
	}
}

// stallWaits are waits.csv rows of a window where the client sessions run
// on CPU, and wait on Lock:relation in [from, to) (seconds on the clock).
func stallWaits(s synth, from, to float64) []results.WaitRow {
	var out []results.WaitRow
	for i := range s.n {
		e := float64(synthWarm + i + 1)
		row := func(typ, ev string, samples int64) results.WaitRow {
			return results.WaitRow{Time: s.at(e), Elapsed: e, Source: "activity", Class: "client", Type: typ, Event: ev, Samples: samples, Ticks: 10}
		}
		if e > from && e <= to {
			out = append(out, row("CPU", "CPU", 2), row("Lock", "relation", 38))
		} else {
			out = append(out, row("CPU", "CPU", 30), row("IO", "WalSync", 1))
		}
		out = append(out, row("", "", 10))
	}
	return out
}

// fpiServer are server.csv rows whose FPI share is low but in [from, to).
func fpiServer(s synth, from, to float64) []results.ServerRow {
	var out []results.ServerRow
	for i := range s.n {
		e := float64(synthWarm + i + 1)
		records, fpi := int64(6000), int64(120)
		if e > from && e <= to {
			fpi = 2400
		}
		out = append(out, results.ServerRow{Time: s.at(e), ElapsedS: e, WALRecords: &records, WALFPI: &fpi})
	}
	return out
}

// TestChangesTwoStepsStallStartAndEnd: a lock from 12 s to 15 s into the
// window drops tps and raises p99: the changes at 12 s match the stall's
// start, those at 15 s its end; the wait mix names Lock:relation.
func TestChangesTwoStepsStallStartAndEnd(t *testing.T) {
	in := func(i int) bool { return i >= 12 && i < 15 }
	s := synth{zero: synthZero, n: 30, seed: 2,
		tps: func(i int) float64 {
			if in(i) {
				return 30
			}
			return 500
		},
		p99: func(i int) float64 {
			if in(i) {
				return 2500
			}
			return 5
		}}
	from, to := float64(synthWarm+12), float64(synthWarm+15)
	stall := results.Occurrence{Kind: results.OccurStall, Start: s.at(from), End: s.at(to), Label: "injected lock on t, 3 s"}
	c := detectChanges(s.input([]results.Occurrence{stall}, stallWaits(s, from, to), nil))
	for _, series := range []string{results.SeriesTPS, results.SeriesP99} {
		chs := changesOf(c, series)
		if len(chs) != 2 {
			t.Fatalf("%s: want 2 changes, got %+v", series, chs)
		}
		for k, want := range []struct {
			at   float64
			edge string
		}{{from, "start"}, {to, "end"}} {
			ch := chs[k]
			if ch.AtS != want.at || ch.Unexplained || len(ch.Matched) == 0 || ch.Matched[0].Edge != want.edge || ch.Matched[0].OffsetS != 0 {
				t.Errorf("%s change %d: %+v, want at %v matched to the stall's %s", series, k, ch, want.at, want.edge)
			}
		}
		if w := chs[0].Waits; len(w) == 0 || w[0].Type != "Lock" || w[0].Event != "relation" || w[0].Before != 0 || w[0].After < 0.9 {
			t.Errorf("%s: wait shifts %+v, want Lock:relation 0 → 95 %% first", series, w)
		}
		if w := chs[1].Waits; len(w) == 0 || w[0].Type != "Lock" || w[0].After != 0 {
			t.Errorf("%s: wait shifts at the end %+v, want Lock:relation back to 0", series, w)
		}
	}
	if n := len(changesOf(c, results.SeriesLag)); n != 0 {
		t.Errorf("lag, noise only: %d changes", n)
	}
}

// TestChangesNoiseOnly: noise alone, over several seeds, reports no change,
// and says what the "no change" rests on.
func TestChangesNoiseOnly(t *testing.T) {
	for seed := range uint64(10) {
		s := synth{zero: synthZero, n: 60, tps: flat(800), seed: 100 + seed}
		c := detectChanges(s.input(nil, nil, nil))
		if len(c.Changes) != 0 {
			t.Errorf("seed %d: noise gives changes %+v", seed, c.Changes)
		}
		if len(c.Series) != 3 || c.Series[0].N != 60 || c.Series[0].Found != 0 || !(c.Series[0].Sigma > 10) {
			t.Errorf("seed %d: series %+v", seed, c.Series)
		}
		if !strings.Contains(c.Method, "PELT") || !strings.Contains(c.Method, "3·ln n") {
			t.Errorf("method %q does not state the penalty", c.Method)
		}
	}
}

// TestChangesUnexplained: a step with nothing within ±3 s of it is
// unexplained, even with an autovacuum seen 5 s later (it ran in the
// second before: 4 s away; listed as quiet, not forced onto the change); a
// stricter match leaves an occurrence 1 s away unmatched too.
func TestChangesUnexplained(t *testing.T) {
	s := synth{zero: synthZero, n: 40, tps: step(400, 700, 20), seed: 3}
	av := results.Occurrence{Kind: results.OccurAutovacuum, Start: s.at(synthWarm + 25), Table: "pgbench_accounts", Label: "autovacuum of pgbench_accounts"}
	c := detectChanges(s.input([]results.Occurrence{av}, nil, nil))
	if len(c.Changes) != 1 || !c.Changes[0].Unexplained || len(c.Changes[0].Matched) != 0 {
		t.Fatalf("want one unexplained change, got %+v", c.Changes)
	}
	if len(c.Quiet) != 1 || c.Quiet[0].Kind != results.OccurAutovacuum {
		t.Errorf("quiet %+v, want the autovacuum", c.Quiet)
	}
	// Seen 2 s after the change, the autovacuum ran in the second before:
	// 1 s from the change, matched by default, not within ±0.5 s.
	av.Start = s.at(synthWarm + 22)
	ci := s.input([]results.Occurrence{av}, nil, nil)
	if c := detectChanges(ci); len(c.Changes) != 1 || c.Changes[0].Unexplained || c.Changes[0].Matched[0].OffsetS != 1 {
		t.Errorf("match 3 s: %+v, want the autovacuum 1 s after", c.Changes)
	}
	ci.cfg.Match = 500 * time.Millisecond
	if c := detectChanges(ci); len(c.Changes) != 1 || !c.Changes[0].Unexplained || len(c.Quiet) != 1 {
		t.Errorf("match 0.5 s: %+v, want it unexplained and the autovacuum quiet", c)
	}
}

// TestChangesQuietCheckpoint: a checkpoint with no change near it is
// listed with the FPI share's rise after its start.
func TestChangesQuietCheckpoint(t *testing.T) {
	s := synth{zero: synthZero, n: 30, tps: flat(300), seed: 4}
	ck := results.Occurrence{Kind: results.OccurCheckpoint, Start: s.at(synthWarm + 10.3), StartFrom: s.at(synthWarm + 9.3),
		End: s.at(synthWarm + 12), Label: "checkpoint (requested)"}
	c := detectChanges(s.input([]results.Occurrence{ck}, nil, fpiServer(s, synthWarm+10, synthWarm+20)))
	if len(c.Changes) != 0 {
		t.Fatalf("changes %+v", c.Changes)
	}
	if len(c.Quiet) != 1 {
		t.Fatalf("quiet %+v, want the checkpoint", c.Quiet)
	}
	q := c.Quiet[0]
	if q.Kind != results.OccurCheckpoint || q.StartS == nil || *q.StartS != synthWarm+10.3 || q.EndS == nil {
		t.Errorf("quiet %+v", q)
	}
	if q.FPI == nil || !q.FPI.Moved || !(q.FPI.Before < 0.03) || !(q.FPI.After > 0.2) {
		t.Errorf("FPI %+v, want 2 %% → 30 %% and moved", q.FPI)
	}
	// Without server counters the FPI share is missing, not 0.
	c = detectChanges(s.input([]results.Occurrence{ck}, nil, nil))
	if len(c.Quiet) != 1 || c.Quiet[0].FPI != nil {
		t.Errorf("no server rows: quiet %+v", c.Quiet)
	}
}

// TestChangesErrorBurst: failures jump from ~1 to 40 an interval for 4
// intervals while tps falls: the tps changes are matched to the burst's
// start and end.
func TestChangesErrorBurst(t *testing.T) {
	in := func(i int) bool { return i >= 15 && i < 19 }
	s := synth{zero: synthZero, n: 35, seed: 5,
		tps: func(i int) float64 {
			if in(i) {
				return 100
			}
			return 400
		},
		failed: func(i int) int64 {
			if in(i) {
				return 40
			}
			return int64(i % 2)
		}}
	c := detectChanges(s.input(nil, nil, nil))
	tps := changesOf(c, results.SeriesTPS)
	if len(tps) != 2 {
		t.Fatalf("tps changes %+v", tps)
	}
	for k, edge := range []string{"start", "end"} {
		if m := tps[k].Matched; len(m) == 0 || m[0].Kind != results.OccurErrorBurst || m[0].Edge != edge || !strings.Contains(m[0].Label, "160 failed in 4 intervals") {
			t.Errorf("change %d matched %+v, want the error burst's %s", k, m, edge)
		}
	}
}

// TestChangesRunDir: a synthetic run directory (resultstest: a 5 s lock
// 20 s into a 60 s open-model window, a checkpoint, autovacuum) gives p99
// and lag changes at the lock's start and end, matched to it, in run.json
// with snake_case keys.
func TestChangesRunDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run, err := resultstest.WriteRun(dir, resultstest.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	f := Run(dir, run, Defaults())
	c := f.Changes
	if c == nil {
		t.Fatalf("no changes: %v", f.Warnings)
	}
	lockFrom := run.Phases[len(run.Phases)-1].Start.Add(20 * time.Second).Sub(run.BenchStart).Seconds()
	for _, series := range []string{results.SeriesP99, results.SeriesLag} {
		chs := changesOf(c, series)
		if len(chs) != 2 {
			t.Fatalf("%s: changes %+v", series, chs)
		}
		if chs[0].AtS != lockFrom || chs[0].Matched[0].Kind != results.OccurStall || chs[0].Matched[0].Edge != "start" {
			t.Errorf("%s: first change %+v, want at %v s matched to the lock's start", series, chs[0], lockFrom)
		}
		if math.Abs(chs[1].AtS-(lockFrom+5)) > 1 || !hasMatch(chs[1].Matched, results.OccurStall, "end") {
			t.Errorf("%s: second change %+v, want near %v s matched to the lock's end", series, chs[1], lockFrom+5)
		}
		if w := chs[0].Waits; len(w) == 0 || w[0].Type+":"+w[0].Event != "Lock:relation" {
			t.Errorf("%s: wait shifts %+v", series, w)
		}
	}
	if n := len(changesOf(c, results.SeriesTPS)); n != 0 {
		t.Errorf("open model: the lock does not move tps in this directory, yet %d changes", n)
	}
	run.Findings = f
	data, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(schema.Run, data); err != nil {
		t.Errorf("run.json with the findings: %v", err)
	}
	for _, key := range []string{`"changes":{"method":"PELT`, `"at_s":`, `"since_s":`, `"matched":[`, `"offset_s":`, `"sessions_before":`, `"window_from_s":`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("run.json lacks %s", key)
		}
	}
	// Without a timeline there is nothing to look at: nil, and why.
	if err := os.Remove(filepath.Join(dir, results.TimelineFile)); err != nil {
		t.Fatal(err)
	}
	if c, w := changes(&runInput{dir: dir, run: run, cfg: Defaults()}); c != nil || len(w) != 1 || !strings.Contains(w[0], "timeline") {
		t.Errorf("no timeline: %+v, %v", c, w)
	}
}

func hasMatch(ms []results.ChangeMatch, kind, edge string) bool {
	for _, m := range ms {
		if m.Kind == kind && m.Edge == edge {
			return true
		}
	}
	return false
}

// TestChangesClosedModel: in the closed model a lock lowers tps (the
// clients wait instead of queueing): tps changes at its start and end,
// matched to them; lag is not a series of the closed model.
func TestChangesClosedModel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run, err := resultstest.WriteRun(dir, resultstest.Options{Seed: 8, Rate: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := Run(dir, run, Defaults()).Changes
	if c == nil || len(c.Series) != 2 || c.Series[0].Name != results.SeriesTPS || c.Series[1].Name != results.SeriesP99 {
		t.Fatalf("closed model: series %+v, want tps and p99", c)
	}
	tps := changesOf(c, results.SeriesTPS)
	if len(tps) != 2 || !hasMatch(tps[0].Matched, results.OccurStall, "start") || !hasMatch(tps[1].Matched, results.OccurStall, "end") ||
		tps[0].Relative == nil || *tps[0].Relative > -0.8 {
		t.Errorf("tps changes %+v, want a fall of 90 %% at the lock's start and the rise at its end", tps)
	}
}

// TestChangesDegenerate: a window where nothing committed has no p99 or
// lag to look at (missing, with why), a constant tps no change, and the
// findings encode as JSON (no NaN or Inf).
func TestChangesDegenerate(t *testing.T) {
	s := synth{zero: synthZero, n: 20, tps: flat(0), seed: 9}
	ci := s.input(nil, nil, nil)
	for i := range ci.rows {
		ci.rows[i].TPS, ci.rows[i].Committed = 0, 0
	}
	ci.rows[3].ResponseP99 = math.Inf(1)
	c := detectChanges(ci)
	if len(c.Changes) != 0 || c.Series[1].Missing == "" || c.Series[2].Missing == "" || c.Series[0].Missing != "" {
		t.Errorf("nothing committed: %+v", c)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Errorf("json: %v", err)
	}
	// Too short a window: said so.
	s.n = 4
	c = detectChanges(s.input(nil, nil, nil))
	if c.Series[0].Missing != "4 intervals with a value, fewer than 6" {
		t.Errorf("4 intervals: %+v", c.Series[0])
	}
}
