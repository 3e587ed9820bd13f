package explain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// rampSynth is one synthetic run's figures.
type rampSynth struct {
	variant       string
	level         float64
	repeat        int
	tps, p99      float64
	calls         int64
	lock          float64 // Lock share of the samples
	blocksPerCall float64 // of the UPDATE
	noStatements  bool
}

// synthRun is a run with a summary and evidence over a 10 s window (no
// os.csv in dir: the vmstat figures are missing).
func synthRun(t *testing.T, dir string, s rampSynth) ExpRun {
	t.Helper()
	from := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	to := from.Add(10 * time.Second)
	run := &results.Run{
		Phases:  []results.Phase{{Name: results.PhaseMeasure, Start: from, End: to}},
		Summary: &results.Summary{Duration: 10, Total: results.ScriptSummary{Name: "total", TPS: s.tps, Committed: int64(10 * s.tps)}},
	}
	run.Summary.Total.Response = results.Percentiles{P50: s.p99 / 4, P95: s.p99 / 1.5, P99: s.p99, Count: int64(10 * s.tps)}
	ev := &results.Evidence{From: from, To: to}
	ev.WaitTypes = map[string]float64{"CPU": 1 - s.lock, "Lock": s.lock}
	ev.Waits = []results.WaitShare{{Type: "CPU", Event: "CPU", Share: 1 - s.lock, AvgSessions: 2 * (1 - s.lock)}}
	if s.lock > 0 {
		ev.Waits = append(ev.Waits, results.WaitShare{Type: "Lock", Event: "transactionid", Share: s.lock, AvgSessions: 2 * s.lock})
	}
	if s.noStatements {
		ev.SetMissing(results.EvidenceStatements, "pg_stat_statements is not installed in database \"bench\"")
	} else {
		ev.Calls, ev.Rows = s.calls, s.calls
		ev.Statements = []results.StatementCost{{QueryID: 7, Query: "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2",
			Calls: s.calls, Rows: s.calls, TotalMs: float64(s.calls) * 0.1, MeanMs: 0.1, Share: 1, SharedHitPerCall: s.blocksPerCall}}
	}
	run.Evidence = ev
	return ExpRun{Variant: s.variant, Level: s.level, Repeat: s.repeat,
		Dir: filepath.Join(dir, fmt.Sprintf("%s-l%g-r%d", s.variant, s.level, s.repeat)), Run: run}
}

// synthRamp is a ramp of levels × repeats for variants A and B, B's
// figures scaled by bScale (speed) and bLock (Lock share), with seeded
// noise of sd (log scale).
func synthRamp(t *testing.T, levels []float64, repeats int, bScale, bLock, sd float64, seed uint64) *ExperimentInput {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	in := &ExperimentInput{Dir: dir, By: "clients", Levels: levels, Variants: []string{"A", "B"}, Interleaved: true}
	for _, l := range levels {
		for r := 1; r <= repeats; r++ {
			for _, v := range []string{"A", "B"} {
				scale, lock, blocks := 1.0, 0.05, 10.0
				if v == "B" {
					scale, lock, blocks = bScale, bLock, 25
				}
				noise := math.Exp(sd * rnd.NormFloat64())
				tps := 1000 * math.Sqrt(l) * scale * noise
				in.Runs = append(in.Runs, synthRun(t, dir, rampSynth{variant: v, level: l, repeat: r, tps: tps,
					p99: 1 + l*l/4*(1+0.05*rnd.Float64()), calls: int64(10 * tps), lock: lock, blocksPerCall: blocks}))
			}
		}
	}
	return in
}

func TestRampCellsAndMissing(t *testing.T) {
	in := synthRamp(t, []float64{2, 4, 6, 8}, 3, 1.2, 0.2, 0.01, 1)
	in.Runs[0].Run.Evidence.SetMissing(results.EvidenceStatements, "pg_stat_statements is not installed")
	in.Runs[0].Run.Evidence.Calls = 0
	f := Experiment(in, Defaults())
	r := f.Ramp
	if r == nil || len(r.Cells) != 8 {
		t.Fatalf("ramp cells: %+v", r)
	}
	c := r.Cells[0]
	if c.Variant != "A" || c.Level != 2 || len(c.Runs) != 3 {
		t.Fatalf("first cell: %+v", c)
	}
	calls := c.Figure(FigCalls)
	if calls == nil || calls.N != 2 || !(calls.Median > 0) || calls.Min > calls.Median || calls.Max < calls.Median {
		t.Errorf("calls/s at level 2 (one run without statements): %+v", calls)
	}
	if calls.Of != 3 || !strings.Contains(calls.Missing, "not installed") {
		t.Errorf("calls/s at level 2 must say why one run of 3 lacks it: %+v", calls)
	}
	if us := c.Figure("us"); us == nil || us.N != 0 || !strings.Contains(us.Missing, "os.csv") {
		t.Errorf("vmstat us without os.csv must be missing with the reason, got %+v", us)
	}
	if lock := c.Figure("wait Lock %"); lock == nil || math.Abs(lock.Median-5) > 1e-9 {
		t.Errorf("Lock share: %+v", lock)
	}
	if s := c.Figure("wait Lock sessions"); s == nil || math.Abs(s.Median-0.1) > 1e-9 {
		t.Errorf("Lock average active sessions = share × all samples/ticks = 0.05 × 2: %+v", s)
	}
	if len(c.TopByTime) != 1 || c.TopByTime[0].BlocksPerCall != 10 {
		t.Errorf("top statements: %+v", c.TopByTime)
	}
	// Every run of a cell without statements: missing with the reason.
	for i := range in.Runs {
		in.Runs[i].Run.Evidence.SetMissing(results.EvidenceStatements, "pg_stat_statements is not installed")
	}
	f = Experiment(in, Defaults())
	if s := f.Ramp.Cells[0].Figure(FigCalls); s.N != 0 || !strings.Contains(s.Missing, "not installed") {
		t.Errorf("calls/s without statements: %+v", s)
	}
}

func TestRampTrends(t *testing.T) {
	in := synthRamp(t, []float64{2, 4, 6, 8}, 3, 1, 0.05, 0.0, 1)
	// Lock share rising linearly with the level in A: 1 point per client.
	for i := range in.Runs {
		r := &in.Runs[i]
		if r.Variant == "A" {
			lock := r.Level / 100
			r.Run.Evidence.WaitTypes = map[string]float64{"CPU": 1 - lock, "Lock": lock}
		}
	}
	f := Experiment(in, Defaults())
	var lock, tps *Trend
	for _, tr := range f.Ramp.Trends {
		if tr.Variant == "A" && tr.Figure == "wait Lock %" {
			lock = tr
		}
		if tr.Variant == "A" && tr.Figure == FigTPS {
			tps = tr
		}
	}
	if lock == nil || !lock.OK || math.Abs(lock.Slope-1) > 1e-9 || lock.R2 < 0.999 || lock.N != 12 {
		t.Fatalf("Lock trend: %+v", lock)
	}
	if tps == nil || !(tps.Slope > 0) || !(tps.Lo <= tps.Slope && tps.Slope <= tps.Hi) || tps.R2 < 0.9 {
		t.Errorf("tps trend: %+v", tps)
	}
}

func TestKnee(t *testing.T) {
	cell := func(level, p99 float64) *RampCell {
		return &RampCell{Variant: "A", Level: level, Figures: []Stat{{Name: FigP99, Median: p99, Min: p99, Max: p99, N: 1},
			{Name: FigTPS, Median: 100 * level, N: 1}}}
	}
	// p99 ∝ level (elasticity 1) then ×4 for ×1.33 load: knee at 6.
	k := knee("A", []*RampCell{cell(2, 1), cell(4, 2), cell(6, 3), cell(8, 12)})
	if !k.Found || k.Level != 6 || k.Next != 8 || len(k.Segments) != 3 {
		t.Fatalf("knee: %+v", k)
	}
	if e := k.Segments[0].Elasticity; math.Abs(e-1) > 1e-9 {
		t.Errorf("elasticity of p99 ∝ level = %v, want 1", e)
	}
	if !strings.Contains(k.Text, "knee at 6") || !strings.Contains(k.Rule, "exceeds 1") {
		t.Errorf("knee text: %q", k.Text)
	}
	// Exactly proportional: no knee (the rule is "exceeds").
	k = knee("A", []*RampCell{cell(2, 1), cell(4, 2), cell(8, 4)})
	if k.Found || !strings.Contains(k.Text, "no knee in the levels measured") {
		t.Errorf("no knee expected: %+v", k)
	}
	// One level: none can be found.
	if k = knee("A", []*RampCell{cell(2, 1)}); k.Found || !strings.Contains(k.Text, "fewer than 2 levels") {
		t.Errorf("one level: %+v", k)
	}
}

func TestVariantChangeOverRamp(t *testing.T) {
	in := synthRamp(t, []float64{2, 4, 6, 8}, 3, 1.3, 0.25, 0.02, 3)
	f := Experiment(in, Defaults())
	if len(f.Variants) != 1 {
		t.Fatalf("variants: %+v", f.Variants)
	}
	vc := f.Variants[0]
	if len(vc.Levels) != 4 {
		t.Fatalf("levels: %d", len(vc.Levels))
	}
	var speed, lock *Change
	for _, c := range vc.OverRamp {
		switch c.Figure {
		case FigCalls:
			speed = c
		case "wait Lock %":
			lock = c
		}
	}
	if speed == nil || speed.Role != stats.RolePrimary || speed.Pairs != 12 || speed.Outcome != stats.OutcomeDiffers || !speed.Ratio {
		t.Fatalf("speed over the ramp: %+v", speed)
	}
	if math.Abs(speed.Point-1.3) > 0.05 || !(speed.Lo < 1.3 && 1.3 < speed.Hi) {
		t.Errorf("speed ratio %v [%v, %v], want about 1.3", speed.Point, speed.Lo, speed.Hi)
	}
	for _, want := range []string{"operational speed (calls/s) better (higher): +", "Wilcoxon signed-rank over 12 level×repeat pairs, p "} {
		if !strings.Contains(speed.Text, want) {
			t.Errorf("speed text %q lacks %q", speed.Text, want)
		}
	}
	if lock == nil || lock.Ratio || lock.Outcome != stats.OutcomeDiffers || math.Abs(lock.Point-20) > 1e-6 ||
		!strings.Contains(lock.Text, "Lock waits (% of active time) higher: +20.0 points") {
		t.Errorf("Lock over the ramp: %+v", lock)
	}
	// Per level: 3 vs 3 runs cannot decide, and says so.
	var lvlTPS *Change
	for _, c := range vc.Levels[0].Changes {
		if c.Figure == "tps" {
			lvlTPS = c
		}
	}
	if lvlTPS == nil || lvlTPS.Outcome != stats.OutcomeInconclusive || !strings.Contains(lvlTPS.Text, "cannot reach p < 0.05") {
		t.Errorf("a level's tps with 3 vs 3 runs: %+v", lvlTPS)
	}
	// The UPDATE does more blocks per call, named with its text.
	if len(vc.Statements) != 1 || vc.Statements[0].Outcome != stats.OutcomeDiffers || !strings.Contains(vc.Statements[0].Text, "UPDATE pgbench_accounts") ||
		vc.Statements[0].A != 10 || vc.Statements[0].B != 25 {
		t.Errorf("statements: %+v", vc.Statements)
	}
	if len(vc.Notes) != 2 || !strings.Contains(strings.Join(vc.Notes, "\n"), "stops HOT updates") {
		t.Errorf("notes: %q", vc.Notes)
	}
	// The wait event that changed.
	found := false
	for _, c := range vc.WaitEvents {
		found = found || (c.Figure == "event Lock:transactionid %" && c.Outcome == stats.OutcomeDiffers)
	}
	if !found {
		t.Errorf("wait events: %+v", vc.WaitEvents)
	}
}

func TestVariantChangeOneRunASide(t *testing.T) {
	in := synthRamp(t, []float64{4}, 1, 1.3, 0.25, 0.02, 3)
	in.Levels = nil // a fixed load
	for i := range in.Runs {
		in.Runs[i].Level = 0
	}
	f := Experiment(in, Defaults())
	if f.Ramp != nil {
		t.Errorf("a fixed load has no ramp: %+v", f.Ramp)
	}
	vc := f.Variants[0]
	if vc.OverRamp != nil || len(vc.Levels) != 1 {
		t.Fatalf("fixed load: %+v", vc)
	}
	for _, c := range vc.Levels[0].Changes {
		if c.Outcome == OutcomeMissing && (strings.Contains(c.Text, "os.csv") || strings.Contains(c.Text, "no disk statistics")) {
			continue // no os.csv in these synthetic runs
		}
		if c.Outcome != OutcomeDescribed || !strings.HasPrefix(c.Text, "described, not judged (1 vs 1 runs)") {
			t.Errorf("%s with one run a side: %s %q", c.Figure, c.Outcome, c.Text)
		}
	}
	for _, c := range vc.Statements {
		if c.Outcome != OutcomeDescribed {
			t.Errorf("statement with one pair: %+v", c)
		}
	}
}

// TestOverRampFalsePositives runs seeded A/A ramps (4 levels × 3 repeats,
// the same distribution on both sides, a level effect and noise) and counts
// how often the paired signed-rank test of speed says "differs": at most
// about α = 5 % (the exact test at 12 pairs is conservative). A true +10 %
// shift with 5 % noise must be found in most ramps.
func TestOverRampFalsePositives(t *testing.T) {
	const sims = 400
	rnd := rand.New(rand.NewPCG(17, 17))
	levels := []float64{2, 4, 6, 8}
	rate := func(shift float64) float64 {
		hits := 0
		for range sims {
			var a, b []float64
			for _, l := range levels {
				for range 3 {
					base := 1000 * math.Sqrt(l)
					a = append(a, base*math.Exp(0.05*rnd.NormFloat64()))
					b = append(b, base*shift*math.Exp(0.05*rnd.NormFloat64()))
				}
			}
			c := pairedChange(pairedSpec{name: FigCalls, pairs: "level×repeat", higherIsBetter: true, alpha: 0.05, margin: 0.05, role: stats.RolePrimary}, a, b)
			if c.Outcome == stats.OutcomeDiffers {
				hits++
			}
		}
		return float64(hits) / sims
	}
	fp := rate(1)
	power := rate(1.10)
	t.Logf("A/A false-positive rate %.3f, power at +10 %% (5 %% noise) %.3f", fp, power)
	if fp > 0.07 {
		t.Errorf("false-positive rate %.3f > 0.07", fp)
	}
	if power < 0.9 {
		t.Errorf("power %.3f < 0.9 for a +10 %% shift", power)
	}
}

// TestRampOSFromRunDir reads vmstat and disk from a synthetic run
// directory's os.csv and evidence.
func TestRampOSFromRunDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run, err := resultstest.WriteRun(dir, resultstest.Options{Duration: 10 * time.Second, Seed: 1, Rate: -1})
	if err != nil {
		t.Fatal(err)
	}
	in := &ExperimentInput{By: "clients", Levels: []float64{8}, Variants: []string{"A"},
		Runs: []ExpRun{{Variant: "A", Level: 8, Repeat: 1, Dir: dir, Run: run}}}
	f := Experiment(in, Defaults())
	c := f.Ramp.Cells[0]
	for _, name := range []string{"r", "us", "sy", "wa", "id", "st", FigDiskUtil, FigDiskAwait} {
		s := c.Figure(name)
		if s == nil || s.N != 1 {
			t.Errorf("%s from os.csv: %+v", name, s)
		}
	}
	if us := c.Figure("us"); us.Median < 5 || us.Median > 40 {
		t.Errorf("us mean %v outside the synthetic 5..40 %%", us.Median)
	}
	if u := c.Figure(FigDiskUtil); math.Abs(u.Median-35) > 1e-9 {
		t.Errorf("disk util %v, want the evidence's 35 %%", u.Median)
	}
}

// TestOverRampNegligible: seeded ramps with a true +1 % shift and 0.3 %
// noise are a "differs" marked negligible (the 90 % interval lies within
// ±5 %) nearly always; a +10 % shift never is.
func TestOverRampNegligible(t *testing.T) {
	const sims = 200
	rnd := rand.New(rand.NewPCG(17, 23))
	levels := []float64{2, 4, 6, 8}
	rate := func(shift float64) (differs, negligible float64) {
		var d, g int
		for range sims {
			var a, b []float64
			for _, l := range levels {
				for range 3 {
					base := 1000 * math.Sqrt(l)
					a = append(a, base*math.Exp(0.003*rnd.NormFloat64()))
					b = append(b, base*shift*math.Exp(0.003*rnd.NormFloat64()))
				}
			}
			c := pairedChange(pairedSpec{name: FigCalls, pairs: "level×repeat", higherIsBetter: true, alpha: 0.05, margin: 0.05, role: stats.RolePrimary}, a, b)
			if c.Outcome == stats.OutcomeDiffers {
				d++
			}
			if c.Negligible {
				g++
				if c.Outcome != stats.OutcomeDiffers || !strings.Contains(c.Text, "; negligible: the ") {
					t.Fatalf("negligible %q: %s", c.Outcome, c.Text)
				}
			}
		}
		return float64(d) / sims, float64(g) / sims
	}
	d, g := rate(1.01)
	t.Logf("+1 %%: differs %.3f, negligible %.3f", d, g)
	if d < 0.95 || g < 0.95 {
		t.Errorf("+1 %% with 0.3 %% noise: differs %.3f, negligible %.3f; want both ≥ 0.95", d, g)
	}
	d, g = rate(1.10)
	t.Logf("+10 %%: differs %.3f, negligible %.3f", d, g)
	if d < 0.95 || g != 0 {
		t.Errorf("+10 %%: differs %.3f, negligible %.3f; want differs ≥ 0.95, never negligible", d, g)
	}
}
