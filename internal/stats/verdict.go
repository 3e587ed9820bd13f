package stats

import (
	"fmt"
	"math"
	"strconv"
)

// Directions of a VerdictResult.
const (
	DirBetter = "better"
	DirWorse  = "worse"
	DirNone   = "none"
)

// Outcomes of a VerdictResult: never a bare "no difference".
const (
	// OutcomeDiffers: the test rejects "no shift" at its level and the
	// interval (the same test inverted) excludes it.
	OutcomeDiffers = "differs"
	// OutcomeEquivalent: the two one-sided tests (TOST) show the shift
	// inside ±Margin: the (1 − 2α) interval lies within [1−δ, 1+δ].
	OutcomeEquivalent = "equivalent"
	// OutcomeInconclusive: neither; the runs cannot decide.
	OutcomeInconclusive = "inconclusive"
)

// Roles of a verdict in a comparison.
const (
	// RolePrimary: the one metric a comparison is about, tested at α.
	RolePrimary = "primary"
	// RoleExploratory: every other metric, tested with Holm's correction
	// over all of them (VerdictConfig.Holm).
	RoleExploratory = "exploratory"
)

// DefaultAlpha is the significance level of a verdict's rank test.
const DefaultAlpha = 0.05

// DefaultMargin is the equivalence margin δ: ±5 %.
const DefaultMargin = 0.05

// VerdictConfig says what is compared and how it is worded.
type VerdictConfig struct {
	Metric         string  // name in the sentence, e.g. "p99", "tps"
	HigherIsBetter bool    // tps: true; latencies, skipped share, blocks per call: false
	NameB          string  // what B is called in the sentence; "B" when empty
	Better, Worse  string  // words for B's direction, e.g. "faster"/"slower"; "better"/"worse" when empty
	Alpha          float64 // test level; DefaultAlpha when outside (0, 1)
	Margin         float64 // equivalence margin δ (a share: 0.05 is ±5 %); DefaultMargin when outside (0, 1)
	// Role is RolePrimary (the default) or RoleExploratory. An exploratory
	// verdict with Holm set is held to Holm.Level and differs only when
	// Holm.Rejected.
	Role string
	Holm *HolmStep
}

// VerdictResult is the comparison of one metric between variants A and B.
type VerdictResult struct {
	Metric  string `json:"metric"`
	Outcome string `json:"outcome"` // OutcomeDiffers, OutcomeEquivalent or OutcomeInconclusive
	Role    string `json:"role"`    // RolePrimary or RoleExploratory
	// Direction is DirBetter or DirWorse when the outcome is "differs"
	// (for B against A), DirNone otherwise.
	Direction string `json:"direction"`
	// BHigher is true when a difference was found and B's values are the
	// higher ones (meaningful only when Direction is not DirNone).
	BHigher bool `json:"b_higher"`
	// Ratio is the typical ratio B/A with its interval at level Level
	// (LogRatioCI: the Hodges–Lehmann shift of log values, by inverting
	// Mann-Whitney); not OK when a value is ≤ 0.
	Ratio Interval `json:"ratio"`
	// Diff is the Hodges–Lehmann shift B − A in the metric's unit with its
	// interval (ShiftCI), made only when a value is ≤ 0 (Ratio not made):
	// the verdict then rests on it.
	Diff Interval `json:"diff"`
	// Equivalence is the (1 − 2·Level) interval of the same kind, the two
	// one-sided tests' view: the outcome is "equivalent" when it lies within
	// [1 − Margin, 1 + Margin] (a ratio), or ±Margin·|median(A)| (a difference).
	Equivalence Interval `json:"equivalence"`
	Margin      float64  `json:"margin"`
	// Negligible is set on a "differs" whose equivalence interval also
	// lies within the margin: the runs show a change, and that it is
	// smaller than δ (a real but negligible difference; both tests hold).
	Negligible bool      `json:"negligible,omitempty"`
	Test       string    `json:"test"`  // "Mann-Whitney exact", …
	P          float64   `json:"p"`     // Mann-Whitney two-sided p-value
	Level      float64   `json:"level"` // the level P was held to (α, or Holm's step)
	Holm       *HolmStep `json:"holm,omitempty"`
	// Detectable is the smallest change these runs detect at DefaultPower,
	// as a share (0.09: ±9 %) for a ratio, in the unit for a difference;
	// +Inf (JSON: null) when the runs cannot reach the level at all.
	Detectable *float64 `json:"detectable,omitempty"`
	// RunsForMargin is the number of runs a side that would detect a change
	// of Margin at DefaultPower, from the measured run-to-run spread (0:
	// unknown).
	RunsForMargin int              `json:"runs_for_margin,omitempty"`
	NA            int              `json:"n_a"`
	NB            int              `json:"n_b"`
	A             Summary          `json:"a"`
	B             Summary          `json:"b"`
	MW            MWResult         `json:"mann_whitney"`
	NonOverlap    NonOverlapResult `json:"non_overlap"`
	Text          string           `json:"text"` // the one-line verdict
}

// Verdict compares the runs of A (baseline) and B for one metric and words
// the result as one of three outcomes:
//
//   - differs: the two-sided Mann-Whitney p is below the level (α, or Holm's
//     step for an exploratory metric) and the Hodges–Lehmann interval at
//     1 − level, which inverts the same test, excludes no change (they agree
//     by construction without ties; both are required);
//   - equivalent within ±δ: the (1 − 2·level) interval lies inside
//     [1 − δ, 1 + δ] — the two one-sided tests (TOST) each reject a change
//     of δ at the level; a "differs" whose (1 − 2·level) interval lies
//     there too is marked Negligible ("negligible: … within ±5 %");
//   - inconclusive: neither, with the interval ("changes from −4 % to +14 %
//     are not excluded"), the smallest change these runs detect at 80 %
//     power and the runs a side that would detect δ, both from the pooled
//     run-to-run spread (DetectableShift, RunsNeeded).
//
// Values all positive are compared as ratios (logarithms); with a value ≤ 0
// (a skipped share of 0) as differences, with the margin δ·|median(A)|.
// Examples:
//
//	B worse: p99 +38 %, 97.1 % interval [+21 %, +57 %], Mann-Whitney exact p = 0.029, 4 vs 4 runs
//	equivalent within ±5 %: tps ratio 1.01, 90 % interval [0.99, 1.03], 5 vs 5 runs
//	inconclusive: p99 changes from −4.0 % to +14 % are not excluded (95 % interval), Mann-Whitney exact p = 0.31, 5 vs 5 runs; these runs detect ±9.1 % at 80 % power, ±5 % needs 14 runs a side
//
// With m vs n runs the exact test cannot go below 2/C(m+n, m) (0.10 for 3 vs
// 3): the verdict is then inconclusive and says so. Non-finite values are
// ignored.
func Verdict(cfg VerdictConfig, a, b []float64) VerdictResult {
	cfg = cfg.withDefaults()
	fa, fb := finite(a), finite(b)
	r := VerdictResult{
		Metric:     cfg.Metric,
		Outcome:    OutcomeInconclusive,
		Role:       cfg.Role,
		Direction:  DirNone,
		Margin:     cfg.Margin,
		A:          Summarize(fa),
		B:          Summarize(fb),
		MW:         MannWhitney(fa, fb),
		NonOverlap: NonOverlap(fa, fb),
		Level:      cfg.Alpha,
		Holm:       cfg.Holm,
	}
	if cfg.Holm != nil {
		r.Level = cfg.Holm.Level
	}
	r.NA, r.NB = r.A.N, r.B.N
	r.P = r.MW.P
	r.Test = "Mann-Whitney " + r.MW.Method
	runs := fmt.Sprintf("%d vs %d runs", r.NA, r.NB)
	prefix := ""
	if cfg.Role == RoleExploratory {
		prefix = "exploratory: "
	}
	if r.NA == 0 || r.NB == 0 {
		r.Text = prefix + "cannot compare " + metricPrefix(cfg.Metric) + runs
		return r
	}
	level := r.Level
	la, posA := logs(fa)
	lb, posB := logs(fb)
	useRatio := posA && posB
	if useRatio {
		r.Ratio = LogRatioCI(fa, fb, 1-level)
	} else {
		r.Ratio = Interval{NA: r.NA, NB: r.NB, Method: MethodHL, Reason: "a value is 0 or negative: no ratio"}
		r.Diff = ShiftCI(fa, fb, 1-level)
	}
	var null, lo, hi float64 // the margin's bounds
	var spread float64       // run-to-run SD in the scale of the interval
	if useRatio {
		r.Equivalence = LogRatioCI(fa, fb, 1-2*level)
		null, lo, hi = 1, 1-cfg.Margin, 1+cfg.Margin
		spread = pooledSD(la, lb)
	} else {
		r.Equivalence = ShiftCI(fa, fb, 1-2*level)
		ref := math.Abs(r.A.Median)
		null, lo, hi = 0, -cfg.Margin*ref, cfg.Margin*ref
		spread = pooledSD(fa, fb)
	}
	iv := r.Diff
	if useRatio {
		iv = r.Ratio
	}
	mw := fmt.Sprintf("%s %s", r.Test, formatP(r.P))
	if cfg.Holm != nil {
		mw += fmt.Sprintf(" (Holm: level %s, %d tests)", strconv.FormatFloat(level, 'g', 2, 64), cfg.Holm.Tests)
	}

	higher := iv.OK && iv.Lo > null && r.MW.UB > r.MW.UA
	lower := iv.OK && iv.Hi < null && r.MW.UB < r.MW.UA
	rejected := r.P < level && (cfg.Holm == nil || cfg.Holm.Rejected)
	if rejected && (higher || lower) {
		r.Outcome = OutcomeDiffers
		r.BHigher = higher
		word := cfg.Worse
		r.Direction = DirWorse
		if higher == cfg.HigherIsBetter {
			word, r.Direction = cfg.Better, DirBetter
		}
		var change string
		if useRatio {
			change = fmt.Sprintf("%s, %s interval [%s, %s]", formatPct(iv.Point), formatLevel(iv.Conf), formatPct(iv.Lo), formatPct(iv.Hi))
		} else {
			change = fmt.Sprintf("%s, %s interval [%s, %s] (a difference: a value is 0)",
				formatDiff(iv.Point), formatLevel(iv.Conf), formatDiff(iv.Lo), formatDiff(iv.Hi))
		}
		r.Text = fmt.Sprintf("%s%s %s: %s%s, %s, %s", prefix, cfg.NameB, word, metricPrefix(cfg.Metric), change, mw, runs)
		if eq := r.Equivalence; eq.OK && hi > lo && eq.Lo > lo && eq.Hi < hi {
			r.Negligible = true
			r.Text += fmt.Sprintf("; negligible: the %s interval lies within ±%s", formatLevel(eq.Conf), formatMargin(cfg.Margin))
		}
		return r
	}

	eq := r.Equivalence
	if eq.OK && hi > lo && eq.Lo > lo && eq.Hi < hi {
		r.Outcome = OutcomeEquivalent
		var est string
		if useRatio {
			est = fmt.Sprintf("%sratio %s, %s interval [%s, %s]", metricPrefix(cfg.Metric), formatRatio(eq.Point),
				formatLevel(eq.Conf), formatRatio(eq.Lo), formatRatio(eq.Hi))
		} else {
			est = fmt.Sprintf("%sdifference %s, %s interval [%s, %s]", metricPrefix(cfg.Metric), formatDiff(eq.Point),
				formatLevel(eq.Conf), formatDiff(eq.Lo), formatDiff(eq.Hi))
		}
		r.Text = fmt.Sprintf("%sequivalent within ±%s: %s, %s", prefix, formatMargin(cfg.Margin), est, runs)
		return r
	}

	// Inconclusive: what is not excluded, and what these runs could see.
	if r.A.Min == r.A.Max && r.B.Min == r.B.Max && r.A.Min == r.B.Min {
		r.Text = fmt.Sprintf("%sinconclusive: %sis %s in every run of both sides (nothing to test), %s",
			prefix, metricPrefix(cfg.Metric), strconv.FormatFloat(r.A.Min, 'g', 4, 64), runs)
		return r
	}
	var body string
	switch {
	case cfg.Holm != nil && !cfg.Holm.Rejected && r.P < level:
		// Below its own level, but Holm's step-down stopped at a test
		// before it (a smaller p that was not small enough).
		body = fmt.Sprintf("%s%s, p below its level but Holm's step-down stopped before it (adjusted p = %s)",
			metricPrefix(cfg.Metric), intervalText(iv, useRatio), strconv.FormatFloat(cfg.Holm.Adjusted, 'g', 2, 64))
	case rejected || higher || lower:
		// The test and the interval disagree (ties at the boundary).
		body = fmt.Sprintf("%sthe test and its interval do not agree (%s)", metricPrefix(cfg.Metric), intervalText(iv, useRatio))
	case iv.OK && useRatio:
		body = fmt.Sprintf("%schanges from %s to %s are not excluded (%s interval)", metricPrefix(cfg.Metric),
			formatPct(iv.Lo), formatPct(iv.Hi), formatLevel(iv.Conf))
	case iv.OK:
		body = fmt.Sprintf("%sdifferences from %s to %s are not excluded (%s interval)", metricPrefix(cfg.Metric),
			formatDiff(iv.Lo), formatDiff(iv.Hi), formatLevel(iv.Conf))
	case useRatio:
		body = fmt.Sprintf("%sratio %s (no %s interval with %s)", metricPrefix(cfg.Metric), formatRatio(iv.Point), formatLevel(1-level), runs)
	default:
		body = fmt.Sprintf("%sdifference %s (no %s interval with %s)", metricPrefix(cfg.Metric), formatDiff(iv.Point), formatLevel(1-level), runs)
	}
	r.Text = fmt.Sprintf("%sinconclusive: %s, %s, %s", prefix, body, mw, runs)
	if best := r.NonOverlap.ErrorRate; best >= level {
		need := minRunsFor(level)
		r.Text += fmt.Sprintf("; %s cannot reach p < %s (at best %s): at least %d runs a side are needed",
			runs, strconv.FormatFloat(level, 'g', 2, 64), strconv.FormatFloat(best, 'g', 2, 64), need)
		r.RunsForMargin = max(need, r.RunsForMargin)
		return r
	}
	if det := DetectableShift(spread, r.NA, r.NB, level, DefaultPower); !math.IsInf(det, 0) && !math.IsNaN(det) {
		if useRatio {
			det = math.Expm1(det)
		}
		if isFinite(det) {
			if useRatio {
				r.Text += fmt.Sprintf("; these runs detect ±%s at %.0f %% power", formatShare(det), DefaultPower*100)
			} else {
				r.Text += fmt.Sprintf("; these runs detect ±%s at %.0f %% power", strconv.FormatFloat(det, 'g', 3, 64), DefaultPower*100)
			}
			r.Detectable = &det
		}
	}
	delta := math.Log1p(cfg.Margin)
	if !useRatio {
		delta = cfg.Margin * math.Abs(r.A.Median)
	}
	if n := RunsNeeded(spread, delta, level, DefaultPower); n > 0 {
		r.RunsForMargin = n
		if n > max(r.NA, r.NB) {
			r.Text += fmt.Sprintf(", ±%s needs %d runs a side", formatMargin(cfg.Margin), n)
		}
	}
	return r
}

func (c VerdictConfig) withDefaults() VerdictConfig {
	if c.NameB == "" {
		c.NameB = "B"
	}
	if c.Better == "" {
		c.Better = DirBetter
	}
	if c.Worse == "" {
		c.Worse = DirWorse
	}
	if math.IsNaN(c.Alpha) || c.Alpha <= 0 || c.Alpha >= 1 {
		c.Alpha = DefaultAlpha
	}
	if math.IsNaN(c.Margin) || c.Margin <= 0 || c.Margin >= 1 {
		c.Margin = DefaultMargin
	}
	if c.Role == "" {
		c.Role = RolePrimary
	}
	return c
}

// intervalText is "ratio 1.05 [1.01, 1.09]" or "difference +0.2 [+0.1, +0.3]".
func intervalText(iv Interval, ratio bool) string {
	if !iv.OK {
		return "no interval"
	}
	if ratio {
		return fmt.Sprintf("ratio %s [%s, %s]", formatRatio(iv.Point), formatRatio(iv.Lo), formatRatio(iv.Hi))
	}
	return fmt.Sprintf("difference %s [%s, %s]", formatDiff(iv.Point), formatDiff(iv.Lo), formatDiff(iv.Hi))
}

// formatLevel is a confidence level as "95 %" (one decimal when not whole).
func formatLevel(c float64) string {
	pct := c * 100
	if math.Abs(pct-math.Round(pct)) < 0.05 {
		return fmt.Sprintf("%.0f %%", pct)
	}
	return fmt.Sprintf("%.1f %%", pct)
}

// formatMargin is a margin share as "5 %".
func formatMargin(m float64) string {
	return strconv.FormatFloat(m*100, 'g', 3, 64) + " %"
}

// formatShare is a share as "9.1 %" (one decimal below 10 %).
func formatShare(s float64) string {
	pct := s * 100
	if math.Abs(pct) < 9.95 {
		return fmt.Sprintf("%.1f %%", pct)
	}
	return fmt.Sprintf("%.0f %%", pct)
}

func metricPrefix(m string) string {
	if m == "" {
		return ""
	}
	return m + " "
}

// formatP is "p = 0.029" with two significant digits, "p < 0.001" below that.
func formatP(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return "p = " + strconv.FormatFloat(p, 'g', 2, 64)
}

// formatPct writes a ratio r as the change (r − 1)·100 %: "+38 %", "-4.2 %"
// (one decimal below 10 %).
func formatPct(r float64) string {
	pct := (r - 1) * 100
	if math.Abs(pct) < 9.95 {
		return fmt.Sprintf("%+.1f %%", pct)
	}
	return fmt.Sprintf("%+.0f %%", pct)
}

// formatRatio writes a ratio with two decimals, or three significant digits
// outside [0.1, 100).
func formatRatio(r float64) string {
	if r >= 0.1 && r < 100 {
		return strconv.FormatFloat(r, 'f', 2, 64)
	}
	return strconv.FormatFloat(r, 'g', 3, 64)
}

// formatDiff writes a difference with its sign and three significant digits.
func formatDiff(d float64) string {
	s := strconv.FormatFloat(d, 'g', 3, 64)
	if d >= 0 {
		s = "+" + s
	}
	return s
}
