package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestChangePointsStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ys := ar1(rng, 60, 0, 0, 1)
	for i := 30; i < 60; i++ {
		ys[i] += 5
	}
	r := ChangePoints(ys, ChangeConfig{})
	if len(r.Changes) != 1 || r.Changes[0].At < 29 || r.Changes[0].At > 31 {
		t.Fatalf("one step at 30: got %+v", r.Changes)
	}
	if c := r.Changes[0]; math.Abs(c.After-c.Before-5) > 1 {
		t.Errorf("step of 5, measured %v → %v", c.Before, c.After)
	}
}

func TestChangePointsTwoSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ys := ar1(rng, 90, 0, 0, 1)
	for i := range ys {
		switch {
		case i >= 30 && i < 55: // a stall: the level drops, then comes back
			ys[i] -= 6
		}
	}
	r := ChangePoints(ys, ChangeConfig{})
	if len(r.Changes) != 2 || abs(r.Changes[0].At-30) > 1 || abs(r.Changes[1].At-55) > 1 {
		t.Fatalf("steps at 30 and 55: got %+v", r.Changes)
	}
	// NaN values (intervals without a value) are skipped, indices kept.
	ys[10], ys[70] = math.NaN(), math.NaN()
	r = ChangePoints(ys, ChangeConfig{})
	if len(r.Changes) != 2 || abs(r.Changes[0].At-30) > 1 || abs(r.Changes[1].At-55) > 1 {
		t.Fatalf("with NaNs: got %+v", r.Changes)
	}
}

// Noise only, white and autocorrelated (AR(1), φ 0, 0.3, 0.6): a change is
// reported in at most 10 % of series (the false-positive rate); a step of 3
// marginal SD halfway is found within 2 intervals of it in most (the
// power). Seeded, 400 series of 60 intervals each.
func TestChangePointsSimulation(t *testing.T) {
	const trials, n = 400, 60
	for _, phi := range []float64{0, 0.3, 0.6} {
		rng := rand.New(rand.NewPCG(7, uint64(100*phi)))
		fp, hit := 0, 0
		for range trials {
			if r := ChangePoints(ar1(rng, n, phi, 0, 1), ChangeConfig{}); len(r.Changes) > 0 {
				fp++
			}
			ys := ar1(rng, n, phi, 0, 1)
			for i := n / 2; i < n; i++ {
				ys[i] += 3
			}
			r := ChangePoints(ys, ChangeConfig{})
			for _, c := range r.Changes {
				if abs(c.At-n/2) <= 2 {
					hit++
					break
				}
			}
		}
		fpr, power := float64(fp)/trials, float64(hit)/trials
		t.Logf("φ %.1f: false-positive rate %.3f, power (step 3 SD) %.3f", phi, fpr, power)
		if fpr > 0.10 {
			t.Errorf("φ %.1f: noise alone gives a change in %.1f %% of series (want ≤ 10 %%)", phi, 100*fpr)
		}
		// Autocorrelated noise hides a step as well as it fakes one: the
		// detector keeps its false positives low and pays in power (a step
		// of 3 marginal SD at φ 0.6 is 1.5 long-run SD).
		if want := map[float64]float64{0: 0.80, 0.3: 0.65, 0.6: 0.40}[phi]; power < want {
			t.Errorf("φ %.1f: a step of 3 SD is found in %.1f %% of series (want ≥ %.0f %%)", phi, 100*power, 100*want)
		}
	}
}

func TestChangePointsDegenerate(t *testing.T) {
	for _, ys := range [][]float64{nil, {1}, {1, 2, 3, 4, 5}, {5, 5, 5, 5, 5, 5, 5, 5}, {math.NaN(), math.Inf(1), 1, 2}} {
		if r := ChangePoints(ys, ChangeConfig{}); len(r.Changes) != 0 {
			t.Errorf("%v: changes %+v", ys, r.Changes)
		}
	}
}

// FuzzChangePoints: any series (NaN, ±Inf, huge, subnormal values, any
// minimum segment) neither panics nor gives a change but at valid,
// increasing indices of finite values.
func FuzzChangePoints(f *testing.F) {
	f.Add(bytesFromFloats(3, 1, 1, 1, 1, 9, 9, 9, 9))
	f.Add(bytesFromFloats(0, math.NaN(), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64, 1, 2, 3, 4))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, b := floatsFromBytes(data)
		ys := append(a, b...)
		minSeg := 0
		if len(data) > 0 {
			minSeg = int(data[0] % 6)
		}
		r := ChangePoints(ys, ChangeConfig{MinSegment: minSeg})
		prev := -1
		for _, c := range r.Changes {
			if c.At <= prev || c.At <= 0 || c.At >= len(ys) || math.IsNaN(ys[c.At]) || math.IsInf(ys[c.At], 0) {
				t.Fatalf("%v: change at %d (after %d)", ys, c.At, prev)
			}
			prev = c.At
		}
	})
}
