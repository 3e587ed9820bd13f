package gate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// Outcomes of a rule and of the whole gate.
const (
	// Pass: the runs exclude a change as bad as the threshold.
	Pass = "pass"
	// Fail: the change is real, in the rule's bad direction, and its
	// estimate is beyond the threshold.
	Fail = "fail"
	// Inconclusive: neither; more runs (or less noise) are needed.
	Inconclusive = "inconclusive"
)

// RuleResult is one rule judged on the runs of a comparison.
type RuleResult struct {
	Rule    string `json:"rule"` // canonical: "tps<-3%"
	Metric  string `json:"metric"`
	Unit    string `json:"unit,omitempty"`
	Outcome string `json:"outcome"` // Pass, Fail or Inconclusive
	// Ratio says the rule was judged on the ratio B/A (every value
	// positive); else on the difference B − A in the metric's unit, with
	// the threshold Change·|median(A)|.
	Ratio bool `json:"ratio"`
	// Threshold is the rule's threshold as a ratio B/A (1 + Change), or as
	// a difference in the unit when Ratio is false.
	Threshold float64 `json:"threshold"`
	// Estimate is the Hodges–Lehmann estimate (ratio or difference).
	Estimate float64 `json:"estimate"`
	// Interval is the verdict's two-sided interval at 1 − level (the fail
	// test: the change is real when it excludes no change); Bound is the
	// (1 − 2α) interval, whose bad-side end is the one-sided test of "the
	// change is as bad as the threshold" at α (the pass test).
	Interval stats.Interval `json:"interval"`
	Bound    stats.Interval `json:"bound"`
	// Verdict is the metric's verdict, held to Holm's correction over the
	// gate's rules (at α when there is one rule).
	Verdict stats.VerdictResult `json:"verdict"`
	Why     string              `json:"why"` // the outcome in one line
}

// Result is the gate over one comparison.
type Result struct {
	NameA   string       `json:"name_a"`
	NameB   string       `json:"name_b"`
	RunsA   int          `json:"runs_a"`
	RunsB   int          `json:"runs_b"`
	Alpha   float64      `json:"alpha"`
	Outcome string       `json:"outcome"` // Fail if a rule fails, else Inconclusive if one is, else Pass
	Rules   []RuleResult `json:"rules"`
}

// Text is the gate's outcome in one line: "gate: fail: tps<-3% (1 of 2
// rules)".
func (r *Result) Text() string {
	var failed, open []string
	for _, rr := range r.Rules {
		switch rr.Outcome {
		case Fail:
			failed = append(failed, rr.Rule)
		case Inconclusive:
			open = append(open, rr.Rule)
		}
	}
	n := len(r.Rules)
	switch r.Outcome {
	case Fail:
		return fmt.Sprintf("gate: fail: %s (%d of %d %s)", strings.Join(failed, ", "), len(failed), n, format.Plural(n, "rule", "rules"))
	case Inconclusive:
		return fmt.Sprintf("gate: inconclusive: %s (%d of %d %s; more runs a side, or less noise, would decide)", strings.Join(open, ", "), len(open), n, format.Plural(n, "rule", "rules"))
	}
	return fmt.Sprintf("gate: pass (%d %s)", n, format.Plural(n, "rule", "rules"))
}

// Evaluate judges every rule on the comparison's per-run values of its
// metric. The family of the fail tests is the gate's rules, named in
// advance: each rule's two-sided Mann-Whitney test is held to Holm's
// step-down level over the rules (α with one rule), not to the
// comparison's correction over every compared metric, so that the chance
// of any false fail stays at α. A rule:
//
//   - fails when its verdict differs in the rule's bad direction (the
//     Hodges–Lehmann interval at 1 − level excludes no change) and the
//     estimate B/A is beyond the threshold 1 + Change;
//   - passes when the (1 − 2α) interval's bad-side end is within the
//     threshold: the one-sided test rejects "the change is as bad as the
//     threshold" at α (non-inferiority). All rules passing needs no
//     correction (an intersection-union test);
//   - is inconclusive otherwise: the estimate is beyond the threshold
//     without the change being shown real, or the interval reaches the
//     threshold, or the runs are too few for an interval.
//
// A true change exactly at the threshold fails about half the time; one
// well beyond it fails with the power of the test.
func Evaluate(rules []Rule, rep *compare.Report) *Result {
	alpha := rep.Alpha
	if !(alpha > 0 && alpha < 1) {
		alpha = stats.DefaultAlpha
	}
	res := &Result{NameA: rep.NameA, NameB: rep.NameB, RunsA: len(rep.RunsA), RunsB: len(rep.RunsB), Alpha: alpha}
	type sides struct {
		m    *compare.Metric
		a, b []float64
	}
	vals := make([]sides, len(rules))
	ps := make([]float64, len(rules))
	for i, r := range rules {
		for j := range rep.Metrics {
			if m := &rep.Metrics[j]; m.Metric == r.Metric && m.QueryID == 0 {
				vals[i] = sides{m, finite(m.ValuesA), finite(m.ValuesB)}
				break
			}
		}
		ps[i] = stats.MannWhitney(vals[i].a, vals[i].b).P
	}
	var holm []stats.HolmStep
	if len(rules) > 1 {
		holm = stats.Holm(ps, alpha)
	}
	for i, r := range rules {
		var step *stats.HolmStep
		if holm != nil {
			step = &holm[i]
		}
		rr := judge(r, vals[i].a, vals[i].b, alpha, step, rep.NameB)
		if vals[i].m == nil {
			rr.Why = r.Metric + " was not compared: the runs have no such metric"
		} else {
			rr.Unit = vals[i].m.Unit
		}
		res.Rules = append(res.Rules, rr)
	}
	res.Outcome = Pass
	for _, rr := range res.Rules {
		switch {
		case rr.Outcome == Fail:
			res.Outcome = Fail
		case rr.Outcome == Inconclusive && res.Outcome == Pass:
			res.Outcome = Inconclusive
		}
	}
	return res
}

// finite is the values that are there (a run without the metric is nil).
func finite(vs []*float64) []float64 {
	out := make([]float64, 0, len(vs))
	for _, v := range vs {
		if v != nil && !math.IsNaN(*v) && !math.IsInf(*v, 0) {
			out = append(out, *v)
		}
	}
	return out
}

// judge is one rule on A's and B's values (finite), the rule's Holm step
// among the gate's rules (nil: one rule, level α).
func judge(r Rule, a, b []float64, alpha float64, holm *stats.HolmStep, nameB string) RuleResult {
	natural := r.Metric == "tps" && !r.Higher() || r.Metric != "tps" && r.Higher()
	cfg := stats.VerdictConfig{Metric: r.Metric, HigherIsBetter: !r.Higher(), NameB: nameB, Alpha: alpha, Holm: holm}
	if natural {
		cfg.Better, cfg.Worse = "faster", "slower"
	}
	v := stats.Verdict(cfg, a, b)
	rr := RuleResult{Rule: r.String(), Metric: r.Metric, Outcome: Inconclusive, Verdict: v}
	if len(a) == 0 || len(b) == 0 {
		rr.Why = fmt.Sprintf("no values to compare (%d vs %d runs)", len(a), len(b))
		return rr
	}
	rr.Ratio = positive(a) && positive(b)
	chg := func(x float64) string { return format.SignedPct(x - 1) }
	if rr.Ratio {
		rr.Threshold = r.Threshold()
		rr.Interval = v.Ratio
		rr.Bound = stats.LogRatioCI(a, b, 1-2*alpha)
		rr.Estimate = math.Exp(stats.MannWhitney(logs(a), logs(b)).HLShift)
	} else {
		rr.Threshold = r.Change * math.Abs(v.A.Median)
		rr.Interval = v.Diff
		rr.Bound = stats.ShiftCI(a, b, 1-2*alpha)
		rr.Estimate = stats.MannWhitney(a, b).HLShift
		chg = func(x float64) string { return signedSig(x) }
	}
	if !isFinite(rr.Estimate) || !isFinite(rr.Threshold) {
		rr.Estimate, rr.Threshold = 0, 0 // JSON has no infinities
		rr.Why = "the values overflow float64: no estimate"
		return rr
	}
	beyond := func(x float64) bool {
		if r.Higher() {
			return x > rr.Threshold
		}
		return x < rr.Threshold
	}
	real := v.Outcome == stats.OutcomeDiffers && v.BHigher == r.Higher()
	runs := fmt.Sprintf("%d vs %d runs", len(a), len(b))
	thr := chg(rr.Threshold)
	est := r.Metric + " " + chg(rr.Estimate)
	test := fmt.Sprintf("%s %s at level %s", v.Test, pText(v.P), strconv.FormatFloat(v.Level, 'g', 2, 64))
	switch {
	case real && beyond(rr.Estimate):
		rr.Outcome = Fail
		rr.Why = fmt.Sprintf("%s, %s interval [%s, %s]: a real change beyond %s (%s, %s)",
			est, levelText(rr.Interval.Conf), chg(rr.Interval.Lo), chg(rr.Interval.Hi), thr, test, runs)
	case rr.Bound.OK && !beyond(badEnd(rr.Bound, r.Higher())) && badEnd(rr.Bound, r.Higher()) != rr.Threshold:
		rr.Outcome = Pass
		rr.Why = fmt.Sprintf("%s; its %s interval [%s, %s] excludes %s: no change as bad as the threshold (one-sided at %s, %s)",
			est, levelText(rr.Bound.Conf), chg(rr.Bound.Lo), chg(rr.Bound.Hi), thr, strconv.FormatFloat(alpha, 'g', 2, 64), runs)
	case !rr.Bound.OK:
		rr.Why = fmt.Sprintf("%s; %s cannot exclude %s: %s", est, runs, thr, rr.Bound.Reason)
	case beyond(rr.Estimate):
		rr.Why = fmt.Sprintf("%s is beyond %s, but the change is not shown to be real (%s, %s)", est, thr, test, runs)
		if best := v.NonOverlap.ErrorRate; best >= v.Level {
			rr.Why += fmt.Sprintf(": %s cannot reach p < %s (at best %s), more runs a side are needed",
				runs, strconv.FormatFloat(v.Level, 'g', 2, 64), strconv.FormatFloat(best, 'g', 2, 64))
		}
	default:
		rr.Why = fmt.Sprintf("%s; its %s interval [%s, %s] reaches %s: these runs cannot exclude a change as bad as the threshold (%s)",
			est, levelText(rr.Bound.Conf), chg(rr.Bound.Lo), chg(rr.Bound.Hi), thr, runs)
	}
	return rr
}

// badEnd is the end of iv on the rule's bad side.
func badEnd(iv stats.Interval, higher bool) float64 {
	if higher {
		return iv.Hi
	}
	return iv.Lo
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func positive(vs []float64) bool {
	for _, v := range vs {
		if !(v > 0) {
			return false
		}
	}
	return true
}

func logs(vs []float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = math.Log(v)
	}
	return out
}

// pText is "p = 0.029", or "p < 0.001".
func pText(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return "p = " + strconv.FormatFloat(p, 'g', 2, 64)
}

// levelText is a confidence level as "95 %", "97.1 %".
func levelText(c float64) string {
	pct := 100 * c
	if math.Abs(pct-math.Round(pct)) < 0.05 {
		return fmt.Sprintf("%.0f %%", pct)
	}
	return fmt.Sprintf("%.1f %%", pct)
}

func signedSig(v float64) string {
	s := format.Sig3(v)
	if v >= 0 {
		s = "+" + s
	}
	return s
}
