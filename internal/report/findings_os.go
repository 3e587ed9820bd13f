package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// paretoQueryRunes is how much of a statement's text the Pareto lists show.
const paretoQueryRunes = 70

// alarmsBlocks are a run's OS alarms: a table of every condition with its
// threshold, the share of the measured intervals in which it held and the
// worst value; 0 % is "no alarm", said.
func alarmsBlocks(a *results.Alarms) []Block {
	if a == nil {
		return nil
	}
	t := &Table{Title: fmt.Sprintf("OS alarms (share of the %d measured intervals of %s in which each held)", a.Intervals, format.Seconds(a.IntervalS)),
		Head: []string{"alarm", "condition", "threshold", "share of time", "worst"}}
	var quiet []string // alarms that held in no interval: one line
	for _, it := range a.Items {
		if it.Missing == "" && it.Held == 0 {
			quiet = append(quiet, it.Name+" ("+it.Condition+"; worst "+alarmWorst(it)+")")
			continue
		}
		if it.Missing != "" {
			t.Rows = append(t.Rows, []Cell{Text(it.Name), Text(it.Condition), Absent(it.Missing), Absent(it.Missing), Absent(it.Missing)})
			continue
		}
		share := format.Pct(it.Share) + " (" + strconv.Itoa(it.Held) + "/" + strconv.Itoa(it.Measured) + ")"
		if it.Held == 0 {
			share = "0 % (no alarm)"
		}
		t.Rows = append(t.Rows, []Cell{Text(it.Name), Text(it.Condition), Text(alarmValue(it.Threshold, it.Unit)), Text(share), Text(alarmWorst(it))})
	}
	t.Notes = []string{
		"each interval's own figure (os.csv), not a rolling median; free memory is MemAvailable (vmstat's free stays low by design: the page cache); thresholds are settings (--explain alarm.wa=20%)",
	}
	if len(quiet) > 0 {
		t.Notes = append([]string{"held in no interval: " + strings.Join(quiet, "; ")}, t.Notes...)
	}
	if len(t.Rows) == 0 {
		return []Block{&Lines{Title: t.Title, Lines: append([]string{"no alarm"}, t.Notes...)}}
	}
	return []Block{t}
}

// alarmWorst is "21 % at 6 s (vda)": an alarm's worst value and when.
func alarmWorst(it results.Alarm) string {
	worst := alarmValue(it.Worst, it.Unit) + " at " + format.Seconds(it.WorstAt)
	if it.WorstOf != "" {
		worst += " (" + it.WorstOf + ")"
	}
	return worst
}

// alarmValue is v in an alarm's unit.
func alarmValue(v float64, unit string) string {
	switch unit {
	case "share":
		return format.Pct(v)
	case "kB/s":
		return format.Sig3(v) + " kB/s"
	}
	return format.Sig3(v)
}

// associationsBlocks are a run's associations of waits with speed and
// latency, ranked.
func associationsBlocks(a *results.Associations) []Block {
	if a == nil {
		return nil
	}
	t := &Table{Title: fmt.Sprintf("associations of waits with slowdown across %d intervals of %s (associations, not causes)", a.Intervals, format.Seconds(a.IntervalS)),
		Head: []string{"rank", "wait", "share", "ρ slowdown", "p", "Holm p", "n_eff", "ρ tps", "ρ p99", "score", ""}}
	for i, w := range a.Waits {
		t.Rows = append(t.Rows, []Cell{Text(strconv.Itoa(i + 1)), Text(waitLabel(w.Type, w.Event)), Text(format.Share(w.Share)),
			corrCell(w.Slow), pCell(w.Slow), Text(pValue(w.Holm)), Text(format.Sig3(w.Slow.NEff)),
			corrCell(w.Speed), corrCell(w.Latency), Text(format.Sig3(w.Score)),
			Text(assocLabel(w.Slow.OK, w.Slow.R, w.Holm))})
	}
	if len(a.Waits) == 0 {
		// Nothing to rank: one line instead of an empty table.
		why := fmt.Sprintf("no wait has %d samples or more in at least 3 intervals", a.MinSamples)
		if a.Left > 0 {
			why += fmt.Sprintf(" (%d left out)", a.Left)
		}
		return []Block{&Lines{Title: t.Title, Lines: []string{why + ": none ranked"}}}
	}
	t.Notes = []string{
		"slowdown: " + a.Slowdown + "; " + a.Method + " (waits.csv class " + a.Class + ")",
		a.Formula,
		fmt.Sprintf("\"association\": Holm p < 0.05 and ρ > 0 (\"inverse\": ρ < 0), else inconclusive; n = %d intervals, n_eff the effective n after autocorrelation", a.Intervals),
	}
	if a.Left > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d %s left out: fewer than %d samples or seen in fewer than 3 intervals", a.Left, format.Plural(a.Left, "wait", "waits"), a.MinSamples))
	}
	return []Block{t}
}

// waitLabel is "Type" or "Type:Event".
func waitLabel(typ, event string) string {
	if event == "" {
		return typ + " (type)"
	}
	if event == typ {
		return typ
	}
	return typ + ":" + event
}

// corrCell is a correlation's r, or why it has none.
func corrCell(c stats.CorrResult) Cell {
	if !c.OK {
		return Absent(cmp.Or(c.Reason, "no correlation"))
	}
	return Text(signed(c.R))
}

func pCell(c stats.CorrResult) Cell {
	if !c.OK {
		return Absent(cmp.Or(c.Reason, "no correlation"))
	}
	return Text(pValue(c.P))
}

// signed is r with two decimals and its sign.
func signed(r float64) string { return strconv.FormatFloat(r, 'f', 2, 64) }

// pValue is a p-value with two significant digits, "< 0.001" below.
func pValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return format.Missing
	case p < 0.001:
		return "< 0.001"
	case p < 0.01:
		return strconv.FormatFloat(p, 'f', 3, 64)
	}
	return strconv.FormatFloat(p, 'f', 2, 64)
}

// assocLabel is "association" when the slowdown association survives
// Holm at 5 % and is positive, "inverse association" when it survives and
// is negative (the wait's share falls as things slow down), else
// "inconclusive": the intervals or runs cannot tell it from none.
func assocLabel(ok bool, r, holm float64) string {
	switch {
	case !ok || holm >= 0.05:
		return "inconclusive"
	case r > 0:
		return "association"
	}
	return "inverse association"
}

// paretoBlocks are a run's Pareto of wait events and statements.
func paretoBlocks(p *results.Pareto) []Block { return paretoBlocksOf(p, "") }

// variantParetoBlocks are each variant's Pareto over its runs.
func variantParetoBlocks(ps []*explain.VariantPareto) []Block {
	var out []Block
	for _, vp := range ps {
		out = append(out, paretoBlocksOf(vp.Pareto, fmt.Sprintf("%s, its %d %s together", vp.Variant, vp.Runs, format.Plural(vp.Runs, "run", "runs")))...)
	}
	return out
}

// paretoBlocksOf are the Pareto's tables, their titles naming whose it is
// ("" one run's).
func paretoBlocksOf(p *results.Pareto, whose string) []Block {
	if p == nil {
		return nil
	}
	var out []Block
	cut := format.Pct(p.Share)
	prefix := "Pareto: "
	if whose != "" {
		prefix = "Pareto of " + whose + ": "
	}
	if p.WaitsMissing != "" {
		out = append(out, &Notes{Prefix: "Pareto of waits: ", Lines: []string{"missing (" + redact(p.WaitsMissing) + ")"}})
	} else {
		t := &Table{Title: fmt.Sprintf(prefix+"the wait events that make %s of active samples (%d of %d)", cut, len(p.Waits), p.WaitsOf),
			Head: []string{"wait", "samples", "share", "cumulative"}}
		for _, it := range p.Waits {
			t.AddRow(it.Name, format.Count(int64(it.Value)), format.Share(it.Share), format.Share(it.Cumulative))
		}
		out = append(out, t)
	}
	if p.StmtsMissing != "" {
		out = append(out, &Notes{Prefix: "Pareto of statements: ", Lines: []string{"missing (" + redact(p.StmtsMissing) + ")"}})
		return out
	}
	byTime := &Table{Title: fmt.Sprintf(prefix+"the statements that make %s of execution time (%d of %d; total %s ms)", cut, len(p.ByTime), p.StatementsOf, format.Sig3(p.TimeTotal)),
		Head: []string{"total ms", "share", "cumulative", "query"}}
	for _, it := range p.ByTime {
		byTime.AddRow(format.Sig3(it.Value), format.Share(it.Share), format.Share(it.Cumulative), format.OneLine(results.RedactSQL(it.Name), paretoQueryRunes))
	}
	byBlocks := &Table{Title: fmt.Sprintf(prefix+"the statements that make %s of shared blocks hit + read (%d of %d; total %s)", cut, len(p.ByBlocks), p.StatementsOf, format.Count(int64(p.BlocksTotal))),
		Head: []string{"blocks", "share", "cumulative", "query"}}
	for _, it := range p.ByBlocks {
		byBlocks.AddRow(format.Count(int64(it.Value)), format.Share(it.Share), format.Share(it.Cumulative), format.OneLine(results.RedactSQL(it.Name), paretoQueryRunes))
	}
	if len(p.ByBlocks) == 0 {
		byBlocks.Rows = append(byBlocks.Rows, []Cell{Absent("no shared blocks in statements.csv"), Text(""), Text(""), Text("")})
	}
	return append(out, byTime, byBlocks)
}

// levelAssociationsBlocks are an experiment's associations across runs
// and levels: the ranking, then every correlation.
func levelAssociationsBlocks(a *explain.LevelAssociations) []Block {
	if a == nil {
		return nil
	}
	if len(a.Waits) == 0 {
		return []Block{&Notes{Prefix: "associations of waits across runs: ", Lines: []string{
			fmt.Sprintf("none computed: no wait has %d samples over the %d runs (%d left out)", a.MinSamples, a.Runs, a.Left)}}}
	}
	what := fmt.Sprintf("%d runs, %d %s, %d %s", a.Runs, a.Levels, format.Plural(a.Levels, "level", "levels"), a.Variants, format.Plural(a.Variants, "variant", "variants"))
	rank := &Table{Title: "associations of waits with slowdown across runs, the level removed (" + what + "; associations, not causes)",
		Head: []string{"rank", "wait", "share", "partial r", "p", "df", "Holm p", "score", ""}}
	all := &Table{Title: "associations of waits across runs and within levels (" + a.Speed + " and p99; associations, not causes)",
		Head: []string{"wait", "r " + a.Speed, "partial", "within r tps", "r p99", "partial", "within r p99"}}
	for i, w := range a.Waits {
		rank.Rows = append(rank.Rows, []Cell{Text(strconv.Itoa(i + 1)), Text(waitLabel(w.Type, w.Event)), Text(format.Share(w.Share)),
			partialCell(w.Slow), partialP(w.Slow), Text(format.Sig3(w.Slow.DF)), Text(pValue(w.Holm)), Text(format.Sig3(w.Score)),
			Text(assocLabel(w.Slow.OK, w.Slow.R, w.Holm))})
		all.Rows = append(all.Rows, []Cell{Text(waitLabel(w.Type, w.Event)),
			corrPCell(w.Speed), partialRP(w.SpeedPartial), withinCell(w.SpeedWithin),
			corrPCell(w.Latency), partialRP(w.LatencyPartial), withinCell(w.LatencyWithin)})
	}
	rank.Notes = []string{"slowdown: " + a.Slowdown + "; " + a.Formula,
		"\"association\": Holm p < 0.05 and r > 0 (\"inverse\": r < 0), else inconclusive; runs are the unit (df = runs − 2·variants − 1)"}
	if a.Left > 0 {
		rank.Notes = append(rank.Notes, fmt.Sprintf("%d %s left out: fewer than %d samples over the runs", a.Left, format.Plural(a.Left, "wait", "waits"), a.MinSamples))
	}
	all.Notes = []string{a.Method, "cells: r (p); within: r (p, n_eff). On a ramp the plain r across runs holds the level's own effect on both: read the partial one"}
	return []Block{rank, all}
}

func partialCell(p explain.PartialCorr) Cell {
	if !p.OK {
		return Absent(cmp.Or(p.Reason, "no correlation"))
	}
	return Text(signed(p.R))
}

func partialP(p explain.PartialCorr) Cell {
	if !p.OK {
		return Absent(cmp.Or(p.Reason, "no correlation"))
	}
	return Text(pValue(p.P))
}

func partialRP(p explain.PartialCorr) Cell {
	if !p.OK {
		return Absent(cmp.Or(p.Reason, "no correlation"))
	}
	return Text(signed(p.R) + " (" + pValue(p.P) + ")")
}

func corrPCell(c stats.CorrResult) Cell {
	if !c.OK {
		return Absent(cmp.Or(c.Reason, "no correlation"))
	}
	return Text(signed(c.R) + " (" + pValue(c.P) + ")")
}

func withinCell(c stats.CorrResult) Cell {
	if !c.OK {
		return Absent(cmp.Or(c.Reason, "no correlation"))
	}
	return Text(signed(c.R) + " (" + pValue(c.P) + ", " + format.Sig3(c.NEff) + ")")
}

// runAlarmsBlocks are an experiment's OS alarms per variant and level:
// each alarm's median share of time over the runs, with the lowest and
// highest.
func runAlarmsBlocks(a []*explain.RunAlarms) []Block {
	if len(a) == 0 {
		return nil
	}
	// Levels are a ramp's or a search's; an experiment at one load has
	// none (0), and no level column.
	leveled := slices.ContainsFunc(a, func(ra *explain.RunAlarms) bool { return ra.Level != 0 })
	head, title := []string{"variant", "runs"}, "OS alarms per variant (share of time: median (min–max) over the runs)"
	if leveled {
		head, title = []string{"variant", "level", "runs"}, "OS alarms per variant and level (share of time: median (min–max) over the runs)"
	}
	for _, it := range a[0].Items {
		head = append(head, it.Name)
	}
	t := &Table{Title: title, Head: head}
	conds := make([]string, 0, len(a[0].Items))
	for _, it := range a[0].Items {
		conds = append(conds, it.Name+": "+it.Condition)
	}
	for _, ra := range a {
		row := []Cell{Text(ra.Variant), Text(strconv.Itoa(ra.Runs))}
		if leveled {
			row = []Cell{Text(ra.Variant), Text(format.Sig3(ra.Level)), Text(strconv.Itoa(ra.Runs))}
		}
		for _, it := range ra.Items {
			if it.Missing != "" || it.Runs == 0 {
				row = append(row, Absent(cmp.Or(it.Missing, "not measured")))
				continue
			}
			cell := format.Pct(it.Median)
			if it.Runs > 1 && it.Max > it.Min {
				cell += " (" + format.Pct(it.Min) + "–" + format.Pct(it.Max) + ")"
			}
			row = append(row, Text(cell))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{strings.Join(conds, "; ")}
	return []Block{t}
}
