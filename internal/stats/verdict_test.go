package stats

import (
	"math/rand/v2"
	"regexp"
	"strings"
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
		text      string // regular expression the whole Text must match
	}{
		{
			name: "A/A tps", cfg: VerdictConfig{Metric: "tps", HigherIsBetter: true}, a: aaA, b: aaB,
			direction: DirNone,
			text:      `^no difference beyond noise \(tps ratio \d\.\d\d \[\d\.\d\d, \d\.\d\d\], Mann-Whitney p = 0\.\d+, 4 vs 4 runs\)$`,
		},
		{
			name: "A/A p99", cfg: VerdictConfig{Metric: "p99"}, a: aaA, b: aaB,
			direction: DirNone, text: `^no difference beyond noise \(p99 ratio`,
		},
		{
			name: "p99 +20 %: worse", cfg: VerdictConfig{Metric: "p99", Better: "faster", Worse: "slower"}, a: shiftA, b: shiftB,
			direction: DirWorse, bHigher: true,
			text: `^B slower: p99 \+\d\d % \[\+\d\d %, \+\d\d %\], Mann-Whitney p = 0\.029, 4 vs 4 runs$`,
		},
		{
			name: "tps +20 %: better", cfg: VerdictConfig{Metric: "tps", HigherIsBetter: true, NameB: "sync_off"}, a: shiftA, b: shiftB,
			direction: DirBetter, bHigher: true, text: `^sync_off better: tps \+\d\d % \[`,
		},
		{
			name: "p99 −20 %: better", cfg: VerdictConfig{Metric: "p99"}, a: shiftB, b: shiftA,
			direction: DirBetter, text: `^B better: p99 -\d\d % \[-\d\d %, -\d\d %\], Mann-Whitney p = 0\.029, 4 vs 4 runs$`,
		},
		{
			name: "exact sentence", cfg: VerdictConfig{Metric: "p99", Better: "faster", Worse: "slower", Seed: 1},
			a: []float64{100, 101, 102, 103}, b: []float64{120, 121, 122, 123},
			direction: DirWorse, bHigher: true,
			text: `^B slower: p99 \+20 % \[\+1[6-8] %, \+2[1-3] %\], Mann-Whitney p = 0\.029, 4 vs 4 runs$`,
		},
		{
			// Separated, but 3 vs 3 cannot reach p < 0.05: no verdict.
			name: "3 vs 3 separated", cfg: VerdictConfig{Metric: "p99"},
			a: []float64{100, 101, 102}, b: []float64{150, 151, 152},
			direction: DirNone,
			text:      `^too few runs to decide \(p99 ratio 1\.50 \[1\.4\d, 1\.5\d\], Mann-Whitney p = 0\.1, 3 vs 3 runs\); 3 vs 3 runs cannot reach p < 0\.05 \(at best 0\.1\)$`,
		},
		{
			name: "zero baseline uses the difference", cfg: VerdictConfig{Metric: "skipped share"},
			a: []float64{0, 0, 0, 0}, b: []float64{0.05, 0.06, 0.04, 0.07},
			direction: DirWorse, bHigher: true,
			text: `^B worse: skipped share \+0\.055 \[\+0\.04\d*, \+0\.07\d*\] \(difference: A's median is 0\), Mann-Whitney p = 0\.029, 4 vs 4 runs$`,
		},
		{
			name: "all zero", cfg: VerdictConfig{Metric: "skipped share"},
			a: []float64{0, 0, 0, 0}, b: []float64{0, 0, 0, 0},
			direction: DirNone, text: `^no difference beyond noise \(skipped share ratio 1\.00 \[1\.00, 1\.00\], Mann-Whitney p = 1, 4 vs 4 runs\)$`,
		},
		{
			name: "no runs", cfg: VerdictConfig{Metric: "tps"}, a: nil, b: []float64{1, 2},
			direction: DirNone, text: `^cannot compare tps 0 vs 2 runs$`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Verdict(tc.cfg, tc.a, tc.b)
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
	for i := range trials {
		r := Verdict(VerdictConfig{Metric: "tps", HigherIsBetter: true, Resamples: MinResamples, Seed: uint64(i)},
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
		r := Verdict(VerdictConfig{Metric: "p99", Resamples: MinResamples, Seed: uint64(i)},
			sample(rng, 4, 20, 0.02), sample(rng, 4, 24, 0.02))
		if r.Direction != DirWorse || !r.Ratio.Excludes(1) || r.Ratio.Lo < 1.1 {
			t.Fatalf("trial %d: 20 %% shift not found: %s", i, r.Text)
		}
	}
}

func TestVerdictUnreliableNote(t *testing.T) {
	// 3 vs 6 can reach p < 0.05 (2/C(9,3) = 0.024) but the interval rests on 3 runs.
	r := Verdict(VerdictConfig{Metric: "tps"}, []float64{1, 5, 9}, []float64{2, 4, 6, 8, 10, 3})
	if r.Direction != DirNone || !strings.HasSuffix(r.Text, "; interval unreliable with fewer than 4 runs a side") {
		t.Errorf("got %q", r.Text)
	}
}
