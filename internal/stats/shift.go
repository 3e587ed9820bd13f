package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// MethodHL names the interval of ShiftCI in Interval.Method.
const MethodHL = "Hodges–Lehmann, by inverting Mann-Whitney"

// ShiftCI is the Hodges–Lehmann estimate of the shift Δ of B against A (B's
// values ≈ A's + Δ) with its confidence interval by inverting the
// Mann-Whitney test (Hollander & Wolfe §4.3; R's wilcox.test conf.int):
//
//	d_(1) ≤ … ≤ d_(mn)   the sorted differences b_j − a_i
//	Point = median of d
//	[Lo, Hi] = [d_(k), d_(mn+1−k)]
//
// where k is the largest integer with P₀(U ≤ k−1) < (1−conf)/2 under the
// null distribution of U (exact for m, n < 50, else the normal approximation
// k = ⌊mn/2 − z·σ⌋ with σ² = mn(m+n+1)/12). The interval holds every shift δ
// that the two-sided test of "B − δ against A" does not reject at level
// 1 − conf, so it excludes 0 exactly when MannWhitney(a, b).P < 1 − conf
// (without ties; with ties the test's p is conditional and the two can
// differ at the boundary). Conf in the result is the achieved coverage
// 1 − 2·P₀(U ≤ k−1) ≥ conf for the exact case. When even k = 1 is not
// strict enough (3 vs 3 at conf 0.95: P₀(U ≤ 0) = 1/20), no interval exists
// at that level: OK is false and Reason says so. Non-finite values are
// ignored.
func ShiftCI(a, b []float64, conf float64) Interval {
	if math.IsNaN(conf) || conf <= 0 || conf >= 1 {
		conf = DefaultConf
	}
	fa, fb := finite(a), finite(b)
	m, n := len(fa), len(fb)
	iv := Interval{NA: m, NB: n, Method: MethodHL, Unreliable: m < MinReliableRuns || n < MinReliableRuns}
	if m == 0 || n == 0 {
		iv.Reason = "no runs on a side"
		return iv
	}
	tail := (1 - conf) / 2
	k, achieved := shiftRank(m, n, tail)
	sa, sb := slices.Clone(fa), slices.Clone(fb)
	slices.Sort(sa)
	slices.Sort(sb)
	iv.Point = hodgesLehmann(fa, fb, hlDirectLimit)
	if !isFinite(iv.Point) {
		iv.Point = 0
	}
	if k < 1 {
		iv.Reason = "too few runs for an interval at this level"
		iv.Conf = conf
		return iv
	}
	iv.OK = true
	iv.Conf = achieved
	iv.Lo = kthDiff(sa, sb, k)
	iv.Hi = kthDiff(sa, sb, m*n+1-k)
	return sane(iv)
}

// sane makes an interval with a non-finite bound or point not OK, with zero
// bounds (JSON has no infinities).
func sane(iv Interval) Interval {
	if !isFinite(iv.Lo) || !isFinite(iv.Hi) || !isFinite(iv.Point) {
		iv.OK, iv.Reason = false, "the values overflow float64"
		iv.Point, iv.Lo, iv.Hi = 0, 0, 0
	}
	return iv
}

// shiftRank is k, the largest integer with P₀(U ≤ k−1) < tail, and the
// achieved coverage 1 − 2·P₀(U ≤ k−1); k = 0 when P₀(U ≤ 0) ≥ tail.
func shiftRank(m, n int, tail float64) (k int, achieved float64) {
	if m < exactLimit && n < exactLimit {
		c := uCounts(m, n)
		var total float64
		for _, v := range c {
			total += v
		}
		return tailRank(c, total, tail)
	}
	mf, nf := float64(m), float64(n)
	sigma := math.Sqrt(mf * nf * (mf + nf + 1) / 12)
	z := distuv.UnitNormal.Quantile(1 - tail)
	k = int(math.Floor(mf*nf/2 - z*sigma))
	if k < 1 {
		return 0, 0
	}
	// Coverage of [d_(k), d_(mn+1−k)] under the normal approximation with
	// continuity correction: P₀(U ≤ k−1) ≈ Φ((k − ½ − mn/2)/σ).
	return k, 1 - 2*distuv.UnitNormal.CDF((float64(k)-0.5-mf*nf/2)/sigma)
}

// tailRank is, for the null counts c of a statistic S = 0, 1, … (total
// their sum), the largest k with P₀(S ≤ k−1) < tail and the achieved
// coverage 1 − 2·P₀(S ≤ k−1) of the interval it bounds; k = 0 when
// P₀(S ≤ 0) ≥ tail. ShiftCI (U) and SignedRankCI (W+) invert their tests
// with it.
func tailRank(c []float64, total, tail float64) (k int, achieved float64) {
	var cum float64
	for s := 0; s < len(c); s++ {
		if (cum+c[s])/total >= tail {
			break
		}
		cum += c[s]
		k = s + 1
	}
	return k, 1 - 2*cum/total
}

// LogRatioCI is ShiftCI on the logarithms of strictly positive values, as a
// ratio: Point = exp(HL shift of log values) is the typical ratio B/A, and
// [Lo, Hi] its interval. Not OK when a value is ≤ 0 (use ShiftCI on the
// values: a difference).
func LogRatioCI(a, b []float64, conf float64) Interval {
	la, okA := logs(a)
	lb, okB := logs(b)
	if !okA || !okB {
		iv := Interval{NA: len(finite(a)), NB: len(finite(b)), Method: MethodHL, Reason: "a value is 0 or negative: no ratio"}
		return iv
	}
	iv := ShiftCI(la, lb, conf)
	iv.Point, iv.Lo, iv.Hi = math.Exp(iv.Point), math.Exp(iv.Lo), math.Exp(iv.Hi)
	if !iv.OK {
		iv.Lo, iv.Hi = 0, 0
		return iv
	}
	return sane(iv)
}

// logs is the natural logarithm of every finite value; false when one is ≤ 0.
func logs(xs []float64) ([]float64, bool) {
	f := finite(xs)
	out := make([]float64, len(f))
	for i, x := range f {
		if x <= 0 {
			return nil, false
		}
		out[i] = math.Log(x)
	}
	return out, true
}
