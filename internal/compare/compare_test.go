package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// side draws n runs whose tps and p99 vary by a log-normal noise of sd
// sigma (a run-to-run spread of ~sigma) around tps and p99 ms.
func side(rng *rand.Rand, name string, n int, tps, p99, sigma float64, t0 time.Time) []RunRef {
	runs := make([]RunRef, n)
	for i := range runs {
		noise := func() float64 { return math.Exp(sigma * rng.NormFloat64()) }
		r := &results.Run{
			StartedAt: t0.Add(time.Duration(2*i) * time.Minute),
			Workload:  results.Workload{Name: "tpcb-like"},
			Model:     results.Model{Kind: results.ModelOpen, Clients: 8, Rate: 1000},
			Summary: &results.Summary{Total: results.ScriptSummary{
				Committed: 60000,
				TPS:       tps * noise(),
				Response:  results.Percentiles{P50: p99 / 4 * noise(), P95: p99 / 2 * noise(), P99: p99 * noise(), P999: 2 * p99 * noise(), Max: 4 * p99 * noise()},
			}},
		}
		runs[i] = RunRef{Label: fmt.Sprintf("%s#%d", name, i+1), Dir: fmt.Sprintf("runs/%s-%d", name, i+1), Run: r, StartedAt: r.StartedAt}
	}
	return runs
}

func metric(t *testing.T, rep *Report, name string) *Metric {
	t.Helper()
	for i := range rep.Metrics {
		if rep.Metrics[i].Metric == name {
			return &rep.Metrics[i]
		}
	}
	t.Fatalf("no metric %q in the report", name)
	return nil
}

// simulate builds the comparison of 5 vs 5 runs for seeds 1..seeds, B's
// tps and p99 scaled by tpsB and p99B, with primary as the primary metric,
// and counts the seeds whose primary verdict found a difference and those
// with any "differs" at all; a found difference must have the direction
// want (any when ""). A verdict without a difference is "inconclusive" or
// "equivalent", never a bare "no difference".
func simulate(t *testing.T, seeds int, tpsB, p99B float64, want, primary string) (primaryFound, anyFound int) {
	t.Helper()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	const n, sigma = 5, 0.08
	for seed := 1; seed <= seeds; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
		a := side(rng, "A", n, 1000, 20, sigma, t0)
		b := side(rng, "B", n, 1000*tpsB, 20*p99B, sigma, t0.Add(time.Minute))
		rep := Build(Options{NameA: "A", NameB: "B", Seed: uint64(seed), Primary: primary}, a, b)
		if rep.Primary != primary || rep.Tests != len(rep.Metrics) {
			t.Fatalf("seed %d: primary %q, %d tests for %d metrics", seed, rep.Primary, rep.Tests, len(rep.Metrics))
		}
		found := false
		for _, m := range rep.Metrics {
			v := &m.Verdict
			if (v.Role == stats.RolePrimary) != (m.Metric == primary) {
				t.Fatalf("seed %d: %s has role %s", seed, m.Metric, v.Role)
			}
			if v.Outcome != stats.OutcomeDiffers {
				if v.Direction != stats.DirNone || strings.Contains(v.Text, "no difference") {
					t.Fatalf("seed %d: %s: %q (direction %s)", seed, m.Metric, v.Text, v.Direction)
				}
				continue
			}
			found = true
			if m.Metric == primary {
				primaryFound++
				if want != "" && v.Direction != want {
					t.Errorf("seed %d: %s verdict %q, want B %s", seed, m.Metric, v.Text, want)
				}
			}
		}
		if found {
			anyFound++
		}
	}
	return primaryFound, anyFound
}

// Two sides drawn from the same distribution: the primary metric (tps, then
// p99) says "differs" in at most 10 % of 200 seeds, and so does the whole
// comparison of 9 metrics (Holm's correction over the exploratory ones).
func TestSameDistributionNoDifference(t *testing.T) {
	const seeds = 200
	for _, primary := range []string{"tps", "p99"} {
		primaryFound, anyFound := simulate(t, seeds, 1, 1, "", primary)
		t.Logf("same distribution, primary %s: the primary differs in %d, any metric in %d of %d seeds", primary, primaryFound, anyFound, seeds)
		if anyFound > seeds/10 {
			t.Errorf("primary %s: some metric differs in %d of %d seeds, want ≤ 10 %%", primary, anyFound, seeds)
		}
	}
}

// A real shift of 30 % (B's tps 30 % lower, its p99 30 % higher) with 5 runs
// a side and 8 % run-to-run noise: the primary metric detects it, as B
// worse, in most seeds.
func TestShiftDetected(t *testing.T) {
	const seeds = 200
	for _, primary := range []string{"tps", "p99"} {
		found, _ := simulate(t, seeds, 0.7, 1.3, stats.DirWorse, primary)
		t.Logf("30 %% shift: primary %s detects it in %d of %d seeds", primary, found, seeds)
		if found < seeds*90/100 {
			t.Errorf("%s: the 30 %% shift detected in %d of %d seeds, want ≥ 90 %%", primary, found, seeds)
		}
	}
}

// The verdict names the test and the run counts; too few runs say so (the
// text report is internal/report's TestCompare). Open runs default to p99
// as the primary metric.
func TestVerdictText(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(7, 7))
	a := side(rng, "A", 5, 1000, 20, 0.02, t0)
	b := side(rng, "B", 4, 700, 26, 0.02, t0.Add(time.Minute))
	if rep := Build(Options{NameA: "base", NameB: "new"}, a, b); rep.Primary != "p99" {
		t.Errorf("open runs: primary %q, want p99", rep.Primary)
	}
	rep := Build(Options{NameA: "base", NameB: "new", Seed: 1, Primary: "tps"}, a, b)
	tps := metric(t, rep, "tps")
	for _, want := range []string{"new slower", "Mann-Whitney exact p = ", "5 vs 4 runs"} {
		if !strings.Contains(tps.Verdict.Text, want) {
			t.Errorf("tps verdict %q lacks %q", tps.Verdict.Text, want)
		}
	}
	if tps.Verdict.NA != 5 || tps.Verdict.NB != 4 || len(tps.ValuesA) != 5 || len(tps.ValuesB) != 4 {
		t.Errorf("tps counts: %d vs %d, values %d vs %d", tps.Verdict.NA, tps.Verdict.NB, len(tps.ValuesA), len(tps.ValuesB))
	}
	// 3 vs 3 runs cannot go below p = 0.10: inconclusive, and a warning.
	rep = Build(Options{NameA: "A", NameB: "B", Seed: 1, Primary: "tps"}, a[:3], b[:3])
	tps = metric(t, rep, "tps")
	if tps.Verdict.Outcome != stats.OutcomeInconclusive || !strings.Contains(tps.Verdict.Text, "cannot reach p < 0.05") || !strings.Contains(tps.Verdict.Text, "3 vs 3 runs") {
		t.Errorf("3 vs 3 verdict %q, outcome %s", tps.Verdict.Text, tps.Verdict.Outcome)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), "3 vs 3 runs: the smallest p-value") {
		t.Errorf("3 vs 3 warnings: %q", rep.Warnings)
	}
	// An unknown primary falls back to the model's, with a warning.
	rep = Build(Options{NameA: "A", NameB: "B", Primary: "p42"}, a, b)
	if rep.Primary != "p99" || !strings.Contains(strings.Join(rep.Warnings, "\n"), `primary metric "p42"`) {
		t.Errorf("unknown primary: %q, warnings %q", rep.Primary, rep.Warnings)
	}
}

// Runs that differ in what they measured are refused; a rate that differs
// only is a refusal too, the scale a note.
func TestDifferences(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	runs := side(rng, "A", 2, 1000, 20, 0.02, t0)
	if refusals, notes := Differences(runs); len(refusals) != 0 || len(notes) != 0 {
		t.Errorf("identical runs: refusals %q, notes %q", refusals, notes)
	}
	runs[1].Run.Model.Rate = 2000
	runs[1].Run.Workload.Scale = 10
	refusals, notes := Differences(runs)
	if len(refusals) != 1 || !strings.Contains(refusals[0], "rate") {
		t.Errorf("refusals %q, want the rate", refusals)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "scale") {
		t.Errorf("notes %q, want the scale", notes)
	}
}

// ExpandRunDirs takes run directories and directories of runs; LoadSide
// labels the runs by side; the same run on both sides is refused.
func TestLoadSides(t *testing.T) {
	root := t.TempDir()
	mk := func(path string) string {
		dir := filepath.Join(root, path)
		run := &results.Run{Model: results.Model{Kind: results.ModelClosed, Clients: 1}}
		d, err := results.Create(dir, run)
		if err != nil {
			t.Fatal(err)
		}
		run.Summary = &results.Summary{Duration: 1, Total: results.ScriptSummary{Committed: 10, TPS: 10}}
		if err := d.Finish(run); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a1, a2 := mk("a/1"), mk("a/2")
	b1 := mk("b1")
	dirs, err := ExpandRunDirs([]string{filepath.Join(root, "a")})
	if err != nil || len(dirs) != 2 || dirs[0] != a1 || dirs[1] != a2 {
		t.Fatalf("ExpandRunDirs(a) = %q, %v", dirs, err)
	}
	if _, err := ExpandRunDirs([]string{filepath.Join(root, "none")}); err == nil {
		t.Error("a missing directory was expanded")
	}
	if err := os.MkdirAll(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ExpandRunDirs([]string{filepath.Join(root, "empty")}); err == nil || !strings.Contains(err.Error(), "not a run directory") {
		t.Errorf("an empty directory: %v", err)
	}
	sideA, err := LoadSide("A", dirs)
	if err != nil || len(sideA) != 2 || sideA[0].Label != "A#1" || sideA[1].Label != "A#2" || sideA[0].Run == nil {
		t.Fatalf("LoadSide = %+v, %v", sideA, err)
	}
	sideB, err := LoadSide("B", []string{b1})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckDistinct(append(sideA, sideB...)); err != nil {
		t.Errorf("distinct runs refused: %v", err)
	}
	again, _ := LoadSide("B", []string{a1})
	if err := CheckDistinct(append(sideA, again...)); err == nil {
		t.Error("the same run on both sides was accepted")
	}
}

// waitRuns is one run per element of io and timeout (shares 0..1 of the
// IO:DataFileRead and Timeout:PgSleep events): the top events are
// CPU 0.60, LWLock 0.15, Lock 0.10, Client 0.06, then IO and Timeout, of
// which only the larger is in Evidence.Waits (the top 5, as
// collect.EvidenceTopWaits cuts them); Evidence.WaitTypes has every type.
func waitRuns(name string, io, timeout []float64, t0 time.Time) []RunRef {
	runs := make([]RunRef, len(io))
	for i := range runs {
		waits := []results.WaitShare{
			{Type: "CPU", Event: "CPU", Share: 0.60},
			{Type: "LWLock", Event: "WALWrite", Share: 0.15},
			{Type: "Lock", Event: "tuple", Share: 0.10},
			{Type: "Client", Event: "ClientRead", Share: 0.06},
		}
		ioEv := results.WaitShare{Type: "IO", Event: "DataFileRead", Share: io[i]}
		toEv := results.WaitShare{Type: "Timeout", Event: "PgSleep", Share: timeout[i]}
		if io[i] >= timeout[i] {
			waits = append(waits, ioEv) // IO 5th, Timeout 6th: cut
		} else {
			waits = append(waits, toEv) // Timeout 5th, IO 6th: cut
		}
		r := &results.Run{
			StartedAt: t0.Add(time.Duration(2*i) * time.Minute),
			Workload:  results.Workload{Name: "tpcb-like"},
			Model:     results.Model{Kind: results.ModelOpen, Clients: 8, Rate: 1000},
			Summary:   &results.Summary{Total: results.ScriptSummary{Committed: 60000, TPS: 1000, Response: results.Percentiles{P50: 1, P95: 2, P99: 3, P999: 4, Max: 5}}},
			Evidence: &results.Evidence{Waits: waits, WaitTypes: map[string]float64{
				"CPU": 0.60, "LWLock": 0.15, "Lock": 0.10, "Client": 0.06,
				"IO": io[i], "Timeout": timeout[i], "Extension": 1 - 0.91 - io[i] - timeout[i],
			}},
		}
		runs[i] = RunRef{Label: fmt.Sprintf("%s#%d", name, i+1), Dir: fmt.Sprintf("runs/%s-%d", name, i+1), Run: r, StartedAt: r.StartedAt}
	}
	return runs
}

// Issue 15: the wait shares by type come from every sample
// (Evidence.WaitTypes), not from the top 5 events. A/A sides where IO is
// 5.0 % vs 4.9 % (ranked 5th on A, 6th and cut from the top events on B)
// said "B lower: IO wait % −100 %, p = 0.029"; they differ by nothing.
func TestWaitSharesFromEveryType(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	a := waitRuns("A", []float64{0.050, 0.051, 0.049, 0.0505}, []float64{0.0495, 0.0500, 0.0485, 0.0500}, t0)
	b := waitRuns("B", []float64{0.049, 0.050, 0.0485, 0.0495}, []float64{0.0500, 0.0505, 0.0490, 0.0500}, t0.Add(time.Minute))
	rep := Build(Options{NameA: "A", NameB: "B", Seed: 1}, a, b)
	for _, name := range []string{"IO wait %", "Timeout wait %", "CPU wait %"} {
		m := metric(t, rep, name)
		if m.Verdict.Direction != stats.DirNone {
			t.Errorf("%s: %q, want no difference (A %v, B %v)", name, m.Verdict.Text, m.Verdict.A.Sorted, m.Verdict.B.Sorted)
		}
	}
	io := metric(t, rep, "IO wait %")
	if got := *io.ValuesB[0]; math.Abs(got-4.9) > 1e-9 {
		t.Errorf("B#1's IO share %g %%, want 4.9 %% (from WaitTypes)", got)
	}
}

// A run whose evidence has top events but no shares by type (a run
// directory written before WaitTypes was recorded) has no value for the
// wait metrics, not 0 %, and a warning names it.
func TestWaitSharesOlderRuns(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	a := waitRuns("A", []float64{0.05, 0.05, 0.05, 0.05}, []float64{0.04, 0.04, 0.04, 0.04}, t0)
	b := waitRuns("B", []float64{0.05, 0.05, 0.05, 0.05}, []float64{0.04, 0.04, 0.04, 0.04}, t0.Add(time.Minute))
	a[1].Run.Evidence.WaitTypes = nil
	rep := Build(Options{NameA: "A", NameB: "B", Seed: 1}, a, b)
	io := metric(t, rep, "IO wait %")
	if io.ValuesA[1] != nil || io.ValuesA[0] == nil || io.Verdict.NA != 3 {
		t.Errorf("A#2 without WaitTypes: values %v, n = %d; want no value and 3 runs", io.ValuesA, io.Verdict.NA)
	}
	if w := strings.Join(rep.Warnings, "\n"); !strings.Contains(w, "A#2") || !strings.Contains(w, "wait") {
		t.Errorf("warnings %q do not name A#2's missing wait shares", rep.Warnings)
	}
}
