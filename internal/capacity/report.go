package capacity

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Table is the open-model runs of r as text cells, a header row first and
// then one row per Step in the order run. The "bracket" column marks the
// run at the capacity and the lowest failing run above it; "why" is filled
// for failures only.
func Table(r *Result) [][]string {
	q := quantileName(r.Config.normalized().Quantile)
	rows := [][]string{{"run", "phase", "target tx/s", "of ceiling", "achieved tx/s", q, "lag", "skipped+failed", "result", "bracket", "dir", "why"}}
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
		rows = append(rows, []string{
			strconv.Itoa(st.N), st.Phase, fmtRate(pr.Rate), fmtPct(st.Fraction), fmtRate(pr.Achieved),
			fmtDur(pr.Quantile), lag, fmtPct(pr.SkippedShare + pr.FailedShare), result, bracket, pr.Dir, why,
		})
	}
	return rows
}

// Conclusion is the search's answer in one line, naming the runs that
// bracket it: "capacity: 1234 tx/s (p99 41 ms ≤ 50 ms, run DIR); at
// 1300 tx/s p99 73 ms > 50 ms (run DIR)".
func Conclusion(r *Result) string {
	c := r.Config.normalized()
	var b strings.Builder
	b.WriteString("capacity")
	if r.Stopped == StopCanceled || r.Stopped == StopError {
		fmt.Fprintf(&b, " so far (search ended early: %s)", r.Stopped)
	}
	b.WriteString(": ")
	switch {
	case r.Pass != nil:
		fmt.Fprintf(&b, "%s tx/s (%s, %s)", fmtRate(r.Rate), c.quantileVsLimit(r.Pass.Probe.Quantile), runRef(r.Pass))
		if r.Fail != nil {
			fmt.Fprintf(&b, "; at %s tx/s %s (%s)", fmtRate(r.Fail.Probe.Rate), r.Fail.Why, runRef(r.Fail))
		} else if r.Stopped == StopAtCeiling {
			b.WriteString(", the closed-model ceiling; no higher rate is tried (more needs more clients)")
		}
	case r.Fail != nil:
		fmt.Fprintf(&b, "none found: the lowest rate tried, %s tx/s, misses the SLO: %s (%s)", fmtRate(r.Fail.Probe.Rate), r.Fail.Why, runRef(r.Fail))
	default:
		b.WriteString("none found: no open-model run was made")
	}
	return b.String()
}

// Write prints r as a text report: the SLO, the ceiling runs, every
// open-model step, the conclusion and why the search ended.
func Write(w io.Writer, r *Result) error {
	c := r.Config.normalized()
	var b strings.Builder
	fmt.Fprintf(&b, "capacity search: SLO %s ≤ %s from the intended start, lag not growing, achieved ≥ %s of the target, skipped + failed ≤ %s\n",
		quantileName(c.Quantile), fmtDur(c.Limit), fmtPct(1-c.AchievedTolerance), fmtPct(c.MaxFailedShare))

	fmt.Fprintf(&b, "\nclosed-model ceiling: %s tx/s, median of %d runs (not judged: closed-model latency counts from the actual start)\n",
		fmtRate(r.Ceiling), len(r.CeilingRuns))
	if len(r.CeilingRuns) > 0 {
		rows := [][]string{{"run", "achieved tx/s", "skipped+failed", "dir"}}
		for i, pr := range r.CeilingRuns {
			rows = append(rows, []string{strconv.Itoa(i + 1), fmtRate(pr.Achieved), fmtPct(pr.SkippedShare + pr.FailedShare), pr.Dir})
		}
		writeTable(&b, rows)
	}

	if len(r.Steps) > 0 {
		b.WriteString("\nopen-model steps:\n")
		writeTable(&b, Table(r))
	}

	b.WriteString("\n" + Conclusion(r) + "\n")
	b.WriteString("search ended: " + r.Stopped)
	if r.Pass != nil && r.Fail != nil {
		lo, hi := r.Pass.Probe.Rate, r.Fail.Probe.Rate
		op := "≤"
		if (hi-lo)/lo > c.Precision {
			op = ">"
		}
		fmt.Fprintf(&b, ": bracket (%s − %s)/%s = %s %s precision %s", fmtRate(hi), fmtRate(lo), fmtRate(lo), fmtPct((hi-lo)/lo), op, fmtPct(c.Precision))
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

// runRef names a step's run: "run DIR", or "run #N" without a directory.
func runRef(st *Step) string {
	if st.Probe.Dir != "" {
		return "run " + st.Probe.Dir
	}
	return "run #" + strconv.Itoa(st.N)
}
