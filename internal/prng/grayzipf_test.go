package prng

import (
	"math"
	"testing"
)

// TestZetaEulerMaclaurin: the Euler–Maclaurin ζ agrees with the direct sum
// just past the switch and with YCSB's constant for its item space.
func TestZetaEulerMaclaurin(t *testing.T) {
	for _, theta := range []float64{0.5, 0.99, 0.2} {
		for _, n := range []int64{zetaExactTerms + 1, 123457, 1000000} {
			direct := 0.0
			for i := n; i >= 1; i-- {
				direct += math.Pow(float64(i), -theta)
			}
			if got := Zeta(n, theta); math.Abs(got-direct) > 1e-12*direct {
				t.Errorf("Zeta(%d, %g) = %.15g, direct sum %.15g", n, theta, got, direct)
			}
		}
	}
	// YCSB's ZIPFIAN_CONSTANT's ζ over ITEM_COUNT = 10^10
	// (ScrambledZipfianGenerator.ZETAN).
	if got, want := Zeta(10_000_000_000, 0.99), 26.46902820178302; math.Abs(got-want) > 1e-9 {
		t.Errorf("Zeta(1e10, 0.99) = %.15g, YCSB's %.15g", got, want)
	}
}

// TestGrayZipfPmfSums: the generator's pmf is a distribution, and ranks 0
// and 1 have Zipf's exact probabilities.
func TestGrayZipfPmfSums(t *testing.T) {
	for _, n := range []int64{1, 2, 3, 10, 1000} {
		g := NewGrayZipf(n, 0.99)
		sum := 0.0
		for k := int64(0); k < n; k++ {
			sum += g.Pmf(k)
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("n=%d: Σ pmf = %.12g", n, sum)
		}
		if n >= 3 {
			if z := 1 / g.Zetan(); math.Abs(g.Pmf(0)-z) > 1e-12 {
				t.Errorf("n=%d: pmf(0) = %g, Zipf %g", n, g.Pmf(0), z)
			}
		}
	}
}

// TestGrayZipfSimulation draws N ranks from a seeded stream and compares
// the frequencies with the generator's pmf by Pearson's chi-square over
// the first 200 ranks plus one bin for the rest: with 200 degrees of
// freedom the statistic has mean 200 and sd 20, so 300 (5 sd) fails only a
// broken generator. The top ranks are also compared with Zipf's exact pmf
// k^−θ/ζ(n): rank 0's share within 4 binomial sd of it.
func TestGrayZipfSimulation(t *testing.T) {
	const N = 400000
	const bins = 200
	for _, tc := range []struct {
		n     int64
		theta float64
	}{{1000, 0.99}, {100000, 0.99}, {50000, 0.5}} {
		g := NewGrayZipf(tc.n, tc.theta)
		s := NewState(42)
		counts := make([]float64, bins+1)
		for range N {
			r := g.Draw(&s)
			if r < 0 || r >= tc.n {
				t.Fatalf("rank %d out of [0, %d)", r, tc.n)
			}
			counts[min(r, bins)]++
		}
		chi2, rest := 0.0, 1.0
		for k := range bins {
			p := g.Pmf(int64(k))
			rest -= p
			e := N * p
			chi2 += (counts[k] - e) * (counts[k] - e) / e
		}
		e := N * rest
		chi2 += (counts[bins] - e) * (counts[bins] - e) / e
		if chi2 > 300 {
			t.Errorf("n=%d θ=%g: chi-square %.1f over %d bins (expected ≈ %d)", tc.n, tc.theta, chi2, bins+1, bins)
		}
		p0 := 1 / Zeta(tc.n, tc.theta)
		sd := math.Sqrt(p0 * (1 - p0) / N)
		if got := counts[0] / N; math.Abs(got-p0) > 4*sd {
			t.Errorf("n=%d θ=%g: rank 0 share %.5f, Zipf's %.5f ± %.5f", tc.n, tc.theta, got, p0, 4*sd)
		}
	}
}

// TestGrayZipfApproximatesZipf: beyond rank 1 Gray's formula approximates
// Zipf's law; over ranks 2..99 of n = 10^5, θ = 0.99 its pmf stays within
// 25 % of k^−θ/ζ(n) (measured: the largest deviation is at rank 2).
func TestGrayZipfApproximatesZipf(t *testing.T) {
	g := NewGrayZipf(100000, 0.99)
	for k := int64(2); k < 100; k++ {
		exact := math.Pow(float64(k+1), -0.99) / g.Zetan()
		if rel := math.Abs(g.Pmf(k)-exact) / exact; rel > 0.25 {
			t.Errorf("rank %d: pmf %.6g, Zipf %.6g (%.0f %% off)", k, g.Pmf(k), exact, rel*100)
		}
	}
}
