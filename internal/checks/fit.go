package checks

import (
	"math"
	"slices"
)

// The small statistics the checklist needs. internal/stats (written in
// parallel) will have the full versions (Trend, MSER-5); these should be
// replaced by it once it exists. Formulas: observability-and-statistics.md
// §4.7 (MSER-5) and §4.8 (least squares, R², scale-free slope).

// lineFit is an ordinary least-squares line y = a + b·x.
type lineFit struct {
	n     int
	slope float64 // b, units of y per unit of x
	mean  float64 // ȳ
	span  float64 // x_max − x_min: the window length T
	r2    float64 // 1 − SS_res/SS_tot
	// pTwo is the two-sided p-value of H₀: b = 0 from t = b/SE(b) on n−2
	// degrees of freedom, SE(b) = √(SS_res/(n−2) / Σ(x−x̄)²). Intervals are
	// autocorrelated, so SE(b) is too small and p too optimistic (§4.8):
	// every decision pairs it with a magnitude.
	pTwo float64
}

// drift is the scale-free slope s = b·T/ȳ: the fitted change of y across
// the window as a fraction of its mean (0.05 = 5 %); 0 when ȳ is 0.
func (f lineFit) drift() float64 {
	if f.mean == 0 {
		return 0
	}
	return f.slope * f.span / math.Abs(f.mean)
}

// rise is b·T, the fitted change of y across the window in y's units.
func (f lineFit) rise() float64 { return f.slope * f.span }

// pUp is the one-sided p-value of H₀: b ≤ 0 against b > 0.
func (f lineFit) pUp() float64 {
	if f.slope > 0 {
		return f.pTwo / 2
	}
	return 1 - f.pTwo/2
}

// fitLine fits y on x; ok is false with fewer than 3 points or no spread
// in x.
func fitLine(x, y []float64) (lineFit, bool) {
	n := min(len(x), len(y))
	if n < 3 {
		return lineFit{}, false
	}
	var sx, sy float64
	for i := range n {
		sx += x[i]
		sy += y[i]
	}
	mx, my := sx/float64(n), sy/float64(n)
	var sxx, sxy, syy float64
	lo, hi := x[0], x[0]
	for i := range n {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
		lo, hi = min(lo, x[i]), max(hi, x[i])
	}
	if !(sxx > 0) {
		return lineFit{}, false
	}
	b := sxy / sxx
	ssRes := max(syy-b*sxy, 0) // Σ(y − a − b·x)² = SS_tot − b·Sxy
	f := lineFit{n: n, slope: b, mean: my, span: hi - lo, r2: 1, pTwo: 1}
	if syy > 0 {
		f.r2 = 1 - ssRes/syy
	}
	df := float64(n - 2)
	se := math.Sqrt(ssRes / df / sxx)
	switch {
	case se > 0:
		f.pTwo = studentTwoSided(b/se, df)
	case b != 0:
		f.pTwo = 0 // a perfect line
	}
	return f, true
}

// studentTwoSided is P(|T| ≥ |t|) for Student's t with df degrees of
// freedom: I_{df/(df+t²)}(df/2, 1/2), the regularised incomplete beta
// function.
func studentTwoSided(t, df float64) float64 {
	if math.IsNaN(t) || !(df > 0) {
		return 1
	}
	if math.IsInf(t, 0) {
		return 0
	}
	return incBeta(df/2, 0.5, df/(df+t*t))
}

// incBeta is the regularised incomplete beta function I_x(a, b), by the
// continued fraction of Numerical Recipes §6.4 (modified Lentz), using the
// symmetry I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges
// slowly.
func incBeta(a, b, x float64) float64 {
	switch {
	case !(x > 0):
		return 0
	case !(x < 1):
		return 1
	}
	lga, _ := math.Lgamma(a)
	lgb, _ := math.Lgamma(b)
	lgab, _ := math.Lgamma(a + b)
	front := math.Exp(lgab - lga - lgb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const (
		maxIter = 300
		eps     = 1e-15
		tiny    = 1e-300
	)
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// mserBatch is MSER-5's batch size.
const mserBatch = 5

// mser5 is the MSER-5 truncation point of y (§4.7, after kim-convergence's
// mser_m): y is cut into k = ⌊n/5⌋ batch means Z_1 … Z_k (a remainder at
// the end is left out), and
//
//	MSER(d) = Σ_{j>d} (Z_j − Z̄_d)² / (k − d)²,  Z̄_d = mean of Z_{d+1..k},
//
// is minimised over d < k − min(5, ⌊k/4⌋) (the last batches are left out:
// the statistic is unstable where few remain; at least one is). The
// warm-up MSER finds is 5·d raw points; d > k/2 means no steady state.
// ok is false with fewer than 4 batches.
func mser5(y []float64) (d, k int, ok bool) {
	k = len(y) / mserBatch
	if k < 4 {
		return 0, k, false
	}
	z := make([]float64, k)
	for j := range k {
		var s float64
		for _, v := range y[j*mserBatch : (j+1)*mserBatch] {
			s += v
		}
		z[j] = s / mserBatch
	}
	skip := max(min(5, k/4), 1)
	best := math.Inf(1)
	for cand := 0; cand < k-skip; cand++ {
		rest := z[cand:]
		m := mean(rest)
		var ss float64
		for _, v := range rest {
			ss += (v - m) * (v - m)
		}
		r := float64(len(rest))
		if v := ss / (r * r); v < best {
			best, d = v, cand
		}
	}
	return d, k, true
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// median of v (v is not modified); 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
