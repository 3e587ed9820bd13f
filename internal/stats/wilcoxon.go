package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// MethodSignedRankHL names the interval of SignedRankCI and PairedLogRatioCI
// in Interval.Method.
const MethodSignedRankHL = "Hodges–Lehmann (Walsh averages), by inverting Wilcoxon signed-rank"

// SignedRankResult is the outcome of the Wilcoxon signed-rank test of "the
// differences are symmetric about 0" (paired samples: d_r = B_r − A_r, or
// log(B_r/A_r) for a ratio).
type SignedRankResult struct {
	OK bool `json:"ok"` // false when no difference is left (P is then 1)
	// N is the differences the test used: the finite, non-zero ones.
	N int `json:"n"`
	// Zeros is the differences equal to 0, dropped (Wilcoxon's convention).
	Zeros int `json:"zeros,omitempty"`
	// WPlus is W+, the sum of the ranks of |d| over the positive d (average
	// ranks for ties); W− = N(N+1)/2 − W+.
	WPlus  float64 `json:"w_plus"`
	P      float64 `json:"p"`      // two-sided p-value
	Method string  `json:"method"` // MethodExact, MethodExactTies or MethodNormal
	Z      float64 `json:"z"`      // the normal approximation's z (0 when exact)
	Ties   bool    `json:"ties"`   // some |d| are equal
	// HLShift is the one-sample Hodges–Lehmann estimate, the median of the
	// Walsh averages (d_i + d_j)/2, i ≤ j, over every finite d (zeros
	// included), in d's unit.
	HLShift float64 `json:"hl_shift"`
	Reason  string  `json:"reason,omitempty"`
}

// WilcoxonSignedRank tests whether paired differences d tend to be positive
// or negative (Wilcoxon 1945; Hollander & Wolfe §3.1). Non-finite values are
// ignored and zeros dropped (Wilcoxon's convention: a zero difference
// carries no sign; the R default with exact = FALSE does the same); the
// remaining n values are ranked by |d|, ties taking their average rank, and
//
//	W+ = Σ_{d_i > 0} rank(|d_i|),  E[W+] = n(n+1)/4 under the null.
//
// Under the null each sign is + or − with probability ½ independently, so
// W+ is the sum of a uniformly random subset of the ranks. The two-sided
// p-value is:
//   - exact when n < 50: the null distribution counts the 2^n subsets by
//     their sum with the subset-sum recurrence over the ranks,
//     c_k(s) = c_{k−1}(s) + c_{k−1}(s − w_k) (rank k is out of the subset,
//     or in it), on the doubled ranks w_k = 2·rank_k, integers even with
//     ties (half ranks); with ties this is the exact distribution
//     conditional on the tied ranks (MethodExactTies), without them the
//     classical table (MethodExact: w_k = 2k). The distribution is
//     symmetric about E, so p = P(|S − E| ≥ |s₀ − E|) = 2·min(P(S ≤ s₀),
//     P(S ≥ s₀)) capped at 1, S the doubled sum, s₀ the observed one;
//   - otherwise the normal approximation with tie and continuity
//     corrections (as R's wilcox.test, correct = TRUE):
//     σ² = n(n+1)(2n+1)/24 − Σ_t (t³−t)/48, t the sizes of tied groups,
//     z = (W+ − n(n+1)/4 − ½·sign(·))/σ, p = 2·Φ(−|z|).
//
// With n differences the exact p cannot go below 2/2^n (0.0625 for 5, 0.031
// for 6). HLShift is the one-sample Hodges–Lehmann estimate (see
// SignedRankCI).
func WilcoxonSignedRank(d []float64) SignedRankResult {
	fd := finite(d)
	r := SignedRankResult{P: 1, Method: MethodExact}
	if len(fd) > 0 {
		r.HLShift = walshMedian(fd)
		if !isFinite(r.HLShift) {
			r.HLShift = 0
			r.Reason = "the Hodges–Lehmann estimate overflows float64"
		}
	}
	nz := make([]float64, 0, len(fd))
	for _, x := range fd {
		if x == 0 {
			r.Zeros++
			continue
		}
		nz = append(nz, x)
	}
	n := len(nz)
	r.N = n
	if n == 0 {
		r.Reason = fmt.Sprintf("no non-zero difference (%d zeros)", r.Zeros)
		return r
	}
	r.OK = true
	mag := make([]float64, n)
	for i, x := range nz {
		mag[i] = math.Abs(x)
	}
	ranks, tieGroups := rank(mag)
	for i, x := range nz {
		if x > 0 {
			r.WPlus += ranks[i]
		}
	}
	r.Ties = len(tieGroups) > 0
	if n < exactLimit {
		if r.Ties {
			r.Method = MethodExactTies
		}
		r.P = signedRankExactP(ranks, r.WPlus)
		return r
	}
	r.Method = MethodNormal
	nf := float64(n)
	var tieSum float64
	for _, t := range tieGroups {
		tf := float64(t)
		tieSum += tf*tf*tf - tf
	}
	sigma2 := nf*(nf+1)*(2*nf+1)/24 - tieSum/48
	if !(sigma2 > 0) {
		return r
	}
	dev := r.WPlus - nf*(nf+1)/4
	var cc float64
	switch {
	case dev > 0:
		cc = 0.5
	case dev < 0:
		cc = -0.5
	}
	r.Z = (dev - cc) / math.Sqrt(sigma2)
	r.P = min(1, 2*distuv.UnitNormal.CDF(-math.Abs(r.Z)))
	return r
}

// signedRankCounts is c(s), the number of subsets of the weights w whose sum
// is s, for s = 0 … Σw, by the recurrence c_k(s) = c_{k−1}(s) +
// c_{k−1}(s − w_k) (in place, s descending). The counts are float64: exact
// up to 2^53, so for n < 54 weights.
func signedRankCounts(w []int) []float64 {
	total := 0
	for _, x := range w {
		total += x
	}
	c := make([]float64, total+1)
	c[0] = 1
	seen := 0
	for _, x := range w {
		seen += x
		for s := seen; s >= x; s-- {
			c[s] += c[s-x]
		}
	}
	return c
}

// signedRankExactP is the two-sided exact p of W+ = wPlus given the ranks of
// |d|: on doubled ranks (integers), P(|S − E| ≥ |s₀ − E|), E = Σw/2.
func signedRankExactP(ranks []float64, wPlus float64) float64 {
	w := make([]int, len(ranks))
	total := 0
	for i, r := range ranks {
		w[i] = int(math.Round(2 * r))
		total += w[i]
	}
	c := signedRankCounts(w)
	s0 := int(math.Round(2 * wPlus))
	d0 := abs(2*s0 - total) // |s₀ − E| doubled, in integers
	var all, extreme float64
	for s, v := range c {
		all += v
		if abs(2*s-total) >= d0 {
			extreme += v
		}
	}
	return min(1, extreme/all)
}

// walshAverages is every (d_i + d_j)/2, i ≤ j, sorted: n(n+1)/2 values.
func walshAverages(d []float64) []float64 {
	n := len(d)
	out := make([]float64, 0, n*(n+1)/2)
	for i := range n {
		for j := i; j < n; j++ {
			out = append(out, d[i]/2+d[j]/2) // halves first: no overflow near ±MaxFloat64
		}
	}
	slices.Sort(out)
	return out
}

// walshMedian is the median of the Walsh averages of d (non-empty).
func walshMedian(d []float64) float64 {
	return medianSorted(walshAverages(d))
}

// SignedRankCI is the one-sample Hodges–Lehmann estimate θ of the centre of
// the paired differences d (the shift B − A) with its confidence interval
// by inverting the signed-rank test (Hollander & Wolfe §3.2; R's
// wilcox.test conf.int):
//
//	W_(1) ≤ … ≤ W_(M)   the sorted Walsh averages (d_i + d_j)/2, i ≤ j, M = n(n+1)/2
//	Point = median of W
//	[Lo, Hi] = [W_(k), W_(M+1−k)]
//
// where k is the largest integer with P₀(W+ ≤ k−1) < (1−conf)/2 under the
// null distribution of W+ for n values without ties (exact for n < 50, else
// the normal approximation k = ⌊M/2 − z·σ⌋, σ² = n(n+1)(2n+1)/24). Because
// W+ is the number of positive Walsh averages, the interval holds every θ
// that the two-sided test of d − θ does not reject at 1 − conf: it excludes
// 0 exactly when WilcoxonSignedRank(d).P < 1 − conf when d has no zeros and
// no ties (with them the test's p is conditional and the two can differ at
// the boundary). Every finite d counts here, zeros included (d − θ has no
// zeros for θ between Walsh averages). Conf in the result is the achieved
// coverage 1 − 2·P₀(W+ ≤ k−1) ≥ conf (exact case). When even k = 1 is not
// strict enough (5 pairs at conf 0.95: P₀(W+ ≤ 0) = 1/32), OK is false and
// Reason says so. NA and NB are both the number of pairs.
func SignedRankCI(d []float64, conf float64) Interval {
	if math.IsNaN(conf) || conf <= 0 || conf >= 1 {
		conf = DefaultConf
	}
	fd := finite(d)
	n := len(fd)
	iv := Interval{NA: n, NB: n, Method: MethodSignedRankHL, Unreliable: n < MinReliableRuns}
	if n == 0 {
		iv.Reason = "no pairs"
		return iv
	}
	walsh := walshAverages(fd)
	iv.Point = medianSorted(walsh)
	if !isFinite(iv.Point) {
		iv.Point = 0
	}
	k, achieved := signedRankRank(n, (1-conf)/2)
	if k < 1 {
		iv.Reason = "too few pairs for an interval at this level"
		iv.Conf = conf
		return iv
	}
	iv.OK = true
	iv.Conf = achieved
	iv.Lo = walsh[k-1]
	iv.Hi = walsh[len(walsh)-k]
	return sane(iv)
}

// signedRankRank is k, the largest integer with P₀(W+ ≤ k−1) < tail for n
// values without ties, and the achieved coverage 1 − 2·P₀(W+ ≤ k−1); k = 0
// when P₀(W+ ≤ 0) = 2^−n ≥ tail.
func signedRankRank(n int, tail float64) (k int, achieved float64) {
	if n < exactLimit {
		w := make([]int, n)
		for i := range w {
			w[i] = i + 1
		}
		return tailRank(signedRankCounts(w), math.Ldexp(1, n), tail)
	}
	nf := float64(n)
	m := nf * (nf + 1) / 2
	sigma := math.Sqrt(nf * (nf + 1) * (2*nf + 1) / 24)
	z := distuv.UnitNormal.Quantile(1 - tail)
	k = int(math.Floor(m/2 - z*sigma))
	if k < 1 {
		return 0, 0
	}
	return k, 1 - 2*distuv.UnitNormal.CDF((float64(k)-0.5-m/2)/sigma)
}

// PairedLogRatioCI is SignedRankCI on the per-pair log ratios d_r =
// log(b_r/a_r) of strictly positive values, as a ratio: Point =
// exp(Hodges–Lehmann centre of d) is the typical ratio B/A within a pair,
// [Lo, Hi] its interval. a and b are paired by index (extra values of the
// longer one are ignored; a pair with a non-finite value is dropped). Not
// OK when a value is ≤ 0.
func PairedLogRatioCI(a, b []float64, conf float64) Interval {
	d, ok := PairedLogRatios(a, b)
	if !ok {
		return Interval{NA: len(d), NB: len(d), Method: MethodSignedRankHL, Reason: "a value is 0 or negative: no ratio"}
	}
	iv := SignedRankCI(d, conf)
	iv.Point, iv.Lo, iv.Hi = math.Exp(iv.Point), math.Exp(iv.Lo), math.Exp(iv.Hi)
	if !iv.OK {
		iv.Lo, iv.Hi = 0, 0
		return iv
	}
	return sane(iv)
}

// PairedLogRatios is log(b_r/a_r) for every pair r whose values are both
// finite; false when one of them is ≤ 0.
func PairedLogRatios(a, b []float64) ([]float64, bool) {
	fa, fb := finitePairs(a, b)
	d := make([]float64, len(fa))
	for i := range fa {
		if fa[i] <= 0 || fb[i] <= 0 {
			return d[:0], false
		}
		d[i] = math.Log(fb[i]) - math.Log(fa[i])
	}
	return d, true
}
