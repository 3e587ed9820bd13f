// Package prng reproduces pgbench's randomness bit for bit (PostgreSQL 15–18):
// the xoroshiro128** generator of src/common/pg_prng.c with its splitmix64
// seeding, pgbench's distributions (uniform, exponential, Gaussian, Zipfian,
// Poisson), permute(), the FNV-1a and Murmur2 hashes, and the order in which a
// run derives its streams from the base seed.
//
// Given the same seed, every function here returns what pgbench returns on
// x86-64 Linux with glibc: the double arithmetic follows the C expressions
// operation by operation (no fused multiply-add), int64 casts truncate as
// CVTTSD2SI does, and exp, log, pow and sin come from package libm, which is
// correctly rounded, instead of Go's math package, which differs from glibc
// in the last bits of 7–30% of results. glibc itself misrounds about 0.1% of
// arguments; a distribution's integer result changes only if such a last-bit
// difference crosses an integer, which no recorded pgbench draw has shown
// (testdata/pgbench_draws.txt, see pgbench_draws_test.go).
package prng

import "math/bits"

// State is one xoroshiro128** stream (pg_prng_state). The zero value is not a
// valid stream: it returns 0 forever. Obtain one from NewState.
//
// A State is a plain value: copying it forks the stream (pgbench saves and
// restores the client's stream this way to replay a retried transaction).
type State struct{ s0, s1 uint64 }

// The state pg_prng_seed_check substitutes for the all-zero state.
const (
	fixedS0 = 0x5851F42D4C957F2D
	fixedS1 = 0x14057B7EF767814F
)

// splitmix64 advances *x by the golden gamma and returns the mixed value
// (Steele, Lea, Flood 2014; pg_prng.c's splitmix64).
func splitmix64(x *uint64) uint64 {
	*x += 0x9E3779B97F4A7C15
	z := *x
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// NewState seeds a stream as pg_prng_seed does: s0 and s1 are two successive
// splitmix64 outputs of seed; if both are 0 the fixed pair
// (0x5851F42D4C957F2D, 0x14057B7EF767814F) is used instead.
func NewState(seed uint64) State {
	s0 := splitmix64(&seed)
	s1 := splitmix64(&seed)
	if s0 == 0 && s1 == 0 {
		s0, s1 = fixedS0, fixedS1
	}
	return State{s0: s0, s1: s1}
}

// Next returns the next 64 random bits (pg_prng_uint64, xoroshiro128**):
//
//	val = rotl(s0·5, 7)·9;  sx = s1 ⊕ s0
//	s0' = rotl(s0, 24) ⊕ sx ⊕ (sx << 16);  s1' = rotl(sx, 37)
func (s *State) Next() uint64 {
	s0 := s.s0
	sx := s.s1 ^ s0
	val := bits.RotateLeft64(s0*5, 7) * 9
	s.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	s.s1 = bits.RotateLeft64(sx, 37)
	return val
}

// Uint64Range returns a uniform value in [min, max] (pg_prng_uint64_range):
// with range = max−min, draws are shifted right by 63−⌊log2 range⌋ bits and
// rejected while greater than range (fewer than two draws on average).
// If max <= min it returns min and draws nothing.
func (s *State) Uint64Range(min, max uint64) uint64 {
	if max <= min {
		return min
	}
	rng := max - min
	rshift := uint(bits.LeadingZeros64(rng)) // = 63 − ⌊log2 rng⌋
	for {
		v := s.Next() >> rshift
		if v <= rng {
			return min + v
		}
	}
}

// Double returns a uniform double in [0, 1) with 52 random bits
// (pg_prng_double): (next() >> 12) · 2^−52.
func (s *State) Double() float64 {
	return float64(s.Next()>>12) * 0x1p-52
}

// DoubleNormal returns a standard normal deviate by the basic Box–Muller
// transform (pg_prng_double_normal; pgbench's getGaussianRand inlines the
// same code): u1 = 1−Double(), u2 = 1−Double() (both in (0, 1]),
// z = √(−2·ln u1) · sin(2π·u2). It consumes two draws and caches nothing.
func (s *State) DoubleNormal() float64 {
	u1 := 1 - s.Double()
	u2 := 1 - s.Double()
	return cSqrt(-2*cLog(u1)) * cSin(2*pi*u2)
}
