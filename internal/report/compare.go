package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// Compare is the report of `pgtrial compare`: the runs of each side, the
// table of the metrics (per side the median and range over runs, the ratio
// of medians with its interval, Mann-Whitney's p, the short verdict), one
// verdict line per metric, the statements' legend, what differs between
// the sides' environments besides the variant, the checklist and the
// warnings.
func Compare(rep *compare.Report) *Doc {
	model := rep.Model.Kind + " model"
	if rep.Model.Kind == results.ModelOpen {
		model += " at " + format.Rate(rep.Model.Rate) + " tx/s"
	}
	nA, nB := len(rep.RunsA), len(rep.RunsB)
	d := &Doc{Title: fmt.Sprintf("compare: %s (%d %s) vs %s (%d %s): %s, %s, %d clients",
		rep.NameA, nA, format.Plural(nA, "run", "runs"), rep.NameB, nB, format.Plural(nB, "run", "runs"),
		rep.Workload.Name, model, rep.Model.Clients)}

	runs := &Lines{Indent: 2, Attached: true}
	for _, r := range append(slices.Clone(rep.RunsA), rep.RunsB...) {
		started := ""
		if !r.StartedAt.IsZero() {
			started = "  started " + r.StartedAt.Local().Format("2006-01-02 15:04:05")
		}
		runs.Lines = append(runs.Lines, fmt.Sprintf("%-6s %s%s", r.Label, r.Dir, started))
	}
	d.Add(runs)
	if len(rep.Forced) > 0 {
		d.Add(&Notes{Prefix: "warning: --force: the runs differ in ", Lines: rep.Forced})
	}
	if len(rep.Notes) > 0 {
		d.Add(&Notes{Prefix: "note: the runs differ in ", Lines: rep.Notes})
	}

	d.Add(compareTable(rep))

	d.Add(CompareVerdicts(rep))

	stmts := &Lines{Indent: 2, Title: "statements (shared blocks hit + read per call, matched by queryid):"}
	for _, m := range rep.Metrics {
		if m.Group != "statements" {
			continue
		}
		how := ""
		if m.MatchedByText {
			how = " (queryid differs between the sides: matched by query text)"
		}
		stmts.Lines = append(stmts.Lines, fmt.Sprintf("%s  queryid %d%s: %s",
			strings.TrimPrefix(m.Metric, "blocks/call "), m.QueryID, how, format.OneLine(results.RedactSQL(m.Query), 90)))
	}
	if len(stmts.Lines) > 0 {
		d.Add(stmts)
	}
	if env := CompareEnvironment(rep); env != nil {
		d.Add(env)
	}
	if len(rep.Checks) > 0 {
		d.Add(&Checklist{Title: "checklist (DESIGN §8; the runs' items with their worst status, and the comparison's):", Items: rep.Checks})
	}
	if len(rep.Warnings) > 0 {
		d.Add(&Notes{Prefix: "warning: ", Lines: rep.Warnings})
	}
	return d
}

// CompareVerdicts is the verdict lines of a comparison: the primary
// metric's first, under a title that names the tests, the levels and the
// number of tests; then the exploratory metrics that differ, one line each;
// then the others collapsed into one line by outcome.
func CompareVerdicts(rep *compare.Report) *Lines {
	margin := rep.Margin
	if !(margin > 0 && margin < 1) {
		margin = stats.DefaultMargin
	}
	alpha := rep.Alpha
	if !(alpha > 0 && alpha < 1) {
		alpha = stats.DefaultAlpha
	}
	nExp := max(rep.Tests-1, 0)
	if rep.Primary == "" {
		// A record written before the primary metric: its verdicts as they were.
		l := &Lines{Indent: 2, Title: "verdicts (per-run values):"}
		for _, m := range rep.Metrics {
			l.Lines = append(l.Lines, m.Metric+": "+m.Verdict.Text)
		}
		return l
	}
	l := &Lines{Indent: 2, Title: fmt.Sprintf("verdicts (per-run values; primary metric %s at α = %s, %d exploratory with Holm's correction, %d tests in all; "+
		"two-sided Mann-Whitney U, its Hodges–Lehmann interval of %s/%s; equivalent: inside ±%s by two one-sided tests):",
		rep.Primary, strconv.FormatFloat(alpha, 'g', 2, 64), nExp, rep.Tests, rep.NameB, rep.NameA, strconv.FormatFloat(margin*100, 'g', 3, 64)+" %")}
	var equivalent, inconclusive []string
	for _, m := range rep.Metrics {
		v := &m.Verdict
		switch {
		case v.Role == "":
			l.Lines = append(l.Lines, v.Text) // a record written before verdicts had roles
		case v.Role == stats.RolePrimary:
			l.Lines = append([]string{"primary: " + v.Text}, l.Lines...)
		case v.Outcome == stats.OutcomeDiffers:
			l.Lines = append(l.Lines, v.Text)
		case v.Outcome == stats.OutcomeEquivalent:
			equivalent = append(equivalent, m.Metric)
		default:
			inconclusive = append(inconclusive, m.Metric)
		}
	}
	l.Lines = withPaired(l.Lines, rep.Paired)
	if len(equivalent) > 0 {
		l.Lines = append(l.Lines, fmt.Sprintf("exploratory, equivalent within ±%s: %s", strconv.FormatFloat(margin*100, 'g', 3, 64)+" %", strings.Join(equivalent, ", ")))
	}
	if len(inconclusive) > 0 {
		l.Lines = append(l.Lines, "exploratory, inconclusive: "+strings.Join(inconclusive, ", ")+" (--json has each one's interval)")
	}
	return l
}

// withPaired puts the paired-by-round line (and the drift line, when there
// is one) right after the primary's line, which is first.
func withPaired(lines []string, p *compare.PairedResult) []string {
	if p == nil {
		return lines
	}
	add := []string{p.Text}
	if p.DriftText != "" {
		add = append(add, p.DriftText)
	}
	at := min(1, len(lines))
	return slices.Concat(lines[:at], add, lines[at:])
}

// compareTable is one row per metric: the metric, each side's median
// (min–max) and, for latencies, its pooled figure (compare.Pooled), the
// ratio B/A with its interval, MW p and the short verdict. A record
// written before the pooled figures has no pooled columns.
func compareTable(rep *compare.Report) *Table {
	pooled := hasPooled(rep.PooledA) || hasPooled(rep.PooledB)
	head := []string{"metric", rep.NameA + " median (min–max)"}
	if pooled {
		head = append(head, rep.NameA+" pooled")
	}
	head = append(head, rep.NameB+" median (min–max)")
	if pooled {
		head = append(head, rep.NameB+" pooled")
	}
	t := &Table{Head: append(head, rep.NameB+"/"+rep.NameA+" [interval]", "MW p", "verdict")}
	for _, m := range rep.Metrics {
		v := &m.Verdict
		row := []Cell{Text(primaryMark(rep, &m) + metricLabel(&m)), sideCell(m.Unit, v.A, rep.NameA)}
		if pooled {
			row = append(row, pooledCell(&m, m.PooledA, rep.PooledA, rep.NameA))
		}
		row = append(row, sideCell(m.Unit, v.B, rep.NameB))
		if pooled {
			row = append(row, pooledCell(&m, m.PooledB, rep.PooledB, rep.NameB))
		}
		t.Rows = append(t.Rows, append(row, Text(ratioText(m.Unit, v)), Text(pText(v)), Text(shortVerdict(v))))
	}
	switch {
	case pooled:
		t.Notes = append(t.Notes, pooledNote(rep))
	case rep.PooledA != nil || rep.PooledB != nil:
		var why []string
		for _, p := range []*compare.Pooled{rep.PooledA, rep.PooledB} {
			if p != nil && len(p.Missing) > 0 {
				why = append(why, pooledMissing(p))
			}
		}
		t.Notes = append(t.Notes, "no pooled latency figures (the runs' histograms merged): "+strings.Join(why, "; "))
	}
	if few := compareFewLine(rep); few != "" {
		t.Notes = append(t.Notes, few)
	}
	return t
}

// compareFewLine is the note of the quantiles that rest, in some runs, on
// fewer than compare.FewBeyond transactions beyond them: "p99.9 rests on
// fewer than 20 transactions beyond it in 3 runs (A#1: 12 of 12,010, …)";
// "" when none does.
func compareFewLine(rep *compare.Report) string {
	var parts []string
	for _, m := range rep.Metrics {
		if len(m.Few) == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s in %d %s (%s)", m.Metric, len(m.Few), format.Plural(len(m.Few), "run", "runs"), strings.Join(m.Few, ", ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("rests on fewer than %d transactions beyond it: %s; a handful of transactions decide such a quantile",
		compare.FewBeyond, strings.Join(parts, "; "))
}

// hasPooled reports whether a side has pooled figures.
func hasPooled(p *compare.Pooled) bool { return p != nil && len(p.Missing) == 0 && p.Runs > 0 }

// pooledMissing is why a side has no pooled figures: the first run's
// reason, and how many other runs have one.
func pooledMissing(p *compare.Pooled) string {
	if len(p.Missing) == 0 {
		return ""
	}
	s := p.Missing[0]
	if n := len(p.Missing) - 1; n > 0 {
		s += fmt.Sprintf(" (and %d other %s)", n, format.Plural(n, "run", "runs"))
	}
	return s
}

// pooledCell is a side's pooled figure of a latency metric; empty for the
// other metrics; missing, with the reason, when the side's histograms
// could not all be read.
func pooledCell(m *compare.Metric, v *float64, p *compare.Pooled, side string) Cell {
	switch {
	case m.Group != "latency":
		return Text("")
	case v != nil:
		return Text(format.MsFixed(*v))
	case p != nil && len(p.Missing) > 0:
		return Absent("no pooled figure for " + side + ": " + pooledMissing(p))
	}
	return Absent("no pooled figure for " + side)
}

// pooledNote is the footnote that says what the two latency figures are
// and why both are shown.
func pooledNote(rep *compare.Report) string {
	var n []string
	for _, s := range []struct {
		name string
		p    *compare.Pooled
	}{{rep.NameA, rep.PooledA}, {rep.NameB, rep.PooledB}} {
		if s.p != nil && len(s.p.Missing) == 0 {
			n = append(n, fmt.Sprintf("%s: %s transactions of %d %s", s.name, format.Count(s.p.Count), s.p.Runs, format.Plural(s.p.Runs, "run", "runs")))
		}
	}
	of := ""
	if len(n) > 0 {
		of = " (" + strings.Join(n, "; ") + ")"
	}
	return "latency: median = the median over runs of each run's percentile; pooled = the percentile of all the side's transactions, " +
		"the runs' histograms merged" + of + "; nearest rank ⌈q·n⌉ both. One stalled run in five moves the pooled p99 a lot and the median " +
		"of the runs' p99s little, so both are shown; the verdicts use the per-run values."
}

// metricLabel is the table's first column: the metric and, for latencies,
// its unit ("p99 ms"); the other metrics name their unit ("tps",
// "skipped+dropped %", "blocks/call s1").
func metricLabel(m *compare.Metric) string {
	if m.Unit == "ms" {
		return m.Metric + " ms"
	}
	return m.Metric
}

// valueFormat is the formatter of a metric's unit: tx/s with one decimal,
// ms with three (the microsecond, as the run summary), per cent and blocks
// per call with three significant digits.
func valueFormat(unit string) func(float64) string {
	switch unit {
	case "tx/s":
		return format.Rate
	case "ms":
		return format.MsFixed
	}
	return format.Sig3
}

// sideCell is a side's "median (min–max)" over its runs; without values
// it is missing, with the reason.
func sideCell(unit string, s stats.Summary, side string) Cell {
	if s.N == 0 {
		return Absent("no run of " + side + " has this metric")
	}
	return Text(format.Spread(s.Sorted, valueFormat(unit)))
}

// ratioText is "1.38 [1.21, 1.57]"; when the ratio is undefined (A's median
// is 0) the difference of medians "Δ +0.52 [+0.31, +0.70]" in the unit;
// format.Missing when neither can be computed.
func ratioText(unit string, v *stats.VerdictResult) string {
	switch {
	case v.Ratio.OK:
		return fmt.Sprintf("%s [%s, %s]", ratioNum(v.Ratio.Point), ratioNum(v.Ratio.Lo), ratioNum(v.Ratio.Hi))
	case v.Ratio.Point > 0:
		// No interval at the level the metric is held to (Holm's, with few
		// runs): the estimate alone.
		return ratioNum(v.Ratio.Point) + " [" + format.Missing + "]"
	case v.Diff.OK:
		f := valueFormat(unit)
		d := func(x float64) string {
			if x >= 0 {
				return "+" + f(x)
			}
			return f(x)
		}
		return fmt.Sprintf("Δ %s [%s, %s]", d(v.Diff.Point), d(v.Diff.Lo), d(v.Diff.Hi))
	}
	return format.Missing
}

// ratioNum is a ratio of medians with two decimals, as in the verdict
// lines ("1.38"), and with three significant digits outside [0.1, 100).
func ratioNum(r float64) string {
	if r >= 0.1 && r < 100 {
		return strconv.FormatFloat(r, 'f', 2, 64)
	}
	return strconv.FormatFloat(r, 'g', 3, 64)
}

// pText is Mann-Whitney's two-sided p with two significant digits,
// "<0.001" below 0.001, format.Missing when the test was not made.
func pText(v *stats.VerdictResult) string {
	if !v.MW.OK {
		return format.Missing
	}
	if v.P < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(v.P, 'g', 2, 64)
}

// shortVerdict is the table's last column: "B slower", "equivalent",
// "inconclusive".
func shortVerdict(v *stats.VerdictResult) string {
	switch v.Outcome {
	case stats.OutcomeDiffers:
		head, _, _ := strings.Cut(strings.TrimPrefix(v.Text, "exploratory: "), ":")
		return head
	case stats.OutcomeEquivalent:
		return "equivalent"
	case stats.OutcomeInconclusive:
		return "inconclusive"
	}
	return format.Missing
}

// primaryMark is "* " before the primary metric's name in the table.
func primaryMark(rep *compare.Report, m *compare.Metric) string {
	if m.Verdict.Role == stats.RolePrimary && m.Metric == rep.Primary {
		return "* "
	}
	return ""
}

// CompareEnvironment is what differs between the sides' run.json besides
// the variant (compare.Environment): a table of the items that differ with
// each side's value, or one line saying that the environments matched on
// the items compared; nil when the comparison has no environment (a record
// written before it was compared).
func CompareEnvironment(rep *compare.Report) Block {
	env := rep.Environment
	if env == nil {
		return nil
	}
	left := ""
	if env.VariantKnown && len(env.VariantSettings) > 0 {
		left = fmt.Sprintf("; the variant's %s %s left out", format.Plural(len(env.VariantSettings), "setting", "settings"),
			strings.Join(env.VariantSettings, ", "))
	}
	items := format.Plural(env.Compared, "item", "items")
	switch {
	case env.Compared == 0:
		return &Lines{Lines: []string{"environments not compared: no item of run.json (server, settings, sizes, host, pgtrial) is recorded on both sides"}}
	case len(env.Differs) == 0:
		return &Lines{Lines: []string{fmt.Sprintf("the environments matched on %d recorded %s of run.json (server version and settings, data sizes, host, pgtrial version%s)",
			env.Compared, items, left)}}
	}
	title := "differs besides the variant (from run.json" + left + "):"
	if !env.VariantKnown {
		title = "differs besides the variant (from run.json; the variant itself is listed too if it is one of these):"
	}
	t := &Table{Title: title, Head: []string{"item", rep.NameA, rep.NameB}}
	for _, e := range env.Differs {
		t.AddRow(e.Name, format.OneLine(e.A, 70), format.OneLine(e.B, 70))
	}
	t.Notes = []string{fmt.Sprintf("the other %d of %d recorded %s matched (a size differs beyond %.0f %% and %s, the sides' ranges apart)",
		env.Compared-len(env.Differs), env.Compared, items, 100*compare.SizeTolerance, format.Bytes(compare.SizeFloor))}
	return t
}
