package explain

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/stats"
)

// TestSignedRank names the over-the-ramp test in Change.Test.
const TestSignedRank = "Wilcoxon signed-rank"

// Change is one figure of a variant against the baseline: the medians, the
// change with its interval, the test and the verdict.
type Change struct {
	Figure  string `json:"figure"`
	Unit    string `json:"unit"`
	Role    string `json:"role"` // stats.RolePrimary or RoleExploratory
	QueryID int64  `json:"queryid,omitempty"`
	Query   string `json:"query,omitempty"` // a statement's redacted text
	// A and B are the medians of the baseline's and the variant's values.
	A float64 `json:"a"`
	B float64 `json:"b"`
	// Ratio: Point, Lo and Hi are the typical ratio B/A; else a
	// difference B − A in the unit (percentage points for shares).
	Ratio      bool    `json:"ratio"`
	Point      float64 `json:"point"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	IntervalOK bool    `json:"interval_ok"`
	Conf       float64 `json:"conf"`
	Test       string  `json:"test"`
	P          float64 `json:"p"`
	Level      float64 `json:"level"` // the level P was held to (α, or Holm's step)
	// Pairs is the number of paired runs (over the ramp: level × repeat);
	// NA and NB the runs a side (per level).
	Pairs   int    `json:"pairs,omitempty"`
	NA      int    `json:"n_a,omitempty"`
	NB      int    `json:"n_b,omitempty"`
	Outcome string `json:"outcome"` // stats.OutcomeDiffers, OutcomeEquivalent, OutcomeInconclusive; "described" for one run a side
	// Negligible: a "differs" whose (1 − 2·level) interval also lies
	// within ±δ (stats.VerdictResult.Negligible).
	Negligible bool   `json:"negligible,omitempty"`
	Text       string `json:"text"`
}

// OutcomeMissing is the outcome of a figure no run of either side has.
const OutcomeMissing = "missing"

// OutcomeDescribed is the outcome of a change with one run a side, or one
// pair: described, never judged.
const OutcomeDescribed = "described"

// pairedSpec is what pairedChange compares.
type pairedSpec struct {
	name, unit     string
	pairs          string // what a pair is: "level×repeat", "repeat"
	points         bool   // compare as differences (percentage points)
	higherIsBetter bool
	neutral        bool
	alpha          float64 // the level (α or Holm's step)
	margin         float64 // equivalence margin δ
	role           string
	holm           *stats.HolmStep
}

// pairedChange compares the paired values a[i], b[i] (a pair with a
// non-finite value is dropped) with the Wilcoxon signed-rank test on the
// per-pair log-ratios ln(b/a) (on differences b − a for shares, or when a
// value is ≤ 0), and its Hodges–Lehmann interval at 1 − level
// (stats.SignedRankCI, which inverts the same test):
//
//   - differs: p < level and the interval excludes no change;
//   - equivalent: the (1 − 2·level) interval lies within ±δ (ratio:
//     [1−δ, 1+δ]; a difference, shares too: ±δ·|median(a)|), the two
//     one-sided tests;
//   - inconclusive otherwise, with the interval; with n pairs the exact test
//     cannot go below 2/2^n (0.0625 for 5 pairs): fewer than 6 pairs cannot
//     decide at 0.05, and the text says so;
//   - one pair: described only.
func pairedChange(s pairedSpec, a, b []float64) *Change {
	var fa, fb []float64
	for i := range min(len(a), len(b)) {
		if finite(a[i]) && finite(b[i]) {
			fa, fb = append(fa, a[i]), append(fb, b[i])
		}
	}
	c := &Change{Figure: s.name, Unit: s.unit, Role: s.role, Test: TestSignedRank, Pairs: len(fa),
		Level: s.alpha, Outcome: stats.OutcomeInconclusive, P: 1}
	if len(fa) == 0 {
		c.Text = fmt.Sprintf("%s: no pairs with a value on both sides", s.name)
		return c
	}
	c.A, c.B = stats.Median(fa), stats.Median(fb)
	ratio := !s.points && allPositive(fa) && allPositive(fb)
	c.Ratio = ratio
	d := make([]float64, len(fa))
	for i := range fa {
		if ratio {
			d[i] = math.Log(fb[i] / fa[i])
		} else {
			d[i] = fb[i] - fa[i]
		}
	}
	if len(d) == 1 {
		c.Outcome, c.Point = OutcomeDescribed, d[0]
		if ratio {
			c.Point = math.Exp(d[0])
		}
		c.Text = fmt.Sprintf("described, not judged (one pair): %s %s → %s (%s)", displayName(s.name), num(c.A), num(c.B), changeWord(c.Ratio, c.Point, s.points))
		return c
	}
	if !slices.ContainsFunc(d, func(x float64) bool { return x != 0 }) {
		c.Point = 0
		if ratio {
			c.Point = 1
		}
		c.Text = fmt.Sprintf("inconclusive: %s is the same on both sides of every pair (%s; nothing to test), %d %s pairs",
			displayName(s.name), num(c.A), len(d), s.pairs)
		return c
	}
	sr := stats.WilcoxonSignedRank(d)
	ci := stats.SignedRankCI(d, 1-s.alpha)
	eq := stats.SignedRankCI(d, 1-2*s.alpha)
	c.P, c.Conf = sr.P, ci.Conf
	c.Point, c.Lo, c.Hi, c.IntervalOK = sr.HLShift, ci.Lo, ci.Hi, ci.OK
	if ratio {
		c.Point, c.Lo, c.Hi = math.Exp(c.Point), math.Exp(c.Lo), math.Exp(c.Hi)
	}
	test := fmt.Sprintf("%s over %d %s pairs, %s", TestSignedRank, len(d), s.pairs, formatP(sr.P))
	if s.holm != nil {
		test += fmt.Sprintf(" (Holm: level %s, %d tests)", strconv.FormatFloat(s.alpha, 'g', 2, 64), s.holm.Tests)
	}
	iv := "no interval"
	if ci.OK {
		iv = fmt.Sprintf("%s [%s, %s] (%s interval)", changeWord(ratio, c.Point, s.points),
			changeWord(ratio, c.Lo, s.points), changeWord(ratio, c.Hi, s.points), confText(ci.Conf))
	} else {
		iv = changeWord(ratio, c.Point, s.points) + " (no interval: " + ci.Reason + ")"
	}
	prefix := ""
	if s.role == stats.RoleExploratory {
		prefix = "exploratory: "
	}
	rejected := sr.OK && sr.P < s.alpha && (s.holm == nil || s.holm.Rejected)
	excl := ci.OK && (ci.Lo > 0 || ci.Hi < 0)
	bound := math.Log1p(s.margin) // in d's scale
	if !ratio {
		bound = s.margin * math.Abs(c.A)
	}
	within := eq.OK && bound > 0 && eq.Lo > -bound && eq.Hi < bound
	if rejected && excl {
		c.Outcome = stats.OutcomeDiffers
		c.Text = fmt.Sprintf("%s%s %s: %s (%s)", prefix, displayName(s.name), directionWord(s, ci.Lo > 0), iv, test)
		if within {
			c.Negligible = true
			c.Text += fmt.Sprintf("; negligible: the %s interval lies within ±%.0f %%", confText(eq.Conf), 100*s.margin)
		}
		return c
	}
	if within {
		c.Outcome = stats.OutcomeEquivalent
		c.Text = fmt.Sprintf("%sequivalent within ±%.0f %%: %s %s (%s)", prefix, 100*s.margin, displayName(s.name), iv, test)
		return c
	}
	c.Text = fmt.Sprintf("%sinconclusive: %s %s (%s)", prefix, displayName(s.name), iv, test)
	if floor := 2 / math.Ldexp(1, len(d)); floor >= s.alpha {
		c.Text += fmt.Sprintf("; %d pairs cannot reach p < %s (at best %s): at least %d pairs are needed",
			len(d), strconv.FormatFloat(s.alpha, 'g', 2, 64), strconv.FormatFloat(floor, 'g', 2, 64), pairsNeeded(s.alpha))
	}
	return c
}

// pairsNeeded is the fewest pairs whose exact signed-rank test can reach
// p < alpha: 2/2^n < alpha.
func pairsNeeded(alpha float64) int {
	n := 1
	for 2/math.Ldexp(1, n) >= alpha && n < 60 {
		n++
	}
	return n
}

// directionWord is "higher"/"lower" for a neutral figure, else
// "better (higher)" and so on.
func directionWord(s pairedSpec, higher bool) string {
	dir := "lower"
	if higher {
		dir = "higher"
	}
	if s.neutral {
		return dir
	}
	if higher == s.higherIsBetter {
		return "better (" + dir + ")"
	}
	return "worse (" + dir + ")"
}

// changeWord is a ratio as "+12 %", a difference in points as "+3.1
// points", another difference as "+0.52".
func changeWord(ratio bool, v float64, points bool) string {
	switch {
	case ratio:
		pct := (v - 1) * 100
		if math.Abs(pct) < 9.95 {
			return fmt.Sprintf("%+.1f %%", pct)
		}
		return fmt.Sprintf("%+.0f %%", pct)
	case points:
		return fmt.Sprintf("%+.1f points", v)
	}
	return signedNum(v)
}

func signedNum(v float64) string {
	s := num(v)
	if v >= 0 {
		s = "+" + s
	}
	return s
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// formatP is "p = 0.029", "p < 0.001".
func formatP(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return "p = " + strconv.FormatFloat(p, 'g', 2, 64)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func allPositive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) {
			return false
		}
	}
	return true
}

// displayName is a figure in the seeds' terms: "operational speed
// (calls/s)", "Lock waits (% of active time)".
func displayName(n string) string {
	switch {
	case n == FigCalls || n == FigRows:
		return "operational speed (" + n + ")"
	case strings.HasPrefix(n, "wait ") && strings.HasSuffix(n, " %"):
		return strings.TrimSuffix(strings.TrimPrefix(n, "wait "), " %") + " waits (% of active time)"
	case strings.HasPrefix(n, "event ") && strings.HasSuffix(n, " %"):
		return strings.TrimSuffix(strings.TrimPrefix(n, "event "), " %") + " (% of active time)"
	case strings.HasPrefix(n, "wait ") && strings.HasSuffix(n, " sessions"):
		return strings.TrimSuffix(strings.TrimPrefix(n, "wait "), " sessions") + " waits (average active sessions)"
	}
	return n
}

// confText is a confidence level as "95 %", "99.8 %" (one decimal when not
// whole, so a Holm level's interval does not read as 100 %).
func confText(c float64) string {
	pct := 100 * c
	if math.Abs(pct-math.Round(pct)) < 0.05 {
		return fmt.Sprintf("%.0f %%", pct)
	}
	if pct > 99.95 {
		return fmt.Sprintf("%.2f %%", pct)
	}
	return fmt.Sprintf("%.1f %%", pct)
}

// finiteFields replaces a non-finite number of c by 0, for JSON (which has
// no NaN): A, B and Point of a missing figure (Outcome says so), a bound of
// an interval that is not OK, a p that was not computed (then 1).
func (c *Change) finiteFields() {
	for _, p := range []*float64{&c.A, &c.B, &c.Point, &c.Lo, &c.Hi, &c.Conf, &c.Level} {
		if !finite(*p) {
			*p = 0
		}
	}
	if !finite(c.P) {
		c.P = 1
	}
}
