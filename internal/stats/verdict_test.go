package stats

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// sample draws n values center·(1 + noise·N(0,1)) from rng.
func sample(rng *rand.Rand, n int, center, noise float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = center * (1 + noise*rng.NormFloat64())
	}
	return out
}

func TestVerdict(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 6))
	aaA, aaB := sample(rng, 4, 1000, 0.03), sample(rng, 4, 1000, 0.03)
	shiftA, shiftB := sample(rng, 4, 100, 0.02), sample(rng, 4, 120, 0.02)
	tests := []struct {
		name      string
		cfg       VerdictConfig
		a, b      []float64
		direction string
		bHigher   bool
		outcome   string
		text      string // regular expression the whole Text must match
	}{
		{
			name: "A/A tps", cfg: VerdictConfig{Metric: "tps", HigherIsBetter: true}, a: aaA, b: aaB,
			direction: DirNone, outcome: OutcomeInconclusive,
			text: `^inconclusive: tps changes from -\d\.\d % to \+\d\.\d % are not excluded \(97\.1 % interval\), Mann-Whitney exact p = 0\.\d+, 4 vs 4 runs; these runs detect ±\d\.\d % at 80 % power, ±5 % needs \d+ runs a side$`,
		},
		{
			name: "p99 +20 %: worse", cfg: VerdictConfig{Metric: "p99", Better: "faster", Worse: "slower"}, a: shiftA, b: shiftB,
			direction: DirWorse, bHigher: true, outcome: OutcomeDiffers,
			text: `^B slower: p99 \+\d\d %, 97\.1 % interval \[\+\d\d %, \+\d\d %\], Mann-Whitney exact p = 0\.029, 4 vs 4 runs$`,
		},
		{
			name: "tps +20 %: better", cfg: VerdictConfig{Metric: "tps", HigherIsBetter: true, NameB: "sync_off"}, a: shiftA, b: shiftB,
			direction: DirBetter, bHigher: true, outcome: OutcomeDiffers, text: `^sync_off better: tps \+\d\d %, `,
		},
		{
			name: "p99 −20 %: better", cfg: VerdictConfig{Metric: "p99"}, a: shiftB, b: shiftA,
			direction: DirBetter, outcome: OutcomeDiffers,
			text: `^B better: p99 -\d\d %, 97\.1 % interval \[-\d\d %, -\d\d %\], Mann-Whitney exact p = 0\.029, 4 vs 4 runs$`,
		},
		{
			name: "exact sentence", cfg: VerdictConfig{Metric: "p99", Better: "faster", Worse: "slower"},
			a: []float64{100, 101, 102, 103}, b: []float64{120, 121, 122, 123},
			direction: DirWorse, bHigher: true, outcome: OutcomeDiffers,
			text: `^B slower: p99 \+20 %, 97\.1 % interval \[\+17 %, \+23 %\], Mann-Whitney exact p = 0\.029, 4 vs 4 runs$`,
		},
		{
			// Separated, but 3 vs 3 cannot reach p < 0.05: no verdict.
			name: "3 vs 3 separated", cfg: VerdictConfig{Metric: "p99"},
			a: []float64{100, 101, 102}, b: []float64{150, 151, 152},
			direction: DirNone, outcome: OutcomeInconclusive,
			text: `^inconclusive: p99 ratio 1\.50 \(no 95 % interval with 3 vs 3 runs\), Mann-Whitney exact p = 0\.1, 3 vs 3 runs; 3 vs 3 runs cannot reach p < 0\.05 \(at best 0\.1\): at least 4 runs a side are needed$`,
		},
		{
			name: "zero baseline uses the difference", cfg: VerdictConfig{Metric: "skipped share"},
			a: []float64{0, 0, 0, 0}, b: []float64{0.05, 0.06, 0.04, 0.07},
			direction: DirWorse, bHigher: true, outcome: OutcomeDiffers,
			text: `^B worse: skipped share \+0\.055, 97\.1 % interval \[\+0\.04, \+0\.07\] \(a difference: a value is 0\), Mann-Whitney exact \(conditional on ties\) p = 0\.029, 4 vs 4 runs$`,
		},
		{
			name: "all zero", cfg: VerdictConfig{Metric: "skipped share"},
			a: []float64{0, 0, 0, 0}, b: []float64{0, 0, 0, 0},
			direction: DirNone, outcome: OutcomeInconclusive,
			text: `^inconclusive: skipped share is 0 in every run of both sides \(nothing to test\), 4 vs 4 runs$`,
		},
		{
			name: "equivalent", cfg: VerdictConfig{Metric: "tps", HigherIsBetter: true},
			a: []float64{1000, 1001, 999, 1000.5, 1000.2}, b: []float64{1000.1, 1000.3, 999.5, 1000, 1001},
			direction: DirNone, outcome: OutcomeEquivalent,
			text: `^equivalent within ±5 %: tps ratio 1\.00, 90\.5 % interval \[1\.00, 1\.00\], 5 vs 5 runs$`,
		},
		{
			name: "exploratory under Holm", cfg: VerdictConfig{Metric: "IO wait %", Role: RoleExploratory,
				Holm: &HolmStep{Tests: 10, Rank: 1, Level: 0.005, Rejected: false}},
			a: []float64{100, 101, 102, 103}, b: []float64{120, 121, 122, 123},
			direction: DirNone, outcome: OutcomeInconclusive,
			text: `^exploratory: inconclusive: IO wait % ratio 1\.20 \(no 99\.5 % interval with 4 vs 4 runs\), Mann-Whitney exact p = 0\.029 \(Holm: level 0\.005, 10 tests\), 4 vs 4 runs; 4 vs 4 runs cannot reach p < 0\.005`,
		},
		{
			name: "below its level, but Holm stopped earlier", cfg: VerdictConfig{Metric: "p95", Role: RoleExploratory,
				Holm: &HolmStep{Tests: 8, Rank: 3, Level: 0.05, Adjusted: 0.06, Rejected: false}},
			a: []float64{100, 101, 102, 103}, b: []float64{120, 121, 122, 123},
			direction: DirNone, outcome: OutcomeInconclusive,
			text: `^exploratory: inconclusive: p95 ratio 1\.20 \[1\.1\d, 1\.2\d\], p below its level but Holm's step-down stopped before it \(adjusted p = 0\.06\), Mann-Whitney exact p = 0\.029 \(Holm: level 0\.05, 8 tests\), 4 vs 4 runs`,
		},
		{
			name: "no runs", cfg: VerdictConfig{Metric: "tps"}, a: nil, b: []float64{1, 2},
			direction: DirNone, outcome: OutcomeInconclusive, text: `^cannot compare tps 0 vs 2 runs$`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Verdict(tc.cfg, tc.a, tc.b)
			if r.Outcome != tc.outcome {
				t.Errorf("outcome %q, want %q (%s)", r.Outcome, tc.outcome, r.Text)
			}
			if r.Direction != tc.direction || r.BHigher != tc.bHigher {
				t.Errorf("direction %q bHigher %v, want %q %v (%s)", r.Direction, r.BHigher, tc.direction, tc.bHigher, r.Text)
			}
			if !regexp.MustCompile(tc.text).MatchString(r.Text) {
				t.Errorf("text %q does not match %q", r.Text, tc.text)
			}
			if r.Direction != DirNone {
				iv, null := r.Ratio, 1.0
				if !iv.OK {
					iv, null = r.Diff, 0
				}
				if !iv.Excludes(null) || r.P >= DefaultAlpha {
					t.Errorf("a difference needs the interval to exclude %v and p < 0.05: %+v, p %v", null, iv, r.P)
				}
			}
			if r.NA != r.A.N || r.NB != r.B.N || r.P != r.MW.P {
				t.Errorf("inconsistent result: %+v", r)
			}
		})
	}
}

// TestVerdictErrorRates checks the rule's behaviour over many synthetic
// experiments: A/A gives "different" at most at about the non-overlap rate
// 2/70 = 2.9 % (4 vs 4), and a 20 % shift with 2 % noise is always found.
func TestVerdictErrorRates(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const trials = 200
	falsePos := 0
	for range trials {
		r := Verdict(VerdictConfig{Metric: "tps", HigherIsBetter: true},
			sample(rng, 4, 800, 0.05), sample(rng, 4, 800, 0.05))
		if r.Direction != DirNone {
			falsePos++
		}
	}
	// Binomial(200, 0.0286): mean 5.7, sd 2.4; 15 is about 4 sd above.
	if falsePos > 15 {
		t.Errorf("A/A: %d of %d trials called different, want ≤ 15 (≈ 2.9 %%)", falsePos, trials)
	}
	for i := range 50 {
		r := Verdict(VerdictConfig{Metric: "p99"},
			sample(rng, 4, 20, 0.02), sample(rng, 4, 24, 0.02))
		if r.Direction != DirWorse || !r.Ratio.Excludes(1) || r.Ratio.Point < 1.1 {
			t.Fatalf("trial %d: 20 %% shift not found: %s", i, r.Text)
		}
	}
}
