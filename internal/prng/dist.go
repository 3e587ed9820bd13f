package prng

import "math"

// pi is M_PI as a double.
const pi = 3.14159265358979323846

// cInt64 converts a double to int64 as the C cast (int64) does on x86-64:
// truncation toward zero, and NaN or any value outside [−2^63, 2^63) gives
// math.MinInt64 (what CVTTSD2SI returns; strictly undefined behaviour in C).
// Go's own conversion is implementation-defined out of range, so it is not
// relied upon.
func cInt64(f float64) int64 {
	if !(f >= -0x1p63 && f < 0x1p63) {
		return math.MinInt64
	}
	return int64(f)
}

// Uniform returns a uniform integer in [min, max] (pgbench's getrand):
// min + (int64) Uint64Range(0, max−min). The caller checks min <= max and that
// max−min+1 does not overflow int64 ("empty range given to random",
// "random range is too large").
func (s *State) Uniform(min, max int64) int64 {
	return min + int64(s.Uint64Range(0, uint64(max-min)))
}

// Exponential returns an integer in [min, max] with a truncated exponential
// distribution (getExponentialRand), param > 0:
//
//	cut = e^−param;  u = 1 − Double() ∈ (0, 1]
//	r = −ln(cut + (1−cut)·u) / param ∈ [0, 1)
//	result = min + (int64)((max−min+1)·r)
//
// so the probability of min is 1−e^(−param/(max−min+1)) and the density falls by
// a factor e^param over the range.
func (s *State) Exponential(min, max int64, param float64) int64 {
	cut := cExp(-param)
	u := 1 - s.Double()
	r := -cLog(cut+float64((1-cut)*u)) / param
	return min + cInt64(float64(max-min+1)*r)
}

// Gaussian returns an integer in [min, max] with a truncated normal
// distribution centred on the middle of the range (getGaussianRand),
// param >= 2 being the number of standard deviations from the centre to each
// bound:
//
//	repeat z = DoubleNormal() until −param <= z < param
//	r = (z + param) / (2·param) ∈ [0, 1)
//	result = min + (int64)((max−min+1)·r)
func (s *State) Gaussian(min, max int64, param float64) int64 {
	var z float64
	for {
		z = s.DoubleNormal()
		if !(z < -param || z >= param) {
			break
		}
	}
	r := (z + param) / (param * 2)
	return min + cInt64(float64(max-min+1)*r)
}

// Zipfian returns an integer in [min, max] with a Zipf distribution of
// exponent param (getZipfianRand): rank k = 1..n, n = max−min+1, has
// probability ∝ k^−param, and the result is min−1+k. The caller checks
// 1.001 <= param <= 1000.
//
// Devroye's rejection method (Non-Uniform Random Variate Generation, 1986,
// p. 550; pgbench's computeIterativeZipfian), with b = 2^(s−1):
//
//	repeat u = Double(), v = Double(), x = ⌊u^(−1/(s−1))⌋, t = (1 + 1/x)^(s−1)
//	until v·x·(t−1)/(b−1) <= t/b and x <= n
//
// Each attempt consumes two draws; parameters near 1 reject often.
func (s *State) Zipfian(min, max int64, param float64) int64 {
	return min - 1 + s.iterZipf(max-min+1, param)
}

// iterZipf is pgbench's computeIterativeZipfian: a Zipf rank in [1, n].
func (s *State) iterZipf(n int64, sp float64) int64 {
	if n <= 1 {
		return 1
	}
	b := cPow(2, sp-1)
	for {
		u := s.Double()
		v := s.Double()
		x := math.Floor(cPow(u, -1/(sp-1)))
		t := cPow(1+1/x, sp-1)
		// u = 0 gives x = +Inf and t = 1, hence NaN on the left: rejected.
		if v*x*(t-1)/(b-1) <= t/b && x <= float64(n) {
			return cInt64(x)
		}
	}
}

// Poisson returns the delay to the next arrival of a Poisson process whose
// mean inter-arrival time is center (getPoissonRand; pgbench draws --rate
// delays in µs this way): u = 1 − Double() ∈ (0, 1],
// result = (int64)(−ln(u)·center + 0.5), i.e. an exponential deviate of mean
// center rounded to the nearest integer.
func (s *State) Poisson(center float64) int64 {
	u := 1 - s.Double()
	return cInt64(float64(-cLog(u)*center) + 0.5)
}
