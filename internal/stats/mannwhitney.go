package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Methods of MWResult.Method.
const (
	MethodExact     = "exact"
	MethodExactTies = "exact (conditional on ties)"
	MethodNormal    = "normal approximation (tie and continuity corrected)"
)

// exactLimit: the exact distribution is used when both samples are smaller
// than this (R's wilcox.test limit).
const exactLimit = 50

// hlDirectLimit: up to this many pairs the Hodges–Lehmann shift is the median
// of the explicit list of b_j − a_i; above it, a bisection that counts pairs
// in O(m+n) per step keeps memory bounded.
const hlDirectLimit = 1 << 20

// MWResult is the outcome of the Mann-Whitney U (Wilcoxon rank-sum) test of
// A against B.
type MWResult struct {
	OK     bool    `json:"ok"`     // false when a sample is empty (P is then 1)
	M      int     `json:"m"`      // runs of A (finite values)
	N      int     `json:"n"`      // runs of B
	UA     float64 `json:"u_a"`    // U_A = R_A − m(m+1)/2 = #{(i,j): a_i > b_j} + ½·#{a_i = b_j}
	UB     float64 `json:"u_b"`    // U_B = mn − U_A = #{(i,j): b_j > a_i} + ½ ties
	U      float64 `json:"u"`      // min(U_A, U_B)
	P      float64 `json:"p"`      // two-sided p-value
	Method string  `json:"method"` // MethodExact, MethodExactTies or MethodNormal
	Z      float64 `json:"z"`      // the normal approximation's z (0 when exact)
	Ties   bool    `json:"ties"`   // some values are equal (across or within samples)
	// PSuperiority is U_B/(mn): the probability that a random run of B is
	// above a random run of A, ties counting one half; 0.5 means no effect.
	PSuperiority float64 `json:"p_superiority"`
	// HLShift is the Hodges–Lehmann shift, the median over all i, j of
	// b_j − a_i, in the metric's unit (positive: B higher).
	HLShift float64 `json:"hl_shift"`
	Reason  string  `json:"reason,omitempty"`
}

// MannWhitney tests whether the runs of B tend to be higher or lower than the
// runs of A, without assuming any distribution (reference §4.3). All m+n
// values are ranked together, ties taking their average rank; R_A is A's rank
// sum and
//
//	U_A = R_A − m(m+1)/2,  U_B = mn − U_A,  U = min(U_A, U_B).
//
// The two-sided p-value is:
//   - exact when m, n < 50 (R's limit), without ties: the null distribution
//     of U_A counts the C(m+n, m) equally likely orderings by the recurrence
//     f(i, j, u) = f(i−1, j, u−j) + f(i, j−1, u) (the largest value is an
//     A, which beats all j B's, or a B), and
//     p = min(1, 2·min(P(U_A ≤ u), P(U_A ≥ u)));
//   - exact when m, n < 50, with ties: the permutation distribution of R_A
//     given the tied (average) ranks, counting the size-m subsets of the
//     N = m+n ranks by their sum, and p = P(|R_A − m(N+1)/2| ≥ |r_A −
//     m(N+1)/2|) (MethodExactTies; it equals the rule above without ties).
//     R falls back to the normal approximation here, which is
//     anti-conservative for a handful of runs: with every run of A at 0 (a
//     skipped share, say) and 4 vs 4 it gives 0.021, below the exact
//     smallest possible 2/70 = 0.029;
//   - otherwise the normal approximation with tie and continuity
//     corrections (as R's wilcox.test, correct = TRUE):
//     σ² = (mn/12)·[(N+1) − Σ_t (t³−t)/(N(N−1))], N = m+n, t the tie-group sizes,
//     z = (U_A − mn/2 − ½·sign(U_A − mn/2))/σ, p = 2·Φ(−|z|).
//     With σ = 0 (every value equal) p = 1.
//
// For n = 4 a side with every B above every A, p = 2/C(8, 4) = 0.0286
// (reference §4.4). Non-finite values are ignored.
func MannWhitney(a, b []float64) MWResult {
	fa, fb := finite(a), finite(b)
	m, n := len(fa), len(fb)
	r := MWResult{M: m, N: n, P: 1, Method: MethodExact, PSuperiority: 0.5}
	if m == 0 || n == 0 {
		r.Reason = fmt.Sprintf("no runs to compare (%d vs %d)", m, n)
		return r
	}
	all := make([]float64, 0, m+n)
	all = append(append(all, fa...), fb...)
	ranks, tieGroups := rank(all)
	var ra float64
	for _, x := range ranks[:m] {
		ra += x
	}
	mf, nf := float64(m), float64(n)
	r.OK = true
	r.UA = ra - mf*(mf+1)/2
	r.UB = mf*nf - r.UA
	r.U = min(r.UA, r.UB)
	r.Ties = len(tieGroups) > 0
	r.PSuperiority = r.UB / (mf * nf)
	r.HLShift = hodgesLehmann(fa, fb, hlDirectLimit)
	if !isFinite(r.HLShift) { // differences of values near ±MaxFloat64 overflow
		r.HLShift = 0
		r.Reason = "the Hodges–Lehmann shift overflows float64"
	}

	if m < exactLimit && n < exactLimit {
		if r.Ties {
			r.Method = MethodExactTies
			r.P = exactTiesP(ranks, m)
		} else {
			r.P = exactP(m, n, int(math.Round(r.UA)))
		}
		return r
	}
	r.Method = MethodNormal
	bigN := mf + nf
	var tieSum float64
	for _, t := range tieGroups {
		tf := float64(t)
		tieSum += tf*tf*tf - tf
	}
	sigma2 := mf * nf / 12 * ((bigN + 1) - tieSum/(bigN*(bigN-1)))
	if !(sigma2 > 0) {
		r.P = 1
		return r
	}
	d := r.UA - mf*nf/2
	var cc float64
	switch {
	case d > 0:
		cc = 0.5
	case d < 0:
		cc = -0.5
	}
	r.Z = (d - cc) / math.Sqrt(sigma2)
	r.P = min(1, 2*distuv.UnitNormal.CDF(-math.Abs(r.Z)))
	return r
}

// rank returns the 1-based ranks of xs in ascending order, ties taking the
// average of the ranks they span, and the sizes of the tie groups (only
// groups of two or more).
func rank(xs []float64) (ranks []float64, tieGroups []int) {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case xs[i] < xs[j]:
			return -1
		case xs[i] > xs[j]:
			return 1
		}
		return 0
	})
	ranks = make([]float64, len(xs))
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && xs[idx[hi]] == xs[idx[lo]] {
			hi++
		}
		// positions lo..hi−1 (0-based) hold ranks lo+1..hi; their mean is (lo+1+hi)/2.
		avg := float64(lo+1+hi) / 2
		for k := lo; k < hi; k++ {
			ranks[idx[k]] = avg
		}
		if hi-lo > 1 {
			tieGroups = append(tieGroups, hi-lo)
		}
		lo = hi
	}
	return ranks, tieGroups
}

// uCounts returns c with c[u] = the number of the C(m+n, m) orderings of m A's
// and n B's in which U_A = #{(i,j): a_i > b_j} equals u, u = 0..mn, by
// f(i, j, u) = f(i−1, j, u−j) + f(i, j−1, u), f(0, j, 0) = f(i, 0, 0) = 1.
// Counts are float64: exact below 2⁵³, relative error 10⁻¹⁶ above.
func uCounts(m, n int) []float64 {
	prev := make([][]float64, n+1) // row i−1: prev[j] = f(i−1, j, ·)
	for j := range prev {
		prev[j] = []float64{1}
	}
	for i := 1; i <= m; i++ {
		cur := make([][]float64, n+1)
		cur[0] = []float64{1}
		for j := 1; j <= n; j++ {
			c := make([]float64, i*j+1)
			for u, v := range prev[j] { // the largest value is an A: it adds j to U_A
				c[u+j] += v
			}
			for u, v := range cur[j-1] { // the largest value is a B: U_A unchanged
				c[u] += v
			}
			cur[j] = c
		}
		prev = cur
	}
	return prev[n]
}

// exactP is the exact two-sided p-value of U_A = u for sample sizes m, n:
// min(1, 2·min(P(U_A ≤ u), P(U_A ≥ u))).
func exactP(m, n, u int) float64 {
	c := uCounts(m, n)
	var total, le, ge float64
	for k, v := range c {
		total += v
		if k <= u {
			le += v
		}
		if k >= u {
			ge += v
		}
	}
	return min(1, 2*min(le, ge)/total)
}

// exactTiesP is the two-sided exact p-value of A's rank sum given the ranks
// (average ranks for ties) of all N values, A's being the first m. Ranks are
// whole or half numbers, so the doubled ranks w_i = 2·rank_i are integers and
// the count of size-m subsets by doubled sum is the exact DP
// c_k(s) += c_{k−1}(s − w_i) over the items i. The observed doubled sum s₀ is
// compared with the doubled mean E = m(N+1) in integers:
// p = Σ_{s: |s−E| ≥ |s₀−E|} c_m(s) / C(N, m).
func exactTiesP(ranks []float64, m int) float64 {
	bigN := len(ranks)
	w := make([]int, bigN)
	var total, s0 int
	for i, r := range ranks {
		w[i] = int(math.Round(2 * r))
		total += w[i]
		if i < m {
			s0 += w[i]
		}
	}
	c := make([][]float64, m+1)
	for k := range c {
		c[k] = make([]float64, total+1)
	}
	c[0][0] = 1
	seen := 0 // sum of the weights processed so far bounds the reachable sums
	for _, wi := range w {
		seen += wi
		for k := m; k >= 1; k-- {
			prev, cur := c[k-1], c[k]
			for s := seen; s >= wi; s-- {
				cur[s] += prev[s-wi]
			}
		}
	}
	e := m * (bigN + 1)
	d0 := abs(s0 - e)
	var all, extreme float64
	for s, v := range c[m] {
		all += v
		if abs(s-e) >= d0 {
			extreme += v
		}
	}
	return min(1, extreme/all)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// hodgesLehmann is the median of all b_j − a_i (a and b non-empty). Up to
// limit pairs it sorts the differences; above, it bisects on d for the k-th
// smallest difference, counting #{b_j − a_i ≤ d} in O(m+n) on sorted copies.
func hodgesLehmann(a, b []float64, limit int) float64 {
	m, n := len(a), len(b)
	if m*n <= limit {
		d := make([]float64, 0, m*n)
		for _, y := range b {
			for _, x := range a {
				d = append(d, y-x)
			}
		}
		slices.Sort(d)
		return medianSorted(d)
	}
	sa, sb := slices.Clone(a), slices.Clone(b)
	slices.Sort(sa)
	slices.Sort(sb)
	total := m * n
	if total%2 == 1 {
		return kthDiff(sa, sb, total/2+1)
	}
	return lerp(kthDiff(sa, sb, total/2), kthDiff(sa, sb, total/2+1), 0.5)
}

// kthDiff is the k-th smallest (1-based) of b_j − a_i for sorted a, b: the
// smallest d with count(d) ≥ k, found by bisection between the smallest and
// the largest difference until the bracket stops shrinking.
func kthDiff(a, b []float64, k int) float64 {
	lo := b[0] - a[len(a)-1]
	hi := b[len(b)-1] - a[0]
	if countLE(a, b, lo) >= k {
		return lo
	}
	for range 2100 { // enough halvings to reach adjacent float64s from any bracket
		mid := lerp(lo, hi, 0.5)
		if mid <= lo || mid >= hi {
			break
		}
		if countLE(a, b, mid) >= k {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// countLE is #{(i, j): b_j − a_i ≤ d} for sorted a and b, by two pointers:
// for each b_j (ascending) the a_i with a_i ≥ b_j − d form a suffix of a
// whose start only moves right.
func countLE(a, b []float64, d float64) int {
	count, i := 0, 0
	for _, y := range b {
		for i < len(a) && y-a[i] > d {
			i++
		}
		count += len(a) - i
	}
	return count
}

// NonOverlapResult is the outcome of the non-overlap rule: B differs from A
// only if every run of B is above (or below) every run of A.
type NonOverlapResult struct {
	M         int  `json:"m"`         // runs of A (finite values)
	N         int  `json:"n"`         // runs of B
	BAbove    bool `json:"b_above"`   // min(B) > max(A)
	BBelow    bool `json:"b_below"`   // max(B) < min(A)
	Separated bool `json:"separated"` // BAbove or BBelow
	// ErrorRate is the rule's real two-sided false-positive rate, the chance
	// that the ranges separate when A and B do not differ: 2/C(m+n, m)
	// (0.0286 for 4 vs 4, 0.10 for 3 vs 3, 0.33 for 2 vs 2). It is also the
	// smallest two-sided p-value the exact Mann-Whitney test can give for
	// these sizes. 1 when a side is empty.
	ErrorRate float64 `json:"error_rate"`
}

// NonOverlap applies the "ranges must not overlap" rule (reference §4.4). It
// is the Mann-Whitney case U = 0: under H₀ all C(m+n, m) orderings are
// equally likely and exactly two of them separate the samples, so the rule's
// two-sided error rate is 2/C(m+n, m). Equal values overlap. Overlapping
// ranges do not show "no difference"; use MannWhitney and the intervals.
// Non-finite values are ignored.
func NonOverlap(a, b []float64) NonOverlapResult {
	sa, sb := Summarize(a), Summarize(b)
	r := NonOverlapResult{M: sa.N, N: sb.N, ErrorRate: 1}
	if sa.N == 0 || sb.N == 0 {
		return r
	}
	r.BAbove = sb.Min > sa.Max
	r.BBelow = sb.Max < sa.Min
	r.Separated = r.BAbove || r.BBelow
	r.ErrorRate = min(1, 2/binomial(sa.N+sb.N, sa.N))
	return r
}

// binomial is C(n, k) as a float64 (+Inf beyond the float64 range), by the
// product C = Π_{i=1..k} (n−k+i)/i over the smaller k.
func binomial(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	k = min(k, n-k)
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}
