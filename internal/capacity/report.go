package capacity

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/pgtrial/pgtrial/internal/report/format"
)

// Write prints r as a text report: the SLO, the ceiling runs, every
// open-model step, the conclusion and why the search ended.
//
// Deprecated: the renderer is report.Capacity (report.CapacityBlocks in a
// larger report). Write stays only until the experiment summary
// (internal/experiment/report.go) is built by package report; delete this
// file then.
func Write(w io.Writer, r *Result) error {
	c := r.Config.Normalized()
	var b strings.Builder
	fmt.Fprintf(&b, "capacity search: SLO %s ≤ %s from the intended start, lag not growing, achieved ≥ %s of the target, skipped + failed ≤ %s\n",
		QuantileName(c.Quantile), format.Duration(c.Limit), format.Pct(1-c.AchievedTolerance), format.Pct(c.MaxFailedShare))

	fmt.Fprintf(&b, "\nclosed-model ceiling: %s tx/s, median of %d runs (not judged: closed-model latency counts from the actual start)\n",
		format.Sig3(r.Ceiling), len(r.CeilingRuns))
	if len(r.CeilingRuns) > 0 {
		rows := [][]string{{"run", "achieved tx/s", "skipped+failed", "dir"}}
		for i, pr := range r.CeilingRuns {
			rows = append(rows, []string{strconv.Itoa(i + 1), format.Sig3(pr.Achieved), format.Pct(pr.SkippedShare + pr.FailedShare), pr.Dir})
		}
		writeTable(&b, rows)
	}
	if len(r.Steps) > 0 {
		b.WriteString("\nopen-model steps:\n")
		rows := [][]string{{"run", "phase", "target tx/s", "of ceiling", "achieved tx/s", QuantileName(c.Quantile), "lag", "skipped+failed", "result", "bracket", "dir", "why"}}
		for _, st := range r.Steps {
			pr := st.Probe
			lag, result, why := "steady", "pass", ""
			if pr.LagGrowing {
				lag = "grows"
			}
			if !st.Pass {
				result, why = "FAIL", st.Why
			}
			bracket := ""
			switch {
			case r.Pass != nil && st.N == r.Pass.N:
				bracket = "capacity"
			case r.Fail != nil && st.N == r.Fail.N:
				bracket = "lowest miss"
			}
			rows = append(rows, []string{strconv.Itoa(st.N), st.Phase, format.Sig3(pr.Rate), format.Pct(st.Fraction), format.Sig3(pr.Achieved),
				format.Duration(pr.Quantile), lag, format.Pct(pr.SkippedShare + pr.FailedShare), result, bracket, pr.Dir, why})
		}
		writeTable(&b, rows)
	}

	b.WriteString("\n" + Conclusion(r) + "\n")
	b.WriteString("search ended: " + r.Stopped)
	if r.Pass != nil && r.Fail != nil {
		lo, hi := r.Pass.Probe.Rate, r.Fail.Probe.Rate
		op := "≤"
		if (hi-lo)/lo > c.Precision {
			op = ">"
		}
		fmt.Fprintf(&b, ": bracket (%s − %s)/%s = %s %s precision %s", format.Sig3(hi), format.Sig3(lo), format.Sig3(lo), format.Pct((hi-lo)/lo), op, format.Pct(c.Precision))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable aligns rows in columns, indented by two spaces, without
// trailing blanks.
func writeTable(b *strings.Builder, rows [][]string) {
	var t strings.Builder
	tw := tabwriter.NewWriter(&t, 0, 0, 2, ' ', 0)
	for _, row := range rows {
		fmt.Fprintf(tw, "  %s\n", strings.Join(row, "\t"))
	}
	tw.Flush() // a strings.Builder does not fail
	for line := range strings.Lines(t.String()) {
		b.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
}
