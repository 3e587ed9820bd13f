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

// DefaultAlpha is the significance level of a verdict's rank test.
const DefaultAlpha = 0.05

// VerdictConfig says what is compared and how it is worded.
type VerdictConfig struct {
	Metric         string  // name in the sentence, e.g. "p99", "tps"
	HigherIsBetter bool    // tps: true; latencies, skipped share, blocks per call: false
	NameB          string  // what B is called in the sentence; "B" when empty
	Better, Worse  string  // words for B's direction, e.g. "faster"/"slower"; "better"/"worse" when empty
	Alpha          float64 // rank-test level; DefaultAlpha when outside (0, 1)
	Conf           float64 // interval level; DefaultConf when outside (0, 1)
	Resamples      int     // bootstrap resamples; DefaultResamples when ≤ 0, at least MinResamples
	Seed           uint64  // bootstrap seed
}

// VerdictResult is the comparison of one metric between variants A and B.
type VerdictResult struct {
	Metric    string `json:"metric"`
	Direction string `json:"direction"` // DirBetter, DirWorse or DirNone (for B against A)
	// BHigher is true when a difference was found and B's values are the
	// higher ones (meaningful only when Direction is not DirNone).
	BHigher bool `json:"b_higher"`
	// Ratio is the bootstrap interval of median(B)/median(A) over runs.
	Ratio Interval `json:"ratio"`
	// Diff is the interval of median(B) − median(A); the verdict rests on it
	// instead of Ratio when the ratio is undefined (A's median is 0).
	Diff       Interval         `json:"diff"`
	P          float64          `json:"p"` // Mann-Whitney two-sided p-value
	NA         int              `json:"n_a"`
	NB         int              `json:"n_b"`
	A          Summary          `json:"a"`
	B          Summary          `json:"b"`
	MW         MWResult         `json:"mann_whitney"`
	NonOverlap NonOverlapResult `json:"non_overlap"`
	Text       string           `json:"text"` // the one-line verdict
}

// Verdict compares the runs of A (baseline) and B for one metric and words
// the result. The rule: B is called different from A only when BOTH
//
//  1. the bootstrap interval (cfg.Conf, resampling runs) of the ratio of
//     medians median(B)/median(A) excludes 1 — or, when that ratio is
//     undefined because A's median is 0, the interval of the difference of
//     medians excludes 0; and
//  2. the two-sided Mann-Whitney p-value is below cfg.Alpha,
//
// and the two agree on the side (the interval above 1 with U_B > mn/2, or
// below 1 with U_B < mn/2). Otherwise the verdict is "no difference beyond
// noise", which is not proof of equality. The direction is "better" when B
// moved the way cfg.HigherIsBetter prefers, "worse" otherwise. Examples:
//
//	B worse: p99 +38 % [+21 %, +57 %], Mann-Whitney p = 0.029, 4 vs 4 runs
//	no difference beyond noise (p99 ratio 1.01 [0.97, 1.05], Mann-Whitney p = 0.69, 4 vs 4 runs)
//
// With m vs n runs the exact test cannot go below 2/C(m+n, m) (0.10 for 3 vs
// 3), so with too few runs no difference can be declared; the sentence then
// starts "too few runs to decide" and says so. Non-finite values are ignored.
func Verdict(cfg VerdictConfig, a, b []float64) VerdictResult {
	cfg = cfg.withDefaults()
	r := VerdictResult{
		Metric:     cfg.Metric,
		Direction:  DirNone,
		A:          Summarize(a),
		B:          Summarize(b),
		MW:         MannWhitney(a, b),
		NonOverlap: NonOverlap(a, b),
	}
	r.NA, r.NB = r.A.N, r.B.N
	r.P = r.MW.P
	r.Ratio = RatioCI(a, b, nil, cfg.Resamples, cfg.Conf, cfg.Seed) // nil: Median
	r.Diff = DiffCI(a, b, nil, cfg.Resamples, cfg.Conf, cfg.Seed)
	runs := fmt.Sprintf("%d vs %d runs", r.NA, r.NB)
	if r.NA == 0 || r.NB == 0 {
		r.Text = "cannot compare " + metricPrefix(cfg.Metric) + runs
		return r
	}

	useRatio := r.Ratio.OK
	iv, null := r.Ratio, 1.0
	if !useRatio {
		iv, null = r.Diff, 0.0
	}
	mw := fmt.Sprintf("Mann-Whitney %s", formatP(r.P))
	higher := iv.OK && iv.Lo > null && r.MW.UB > r.MW.UA
	lower := iv.OK && iv.Hi < null && r.MW.UB < r.MW.UA
	if r.P < cfg.Alpha && (higher || lower) {
		r.BHigher = higher
		word := cfg.Worse
		r.Direction = DirWorse
		if higher == cfg.HigherIsBetter {
			word, r.Direction = cfg.Better, DirBetter
		}
		var change string
		if useRatio {
			change = fmt.Sprintf("%s [%s, %s]", formatPct(iv.Point), formatPct(iv.Lo), formatPct(iv.Hi))
		} else {
			change = fmt.Sprintf("%s [%s, %s] (difference: A's median is 0)",
				formatDiff(iv.Point), formatDiff(iv.Lo), formatDiff(iv.Hi))
		}
		r.Text = fmt.Sprintf("%s %s: %s%s, %s, %s", cfg.NameB, word, metricPrefix(cfg.Metric), change, mw, runs)
		return r
	}

	var est string
	switch {
	case useRatio:
		est = fmt.Sprintf("%sratio %s [%s, %s]", metricPrefix(cfg.Metric),
			formatRatio(iv.Point), formatRatio(iv.Lo), formatRatio(iv.Hi))
	case iv.OK:
		est = fmt.Sprintf("%sdifference %s [%s, %s]", metricPrefix(cfg.Metric),
			formatDiff(iv.Point), formatDiff(iv.Lo), formatDiff(iv.Hi))
	default:
		est = metricPrefix(cfg.Metric) + "no interval"
	}
	body := fmt.Sprintf("(%s, %s, %s)", est, mw, runs)
	if best := r.NonOverlap.ErrorRate; best >= cfg.Alpha {
		// No outcome of these runs could pass the rank test: say so rather
		// than "no difference", which the data cannot support either.
		r.Text = fmt.Sprintf("too few runs to decide %s; %s cannot reach p < %s (at best %s)", body, runs,
			strconv.FormatFloat(cfg.Alpha, 'g', 2, 64), strconv.FormatFloat(best, 'g', 2, 64))
		return r
	}
	r.Text = "no difference beyond noise " + body
	if iv.Unreliable {
		r.Text += fmt.Sprintf("; interval unreliable with fewer than %d runs a side", MinReliableRuns)
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
	if math.IsNaN(c.Conf) || c.Conf <= 0 || c.Conf >= 1 {
		c.Conf = DefaultConf
	}
	if c.Resamples <= 0 {
		c.Resamples = DefaultResamples
	}
	return c
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
