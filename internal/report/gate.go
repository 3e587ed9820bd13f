package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/gate"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// gateMarks are the outcomes as a pull-request comment shows them.
var gateMarks = map[string]string{gate.Pass: "✅ pass", gate.Fail: "❌ fail", gate.Inconclusive: "❔ inconclusive"}

// Gate is the CI gate's summary (`compare --fail-on … --markdown FILE`, an
// experiment's gate:), written as Markdown for a pull-request comment: the
// outcome in the title; per comparison a table with a row per rule (the
// metric, each side's median over its runs, B/A with the verdict's
// interval, the threshold, the outcome) and a line saying the test and the
// runs; each rule's reason under its table.
func Gate(results []*gate.Result) *Doc {
	title := "pgtrial gate: " + gateMarks[gateOutcome(results)]
	if len(results) == 1 {
		title += ": " + results[0].NameB + " against " + results[0].NameA
	}
	return &Doc{Title: title, Blocks: gateTables(results, len(results) > 1)}
}

// GateBlocks are an experiment's gate (experiment.json's gate) in its
// report: the outcome, then Gate's table of each variant against the
// first; none without a gate.
func GateBlocks(results []*gate.Result) []Block {
	if len(results) == 0 {
		return nil
	}
	head := &Lines{Lines: []string{"gate: " + gateMarks[gateOutcome(results)]}}
	return append([]Block{head}, gateTables(results, true)...)
}

// gateOutcome is the worst outcome of the results: fail, else
// inconclusive, else pass.
func gateOutcome(results []*gate.Result) string {
	outcome := gate.Pass
	for _, r := range results {
		switch {
		case r.Outcome == gate.Fail:
			outcome = gate.Fail
		case r.Outcome == gate.Inconclusive && outcome == gate.Pass:
			outcome = gate.Inconclusive
		}
	}
	return outcome
}

// gateTables is a table per comparison and the line that says how it was
// judged; titled: each table names its sides and outcome.
func gateTables(results []*gate.Result, titled bool) []Block {
	var blocks []Block
	for _, r := range results {
		t := &Table{Head: []string{"rule", "metric", r.NameA + " median", r.NameB + " median", r.NameB + "/" + r.NameA + " [interval]", "threshold", "outcome"}}
		if titled {
			t.Title = fmt.Sprintf("%s against %s: %s", r.NameB, r.NameA, gateMarks[r.Outcome])
		}
		for _, rr := range r.Rules {
			t.AddRow(rr.Rule, rr.Metric, gateMedian(rr.Unit, rr.Verdict.A), gateMedian(rr.Unit, rr.Verdict.B),
				gateChange(rr), gateValue(rr, rr.Threshold), gateMarks[rr.Outcome])
		}
		for _, rr := range r.Rules {
			t.Notes = append(t.Notes, rr.Rule+": "+rr.Why)
		}
		blocks = append(blocks, t, &Lines{Lines: []string{gateMethod(r)}})
	}
	return blocks
}

// gateMethod is the line that says how the rules were judged.
func gateMethod(r *gate.Result) string {
	n := len(r.Rules)
	level := "α = " + strconv.FormatFloat(r.Alpha, 'g', 2, 64)
	if n > 1 {
		level += fmt.Sprintf(" with Holm's correction over the %d rules", n)
	}
	return fmt.Sprintf("%d vs %d runs; per rule a two-sided Mann-Whitney U test (%s) and the Hodges–Lehmann interval of %s/%s over the runs' values: "+
		"fail when the change is real and its estimate beyond the threshold, pass when the %s interval excludes the threshold (one-sided at %s), else inconclusive.",
		r.RunsA, r.RunsB, level, r.NameB, r.NameA, format.Pct(1-2*r.Alpha), strconv.FormatFloat(r.Alpha, 'g', 2, 64))
}

// gateMedian is a side's median with the unit: "1234.5 tx/s", "4.12 ms".
func gateMedian(unit string, s stats.Summary) string {
	if s.N == 0 {
		return format.Missing
	}
	v := format.Sig3(s.Median)
	switch unit {
	case "tx/s":
		v = format.Rate(s.Median)
	case "ms":
		v = format.Ms(s.Median)
	}
	return strings.TrimSpace(v + " " + unit)
}

// gateValue is a ratio as a change (0.97 → "-3.0 %") or a difference in
// the unit.
func gateValue(rr gate.RuleResult, v float64) string {
	if rr.Ratio {
		return format.SignedPct(v - 1)
	}
	s := format.Sig3(v)
	if v >= 0 {
		s = "+" + s
	}
	return strings.TrimSpace(s + " " + rr.Unit)
}

// gateChange is the estimate with the verdict's interval: "-10 % [-12 %, -8.6 %]".
func gateChange(rr gate.RuleResult) string {
	if rr.Verdict.NA == 0 || rr.Verdict.NB == 0 {
		return format.Missing
	}
	s := gateValue(rr, rr.Estimate)
	if iv := rr.Interval; iv.OK {
		return s + " [" + gateValue(rr, iv.Lo) + ", " + gateValue(rr, iv.Hi) + "]"
	}
	return s + " (no interval)"
}
