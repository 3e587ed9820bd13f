package prng

import "math"

// GrayZipf is YCSB's ZipfianGenerator (Gray et al., "Quickly Generating
// Billion-Record Synthetic Databases", SIGMOD 1994), pgtrial's extension of
// random_zipfian to parameters θ < 1 (pgbench allows only θ > 1). Over
// ranks 0..n−1, with
//
//	ζ(n, θ) = Σ_{i=1..n} i^−θ,  α = 1/(1−θ),
//	η = (1 − (2/n)^(1−θ)) / (1 − ζ(2, θ)/ζ(n, θ)),
//
// a draw u ∈ [0, 1) gives uz = u·ζ(n): rank 0 if uz < 1, rank 1 if
// uz < 1 + 0.5^θ, else ⌊n·(η·u − η + 1)^α⌋. Ranks 0 and 1 have Zipf's exact
// probabilities 1/ζ(n) and 2^−θ/ζ(n); the others follow a continuous
// approximation of Zipf's law (Pmf gives the generator's own probabilities).
//
// ζ(n, θ) is computed once when the generator is made (NewGrayZipf): summed
// term by term up to zetaExactTerms, beyond that by the Euler–Maclaurin
// formula (Zeta), so n = 10^10 (YCSB's item space) costs the same as
// n = 10^4.
type GrayZipf struct {
	n                   int64
	theta, alpha        float64
	zetan, eta, half    float64 // ζ(n, θ), η, 1 + 0.5^θ
	zeta2theta, nDouble float64
}

// zetaExactTerms is how many terms Zeta sums before switching to the
// Euler–Maclaurin tail.
const zetaExactTerms = 10000

// NewGrayZipf makes the generator of ranks 0..n−1 with exponent theta;
// n >= 1 and 0 < theta < 1 are the caller's to check.
func NewGrayZipf(n int64, theta float64) GrayZipf {
	g := GrayZipf{n: n, theta: theta, alpha: 1 / (1 - theta), nDouble: float64(n)}
	g.zetan = Zeta(n, theta)
	g.zeta2theta = Zeta(2, theta)
	g.half = 1 + math.Pow(0.5, theta)
	if n > 2 {
		g.eta = (1 - math.Pow(2/g.nDouble, 1-theta)) / (1 - g.zeta2theta/g.zetan)
	}
	return g
}

// Matches reports whether g is the generator for (n, theta), to reuse it.
func (g *GrayZipf) Matches(n int64, theta float64) bool {
	return g.n == n && g.theta == theta && n > 0
}

// Draw returns a rank in [0, n−1] from one Double() of s.
func (g *GrayZipf) Draw(s *State) int64 {
	return g.rank(s.Double())
}

// rank is the rank of the uniform draw u ∈ [0, 1).
func (g *GrayZipf) rank(u float64) int64 {
	uz := u * g.zetan
	if uz < 1 || g.n == 1 {
		return 0
	}
	if uz < g.half || g.n == 2 {
		return 1
	}
	r := int64(g.nDouble * math.Pow(g.eta*u-g.eta+1, g.alpha))
	return min(max(r, 0), g.n-1)
}

// Zetan is ζ(n, θ) of the generator.
func (g *GrayZipf) Zetan() float64 { return g.zetan }

// Pmf returns the generator's own probability of rank k (not Zipf's exact
// k^−θ/ζ(n), which it only approximates beyond rank 1): the measure of the
// u that rank gives. The largest rank also takes the u beyond n (none in
// exact arithmetic).
func (g *GrayZipf) Pmf(k int64) float64 {
	if k < 0 || k >= g.n {
		return 0
	}
	lo1 := 1 / g.zetan      // u < lo1: rank 0
	lo2 := g.half / g.zetan // u < lo2: rank 1
	switch {
	case g.n == 1:
		return 1
	case g.n == 2:
		if k == 0 {
			return lo1
		}
		return 1 - lo1
	case k == 0:
		return lo1 + max(0, min(g.uOf(1), 1)-lo2)
	case k == 1:
		return (lo2 - lo1) + max(0, min(g.uOf(2), 1)-max(g.uOf(1), lo2))
	}
	// rank k for u ∈ [uOf(k), uOf(k+1)) beyond lo2.
	a := max(g.uOf(float64(k)), lo2)
	b := g.uOf(float64(k) + 1)
	if k == g.n-1 {
		b = 1
	}
	return max(0, min(b, 1)-a)
}

// uOf is the u at which n·(η·u − η + 1)^α reaches x: (( x/n)^(1/α) − 1 + η)/η.
func (g *GrayZipf) uOf(x float64) float64 {
	return (math.Pow(x/g.nDouble, 1/g.alpha) - 1 + g.eta) / g.eta
}

// Zeta returns ζ(n, θ) = Σ_{i=1..n} i^−θ. Up to zetaExactTerms terms it
// sums them (smallest first, for accuracy); beyond, it adds to the first
// m = zetaExactTerms−1 terms the Euler–Maclaurin estimate of the tail
// f(m+1) + … + f(n), f(x) = x^−θ:
//
//	∫_{m+1}^{n} f + (f(m+1) + f(n))/2 + Σ_k B_2k/(2k)! (f^(2k−1)(n) − f^(2k−1)(m+1))
//
// with the terms k = 1, 2, 3 (B2 = 1/6, B4 = −1/30, B6 = 1/42). At
// a = m+1 = 10^4 the first omitted term is below 10^−30 of the sum, so the
// result is exact to float64 rounding (the tests check it against direct
// sums and YCSB's ζ(10^10, 0.99) = 26.46902820178302).
func Zeta(n int64, theta float64) float64 {
	if n <= zetaExactTerms {
		sum := 0.0
		for i := n; i >= 1; i-- {
			sum += math.Pow(float64(i), -theta)
		}
		return sum
	}
	m := int64(zetaExactTerms - 1)
	head := Zeta(m, theta)
	a, b := float64(m+1), float64(n)
	f := func(x float64) float64 { return math.Pow(x, -theta) }
	var integral float64
	if theta == 1 {
		integral = math.Log(b / a)
	} else {
		integral = (math.Pow(b, 1-theta) - math.Pow(a, 1-theta)) / (1 - theta)
	}
	// Derivatives of x^−θ: f' = −θ x^(−θ−1), f''' = −θ(θ+1)(θ+2) x^(−θ−3),
	// f^(5) = −θ(θ+1)(θ+2)(θ+3)(θ+4) x^(−θ−5).
	d1 := func(x float64) float64 { return -theta * math.Pow(x, -theta-1) }
	d3 := func(x float64) float64 { return -theta * (theta + 1) * (theta + 2) * math.Pow(x, -theta-3) }
	d5 := func(x float64) float64 {
		return -theta * (theta + 1) * (theta + 2) * (theta + 3) * (theta + 4) * math.Pow(x, -theta-5)
	}
	tail := integral + (f(a)+f(b))/2 +
		(1.0/6)/2*(d1(b)-d1(a)) +
		(-1.0/30)/24*(d3(b)-d3(a)) +
		(1.0/42)/720*(d5(b)-d5(a))
	return head + tail
}
