package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/stats"
)

// driftingRounds is n rounds of A and B (closed runs, primary tps) on a
// machine whose speed falls by drift over the rounds, B faster by shift,
// with run-to-run noise sigma.
func driftingRounds(seed uint64, n int, shift, drift, sigma float64) (a, b []RunRef, rounds [][2]int) {
	rng := rand.New(rand.NewPCG(seed, 0x9a1))
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	a = side(rng, "A", n, 1000, 20, sigma, t0)
	b = side(rng, "B", n, 1000, 20, sigma, t0.Add(time.Minute))
	for r := range n {
		f := 1 + drift*float64(r)/float64(n-1)
		a[r].Run.Model.Kind, b[r].Run.Model.Kind = "closed", "closed"
		a[r].Run.Summary.Total.TPS *= f
		b[r].Run.Summary.Total.TPS *= f * shift
		rounds = append(rounds, [2]int{r, r})
	}
	return a, b, rounds
}

func TestPairedRounds(t *testing.T) {
	// A 3 % gain on a machine that slows by 12 % over 8 rounds: the
	// unpaired verdict cannot see it, the paired rounds do, and the drift
	// is reported.
	a, b, rounds := driftingRounds(1, 8, 1.03, -0.12, 0.005)
	rep := Build(Options{NameA: "A", NameB: "B", Rounds: rounds}, a, b)
	p := rep.Paired
	if p == nil {
		t.Fatal("no paired result with rounds given")
	}
	t.Logf("primary: %s", metric(t, rep, "tps").Verdict.Text)
	t.Logf("%s", p.Text)
	t.Logf("%s", p.DriftText)
	if p.Metric != "tps" || p.Rounds != 8 || len(p.D) != 8 || p.Runs[0] != [2]string{"A#1", "B#1"} {
		t.Errorf("paired: metric %s, %d rounds, runs %v", p.Metric, p.Rounds, p.Runs)
	}
	if !(p.Test.P < 0.05) || !p.Ratio.OK || !(p.Ratio.Lo > 1 && p.Ratio.Lo < 1.03 && p.Ratio.Hi > 1.03) {
		t.Errorf("paired test p %v, ratio %+v: want p < 0.05 and an interval around 1.03 above 1", p.Test.P, p.Ratio)
	}
	if !strings.HasPrefix(p.Text, "paired by round (8 rounds): tps ratio B/A 1.03, 96.1 % interval [") ||
		!strings.Contains(p.Text, "Wilcoxon signed-rank exact p = 0.0078") {
		t.Errorf("text %q", p.Text)
	}
	if !strings.HasPrefix(p.DriftText, "drift across rounds: A's tps drifted −12") || !(p.Drift.P < 0.05) {
		t.Errorf("drift %q (p %v, drift %v)", p.DriftText, p.Drift.P, p.Drift.Drift)
	}
	if v := metric(t, rep, "tps").Verdict; v.Outcome == stats.OutcomeDiffers {
		t.Errorf("the unpaired verdict saw through the drift (%s): the case does not show what pairing adds", v.Text)
	}

	// Without rounds (pgtrial compare of directories): no paired analysis.
	if rep := Build(Options{NameA: "A", NameB: "B"}, a, b); rep.Paired != nil {
		t.Errorf("paired without rounds: %+v", rep.Paired)
	}

	// 5 rounds, no drift: the exact test cannot reach 0.05 and says so; no
	// drift line; a round whose run has no value is left out.
	a, b, rounds = driftingRounds(2, 6, 1.03, 0, 0.005)
	b[2].Run.Summary.Total.TPS = math.NaN()
	rep = Build(Options{NameA: "A", NameB: "B", Rounds: rounds}, a, b)
	p = rep.Paired
	if p == nil || p.Rounds != 5 || p.DriftText != "" || p.Ratio.OK ||
		!strings.Contains(p.Text, "(no 95 % interval with 5 rounds)") ||
		!strings.Contains(p.Text, "5 rounds cannot reach p < 0.05 (at best 0.062): at least 6 are needed") {
		t.Errorf("5 rounds: %+v", p)
	}
}
