package engine

import (
	"math"
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
)

// TestScheduleUniform: slot k of a uniform schedule is start + k·delay
// (rounded to the µs), whatever came before: no drift over many slots.
func TestScheduleUniform(t *testing.T) {
	for _, tc := range []struct {
		name  string
		delay float64 // µs
		start int64   // µs
	}{
		{"1000 tx/s", 1000, 0},
		{"3 tx/s", 333_333.333, 5_000_000},
		{"fractional µs", 0.4, 17},
		{"30000 tx/s", 33.333333, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSchedule(Uniform, tc.delay, tc.start, nil)
			for k := int64(1); k <= 100_000; k++ {
				want := tc.start + int64(math.Round(float64(k)*tc.delay))
				if got := s.next(); got != want {
					t.Fatalf("slot %d = %d µs, want start + k·delay = %d µs", k, got, want)
				}
			}
		})
	}
}

// poissonGaps draws n gaps of a Poisson schedule of mean delay µs.
func poissonGaps(seed uint64, delay float64, n int) []int64 {
	rnd := prng.NewState(seed)
	s := newSchedule(Poisson, delay, 1_000, &rnd)
	gaps := make([]int64, n)
	prev := int64(1_000)
	for i := range gaps {
		t := s.next()
		gaps[i], prev = t-prev, t
	}
	return gaps
}

// TestSchedulePoisson: a Poisson schedule is reproducible from its seed
// (the same seed gives the same gaps, another seed others), its gaps are
// never negative, and their mean is the delay: the gaps are exponential
// with mean and standard deviation delay, so over n gaps the sample mean's
// standard error is delay/√n; the test allows 5 of them (a false failure
// about once in 1.7 million runs).
func TestSchedulePoisson(t *testing.T) {
	const n = 20_000
	for _, tc := range []struct {
		name  string
		delay float64 // µs
		seed  uint64
	}{
		{"1000 tx/s", 1000, 1},
		{"50 tx/s", 20_000, 42},
		{"20000 tx/s", 50, 0xdeadbeef},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := poissonGaps(tc.seed, tc.delay, n), poissonGaps(tc.seed, tc.delay, n)
			other := poissonGaps(tc.seed+1, tc.delay, n)
			differ := 0
			var sum float64
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("seed %d: gap %d is %d µs, then %d µs: not reproducible", tc.seed, i, a[i], b[i])
				}
				if a[i] < 0 {
					t.Fatalf("gap %d is negative: %d µs", i, a[i])
				}
				if a[i] != other[i] {
					differ++
				}
				sum += float64(a[i])
			}
			if differ < n/2 {
				t.Errorf("seeds %d and %d give %d of %d gaps different, want most", tc.seed, tc.seed+1, differ, n)
			}
			mean := sum / n
			se := tc.delay / math.Sqrt(n)
			if math.Abs(mean-tc.delay) > 5*se {
				t.Errorf("mean gap %.2f µs, want %.0f µs ± %.2f (5 standard errors of %d gaps)", mean, tc.delay, 5*se, n)
			}
		})
	}
}
