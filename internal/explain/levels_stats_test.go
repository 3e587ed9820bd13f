package explain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// rampRuns are the levels and variants of a simulated ramp: levels
// 2, 4, 6, 8, repeats runs at each, for each of variants.
func rampRuns(repeats, variants int) (level []float64, group []int) {
	for v := range variants {
		for _, l := range []float64{2, 4, 6, 8} {
			for range repeats {
				level, group = append(level, l), append(group, v)
			}
		}
	}
	return level, group
}

// TestPartialCorrConfounded is the partial correlation's false-positive
// rate when a wait's share and the latency both trend with the ramp's level
// (and shift with the variant) but are otherwise independent: the plain
// correlation across runs is "significant" in most ramps (the level is a
// confounder, pg_expecto's reading), the partial one in about 5 %.
func TestPartialCorrConfounded(t *testing.T) {
	const trials, alpha = 2000, 0.05
	for _, tc := range []struct {
		name              string
		repeats, variants int
	}{
		{"one variant, 4 levels × 3 runs", 3, 1},
		{"two variants, 4 levels × 3 runs", 3, 2},
	} {
		rng := rand.New(rand.NewPCG(17, uint64(tc.variants)))
		level, group := rampRuns(tc.repeats, tc.variants)
		var plain, partial int
		for range trials {
			x, y := make([]float64, len(level)), make([]float64, len(level))
			for i, l := range level {
				shift := float64(group[i]) // the variant moves both
				x[i] = 0.05*l + 0.1*shift + 0.05*rng.NormFloat64()
				y[i] = 2*l + 3*shift + 2*rng.NormFloat64()
			}
			if c := stats.Pearson(x, y); c.OK && corrP(c.R, float64(c.N-2)) < alpha {
				plain++
			}
			if p := partialCorr(x, y, level, group); p.OK && p.P < alpha {
				partial++
			}
		}
		rp, rq := float64(plain)/trials, float64(partial)/trials
		t.Logf("%s, share and p99 trend with the level, independent otherwise: p < %.2f in %.1f %% of %d ramps by the plain r across runs, %.1f %% by the partial r",
			tc.name, alpha, 100*rp, trials, 100*rq)
		if rq < 0.03 || rq > 0.07 {
			t.Errorf("%s: partial false-positive rate %.3f, want ≈ 0.05", tc.name, rq)
		}
		if rp < 0.5 {
			t.Errorf("%s: plain rate %.3f: the confounding this test documents is missing", tc.name, rp)
		}
	}
}

// TestPartialCorrPower is the partial correlation's power on a true
// association beyond the level: y's own noise holds x's (partial ρ ≈ 0.6).
func TestPartialCorrPower(t *testing.T) {
	const trials, alpha = 2000, 0.05
	rng := rand.New(rand.NewPCG(18, 1))
	for _, repeats := range []int{3, 5} {
		level, group := rampRuns(repeats, 1)
		hit := 0
		for range trials {
			x, y := make([]float64, len(level)), make([]float64, len(level))
			for i, l := range level {
				e := rng.NormFloat64()
				x[i] = 0.05*l + 0.05*e
				y[i] = 2*l + 2*(0.75*e+0.66*rng.NormFloat64())
			}
			if p := partialCorr(x, y, level, group); p.OK && p.P < alpha && p.R > 0 {
				hit++
			}
		}
		power := float64(hit) / trials
		t.Logf("partial ρ ≈ 0.75 beyond the level, 4 levels × %d runs: found (p < %.2f, r > 0) in %.1f %% of %d ramps", repeats, alpha, 100*power, trials)
		if min := map[int]float64{3: 0.7, 5: 0.9}[repeats]; power < min {
			t.Errorf("%d repeats: power %.3f, want ≥ %.2f", repeats, power, min)
		}
	}
}

// ar1 is an AR(1) series of n points with coefficient phi and unit
// innovations, plus mean.
func ar1(rng *rand.Rand, n int, phi, mean float64) []float64 {
	out := make([]float64, n)
	v := rng.NormFloat64() / math.Sqrt(1-phi*phi)
	for i := range out {
		v = phi*v + rng.NormFloat64()
		out[i] = mean + v
	}
	return out
}

// TestWithinCorr is the within-level association's false-positive rate
// when the runs' means of the wait and of the latency move together (the
// level) while the intervals within each run are independent AR(1)
// series: pooling the raw intervals finds an association in most
// experiments, the within-run one in about 5 %; and its power on a true
// association within the runs.
func TestWithinCorr(t *testing.T) {
	const trials, runs, n, alpha = 1000, 8, 60, 0.05
	for _, phi := range []float64{0, 0.5, 0.8} {
		rng := rand.New(rand.NewPCG(19, uint64(10*phi)))
		var pooled, within, power int
		for range trials {
			var xs, ys, zs [][]float64
			var px, py []float64
			for r := range runs {
				m := float64(r)
				x, y := ar1(rng, n, phi, 3*m), ar1(rng, n, phi, 3*m)
				z := make([]float64, n) // y with a true within-run association
				for i := range z {
					z[i] = y[i] + 0.5*(x[i]-3*m)
				}
				xs, ys, zs = append(xs, x), append(ys, y), append(zs, z)
				px, py = append(px, x...), append(py, y...)
			}
			if stats.Spearman(px, py).P < alpha {
				pooled++
			}
			if c := withinCorr(xs, ys); c.OK && c.P < alpha {
				within++
			}
			if c := withinCorr(xs, zs); c.OK && c.P < alpha && c.R > 0 {
				power++
			}
		}
		rp, rw, pw := float64(pooled)/trials, float64(within)/trials, float64(power)/trials
		t.Logf("%d runs × %d intervals, AR(1) φ = %.1f, run means moving together: p < %.2f in %.1f %% pooled raw, %.1f %% within runs; power within (slope 0.5): %.1f %%",
			runs, n, phi, alpha, 100*rp, 100*rw, 100*pw)
		if rw > 0.07 || rw < 0.02 {
			t.Errorf("φ = %.1f: within-run false-positive rate %.3f, want ≈ 0.05", phi, rw)
		}
		if rp < 0.5 {
			t.Errorf("φ = %.1f: pooled raw rate %.3f: the confounding this test documents is missing", phi, rp)
		}
		if pw < 0.8 {
			t.Errorf("φ = %.1f: within-run power %.3f, want ≥ 0.8", phi, pw)
		}
	}
}

// TestRankWaitsFamilyWise is the run-level ranking's false "association"
// rate: five waits whose per-interval shares are independent of the p99
// (all AR(1), φ = 0.9, 120 intervals); Holm over the five keeps the chance
// that any is labelled an association at about 5 % or below.
func TestRankWaitsFamilyWise(t *testing.T) {
	const trials, n, waits = 1000, 120, 5
	rng := rand.New(rand.NewPCG(20, 3))
	any := 0
	for range trials {
		p99 := ar1(rng, n, 0.9, 10)
		ws := make([]results.WaitAssociation, waits)
		for j := range ws {
			share := ar1(rng, n, 0.9, 0)
			ws[j].Share = 0.2
			ws[j].Slow = stats.Spearman(share, p99)
			ws[j].Score = ws[j].Share * max(0, ws[j].Slow.R)
		}
		rankWaits(ws)
		for _, w := range ws {
			if w.Holm < assocAlpha {
				any++
				break
			}
		}
	}
	rate := float64(any) / trials
	t.Logf("%d waits independent of p99 (AR(1) φ = 0.9, %d intervals): any labelled an association (Holm p < %.2f) in %.1f %% of %d runs",
		waits, n, assocAlpha, 100*rate, trials)
	if rate > 0.08 {
		t.Errorf("family-wise false-positive rate %.3f, want ≤ 0.08", rate)
	}
}
