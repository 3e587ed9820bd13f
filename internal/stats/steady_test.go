package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMSER5(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	noise := func(n int, level, sd float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = level + sd*rng.NormFloat64()
		}
		return out
	}
	// 30 s of warm-up climbing from 0 to 100 tps, then 270 s at 100 ± 3.
	ramp := make([]float64, 0, 300)
	for i := range 30 {
		ramp = append(ramp, float64(i)*100/30)
	}
	ramp = append(ramp, noise(270, 100, 3)...)
	// A series that climbs all the way: never steady.
	climb := make([]float64, 300)
	for i := range climb {
		climb[i] = float64(i) + 3*rng.NormFloat64()
	}
	withNaN := append([]float64(nil), ramp...)
	withNaN[100], withNaN[101] = math.NaN(), math.Inf(1)

	tests := []struct {
		name       string
		xs         []float64
		minT, maxT int
		steady     bool
	}{
		{"warm-up ramp is cut, not much more", ramp, 25, 40, true},
		{"flat series cuts ~0", noise(300, 100, 3), 0, 15, true},
		{"constant cuts 0", noise(100, 7, 0), 0, 0, true},
		{"non-finite values tolerated", withNaN, 25, 40, true},
		{"climbing: no steady state", climb, 0, 150, false},
		{"too short", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, 0, 0, false},
		{"empty", nil, 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := SteadyState(tc.xs)
			if r.Truncate < tc.minT || r.Truncate > tc.maxT || r.Steady != tc.steady || r.Truncate%5 != 0 {
				t.Errorf("got %+v, want truncate in [%d, %d] (multiple of 5), steady %v", r, tc.minT, tc.maxT, tc.steady)
			}
			if got := MSER5(tc.xs); got != r.Truncate {
				t.Errorf("MSER5 = %d, SteadyState.Truncate = %d", got, r.Truncate)
			}
			if !r.Steady && r.Reason == "" {
				t.Error("no reason given for an unsteady result")
			}
		})
	}
}

// TestSteadyStateMinimum: Minimum is MSER's minimiser over all candidates:
// the step's end, give or take the noise of the batches right after it,
// when the series is steady after it (= Truncate), past the
// middle for a late drop (not steady), near 0 for a flat series.
func TestSteadyStateMinimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	step, late, flat := make([]float64, 100), make([]float64, 100), make([]float64, 100)
	for i := range step {
		step[i] = 100 + 2*rng.NormFloat64()
		late[i] = 100 + 2*rng.NormFloat64()
		flat[i] = 100 + 2*rng.NormFloat64()
		if i < 30 {
			step[i] -= 40
		}
		if i < 70 {
			late[i] += 40
		}
	}
	if r := SteadyState(step); !r.Steady || r.Minimum != r.Truncate || r.Minimum < 30 || r.Minimum > 50 {
		t.Errorf("step at 30: %+v", r)
	}
	if r := SteadyState(late); r.Steady || r.Minimum < 70 || r.Minimum > 80 {
		t.Errorf("drop at 70: %+v", r)
	}
	if r := SteadyState(flat); !r.Steady || r.Minimum > 5 {
		t.Errorf("flat: %+v", r)
	}
}
