package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/report/chart"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// rampFindingsTitle heads each variant's table of the ramp's findings.
const rampFindingsTitle = "ramp findings: "

// rampOSColumns are the vmstat columns of the per-level tables.
var rampOSColumns = []string{"r", "b", "us", "sy", "wa", "free"}

// rampFindingsBlocks are a ramp's levels (one table per variant), the
// trends over the levels and the knee.
func rampFindingsBlocks(r *explain.Ramp) []Block {
	if r == nil || len(r.Cells) == 0 {
		return nil
	}
	unit := r.By
	if unit == "rate" {
		unit = "tx/s"
	}
	var out []Block
	for _, v := range rampFindingVariants(r) {
		out = append(out, rampVariantTable(r, v, unit))
		if l := rampTopStatements(r, v); l != nil {
			out = append(out, l)
		}
	}
	if t := rampTrendsTable(r, unit); t != nil {
		out = append(out, t)
	}
	if len(r.Knees) > 0 {
		k := &Lines{Title: "knee: " + explain.KneeRule + ":", Indent: 2}
		for _, kn := range r.Knees {
			k.Lines = append(k.Lines, kn.Text)
		}
		out = append(out, k)
	}
	return out
}

// rampFindingVariants are the ramp's variants in the cells' order.
func rampFindingVariants(r *explain.Ramp) []string {
	var out []string
	for _, c := range r.Cells {
		if !slices.Contains(out, c.Variant) {
			out = append(out, c.Variant)
		}
	}
	return out
}

// rampCells are variant v's cells, levels increasing.
func rampCells(r *explain.Ramp, v string) []*explain.RampCell {
	var out []*explain.RampCell
	for _, c := range r.Cells {
		if c.Variant == v {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Level < out[j].Level })
	return out
}

// statCell is a figure as "median (min–max)" (min–max left out when
// equal), or missing with its reason.
func statCell(s *explain.Stat, f func(float64) string, spread bool) Cell {
	if s == nil {
		return Absent("not measured in these runs")
	}
	if s.N == 0 {
		return Absent(s.Missing)
	}
	txt := f(s.Median)
	if spread && s.N > 1 && s.Min != s.Max {
		txt += " (" + f(s.Min) + "–" + f(s.Max) + ")"
	}
	if s.Of > s.N && s.Missing != "" {
		// Some runs lack it: say how many have it, and why the others not.
		return Cell{Text: fmt.Sprintf("%s [%d of %d runs]", txt, s.N, s.Of), Why: fmt.Sprintf("%d of %d runs: %s", s.Of-s.N, s.Of, s.Missing)}
	}
	return Text(txt)
}

// rampVariantTable is one variant's levels: speed, tps, p99, the top wait
// types, vmstat and the busiest disk.
func rampVariantTable(r *explain.Ramp, v, unit string) *Table {
	t := &Table{
		Title: fmt.Sprintf("%s%s per level (median (min–max) over the repeats; waits: share of active time; vmstat: means over the measured window):", rampFindingsTitle, v),
		Head:  []string{unit, "runs", "calls/s", "rows/s", "tps", "p99 ms", "top waits"},
	}
	for _, c := range rampOSColumns {
		h := c
		switch c {
		case "us", "sy", "wa":
			h += " %"
		case "free":
			h += " MiB"
		}
		t.Head = append(t.Head, h)
	}
	t.Head = append(t.Head, "disk util %", "await ms")
	mib := func(kb float64) string { return format.Sig3(kb / 1024) }
	for _, c := range rampCells(r, v) {
		row := []Cell{Text(format.Sig3(c.Level)), Text(strconv.Itoa(len(c.Runs))),
			statCell(c.Figure(explain.FigCalls), format.Sig3, true), statCell(c.Figure(explain.FigRows), format.Sig3, false),
			statCell(c.Figure(explain.FigTPS), format.Sig3, true), statCell(c.Figure(explain.FigP99), format.Ms, true),
			topWaitsCell(c)}
		for _, name := range rampOSColumns {
			f := format.Sig3
			if name == "free" {
				f = mib
			}
			row = append(row, statCell(c.Figure(name), f, false))
		}
		row = append(row, statCell(c.Figure(explain.FigDiskUtil), format.Sig3, false), statCell(c.Figure(explain.FigDiskAwait), format.Ms, false))
		t.Rows = append(t.Rows, row)
		note := fmt.Sprintf("%s %s: runs %s", format.Sig3(c.Level), unit, strings.Join(c.Runs, ", "))
		if ev := topEvents(c, 3); ev != "" {
			note += "; top wait events " + ev
		}
		t.Notes = append(t.Notes, note)
	}
	return t
}

// topWaitsCell is the cell's three largest wait types with their shares.
func topWaitsCell(c *explain.RampCell) Cell {
	var parts []string
	var missing string
	for i := range c.Figures {
		s := &c.Figures[i]
		if !strings.HasPrefix(s.Name, "wait ") || !strings.HasSuffix(s.Name, " %") {
			continue
		}
		if s.N == 0 {
			missing = s.Missing
			continue
		}
		if len(parts) < 3 && s.Median > 0 {
			parts = append(parts, fmt.Sprintf("%s %s %%", strings.TrimSuffix(strings.TrimPrefix(s.Name, "wait "), " %"), format.Sig3(s.Median)))
		}
	}
	if len(parts) == 0 {
		if missing == "" {
			missing = "no wait samples"
		}
		return Absent(missing)
	}
	return Text(strings.Join(parts, ", "))
}

// topEvents is the cell's n largest wait events by share of active time
// with their average active sessions: "IO:WALSync 50.6 % (0.42
// sessions), …"; "" when it has none.
func topEvents(c *explain.RampCell, n int) string {
	type ev struct {
		name            string
		share, sessions float64
	}
	var evs []ev
	for i := range c.Figures {
		s := &c.Figures[i]
		name, ok := strings.CutPrefix(s.Name, "event ")
		if !ok || s.N == 0 || s.Median <= 0 {
			continue
		}
		if e, ok := strings.CutSuffix(name, " %"); ok {
			evs = append(evs, ev{name: e, share: s.Median, sessions: math.NaN()})
		}
	}
	for i := range evs {
		if f := c.Figure("event " + evs[i].name + " sessions"); f != nil && f.N > 0 {
			evs[i].sessions = f.Median
		}
	}
	slices.SortStableFunc(evs, func(a, b ev) int { return cmp.Compare(b.share, a.share) })
	var parts []string
	for _, e := range evs[:min(n, len(evs))] {
		p := e.name + " " + format.Sig3(e.share) + " %"
		if !math.IsNaN(e.sessions) {
			p += " (" + format.Sig3(e.sessions) + " sessions)"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// rampTopStatements are a variant's top statements at its highest level,
// by time and by shared blocks.
func rampTopStatements(r *explain.Ramp, v string) *Lines {
	cells := rampCells(r, v)
	if len(cells) == 0 {
		return nil
	}
	c := cells[len(cells)-1]
	if len(c.TopByTime) == 0 {
		return nil
	}
	l := &Lines{Title: fmt.Sprintf("%s at %s: top statements by time and by shared blocks (over its repeats):", v, format.Sig3(c.Level)), Indent: 2}
	for _, s := range c.TopByTime {
		l.Lines = append(l.Lines, fmt.Sprintf("by time: %s of the time, %s calls/s, %s ms/call, %s blocks/call: %s",
			format.Pct(s.Share), format.Sig3(s.CallsPerS), format.Ms(s.MeanMs), format.Sig3(s.BlocksPerCall), format.OneLine(s.Query, 80)))
	}
	for _, s := range c.TopByBlocks {
		l.Lines = append(l.Lines, fmt.Sprintf("by blocks: %s blocks/s, %s blocks/call, %s calls/s: %s",
			format.Sig3(s.BlocksPerS), format.Sig3(s.BlocksPerCall), format.Sig3(s.CallsPerS), format.OneLine(s.Query, 80)))
	}
	return l
}

// trendShown says whether a trend is in the summary's table (the rest are
// in experiment.json).
func trendShown(name string) bool {
	switch name {
	case explain.FigCalls, explain.FigRows, explain.FigTPS, explain.FigP50, explain.FigP99, explain.FigDiskUtil,
		"r", "b", "us", "sy", "wa", "free":
		return true
	}
	return strings.HasPrefix(name, "wait ") && strings.HasSuffix(name, " %")
}

// rampTrendsTable is each variant's trends against the level.
func rampTrendsTable(r *explain.Ramp, unit string) *Table {
	if len(r.Trends) == 0 {
		return nil
	}
	t := &Table{
		Title: fmt.Sprintf("trends over the ramp (least squares over the runs, x = %s; slope per %s with its 95 %% interval):", unit, strings.TrimSuffix(unit, "s")),
		Head:  []string{"variant", "figure", "slope", "95 % interval", "R²", "p", "runs"},
	}
	for _, tr := range r.Trends {
		if !trendShown(tr.Figure) {
			continue
		}
		if !tr.OK {
			t.Rows = append(t.Rows, []Cell{Text(tr.Variant), Text(tr.Figure), Absent(tr.Reason), Absent(tr.Reason), Absent(tr.Reason), Absent(tr.Reason), Text(strconv.Itoa(tr.N))})
			continue
		}
		t.AddRow(tr.Variant, figureLabel(tr.Figure, tr.Unit), signedSig3(tr.Slope), "["+signedSig3(tr.Lo)+", "+signedSig3(tr.Hi)+"]",
			strconv.FormatFloat(tr.R2, 'f', 2, 64), trendP(tr.P), strconv.Itoa(tr.N))
	}
	t.Notes = append(t.Notes, "a trend is an association of the figure with the load across runs, not a cause")
	return t
}

func figureLabel(name, unit string) string {
	if unit == "" || strings.HasSuffix(name, unit) || strings.HasSuffix(name, " %") {
		return name
	}
	return name + " (" + unit + ")"
}

func signedSig3(v float64) string {
	s := format.Sig3(v)
	if v > 0 {
		s = "+" + s
	}
	return s
}

func trendP(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// levelFigureShown are the figures of a level's comparison in the summary
// (the rest are in experiment.json).
func levelFigureShown(c *explain.Change, fixed bool) bool {
	switch c.Figure {
	case explain.FigCalls, "us", "wa", "b", explain.FigDiskUtil:
		return true
	case explain.FigRows, "r", "sy":
		return fixed
	}
	if fixed {
		return false // compare's verdicts are shown above, with the comparison
	}
	// The wait types that hold at least 5 % of active time on a side.
	return c.Figure == "tps" || c.Figure == "p99" || (strings.HasSuffix(c.Figure, " wait %") && max(c.A, c.B) >= 5)
}

// variantChangeBlocks are each variant against the first: over the ramp,
// the statements and wait events that changed, and per level.
func variantChangeBlocks(vs []*explain.VariantChange) []Block {
	var out []Block
	for _, vc := range vs {
		if vc == nil {
			continue
		}
		if len(vc.OverRamp) > 0 {
			l := &Lines{Title: fmt.Sprintf("%s against %s over the ramp (runs paired by level and repeat):", vc.Variant, vc.Baseline), Indent: 2}
			for _, c := range vc.OverRamp {
				if c.Role == stats.RolePrimary || c.Outcome != stats.OutcomeInconclusive || overRampShown(c.Figure) {
					l.Lines = append(l.Lines, c.Text)
				}
			}
			out = append(out, l)
		}
		if len(vc.Statements) > 0 {
			l := &Lines{Title: fmt.Sprintf("%s against %s: shared blocks per call of the top statements (hit + read):", vc.Variant, vc.Baseline), Indent: 2}
			for _, c := range vc.Statements {
				l.Lines = append(l.Lines, fmt.Sprintf("%s → %s blocks/call: %s", format.Sig3(c.A), format.Sig3(c.B), c.Text))
			}
			out = append(out, l)
		}
		if len(vc.WaitEvents) > 0 {
			l := &Lines{Title: fmt.Sprintf("%s against %s: wait events whose share of active time moved by a point or more (the verdict says whether the runs show a change):", vc.Variant, vc.Baseline), Indent: 2}
			for _, c := range vc.WaitEvents {
				l.Lines = append(l.Lines, fmt.Sprintf("%s %% → %s %%: %s", format.Sig3(c.A), format.Sig3(c.B), c.Text))
			}
			out = append(out, l)
		}
		if t := levelChangesTable(vc); t != nil {
			out = append(out, t)
		}
		if len(vc.Notes) > 0 {
			out = append(out, &Notes{Prefix: "note: ", Lines: vc.Notes})
		}
	}
	return out
}

func overRampShown(name string) bool {
	switch name {
	case explain.FigRows, explain.FigTPS, explain.FigP50, explain.FigP99, "us", "wa", "b", explain.FigDiskUtil:
		return true
	}
	return strings.HasSuffix(name, " wait %") || (strings.HasPrefix(name, "wait ") && strings.HasSuffix(name, " %"))
}

// levelChangesTable is the variant's change at each level, figure by
// figure: the medians, the change with its interval, the verdict.
func levelChangesTable(vc *explain.VariantChange) *Table {
	fixed := len(vc.Levels) == 1 && vc.Levels[0].Level == 0 && len(vc.OverRamp) == 0
	t := &Table{
		Title: fmt.Sprintf("%s against %s per level (medians; the change is the Hodges–Lehmann estimate of the ratio, or of the difference when a value is 0, with its interval; Mann-Whitney over the level's runs; the rest in experiment.json):", vc.Variant, vc.Baseline),
		Head:  []string{"level", "figure", vc.Baseline, vc.Variant, "change (HL)", "interval", "verdict"},
	}
	if fixed {
		t.Title = fmt.Sprintf("%s against %s, the figures the comparison above has not (Mann-Whitney; exploratory, Holm's correction over them):", vc.Variant, vc.Baseline)
	}
	for _, lc := range vc.Levels {
		for _, c := range lc.Changes {
			if !levelFigureShown(c, fixed) {
				continue
			}
			if c.Outcome == explain.OutcomeMissing {
				why := Absent(c.Text)
				t.Rows = append(t.Rows, []Cell{Text(format.Sig3(lc.Level)), Text(c.Figure), why, why, why, why, Text(c.Outcome)})
				continue
			}
			change, iv := changeCells(c)
			outcome := c.Outcome
			if c.NA+c.NB > 0 && c.NA < 4 && c.NB < 4 && c.Outcome == stats.OutcomeInconclusive {
				outcome += fmt.Sprintf(" (%d vs %d runs cannot decide)", c.NA, c.NB)
			}
			t.Rows = append(t.Rows, []Cell{Text(format.Sig3(lc.Level)), Text(c.Figure), Text(format.Sig3(c.A)), Text(format.Sig3(c.B)), change, iv, Text(outcome)})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// changeCells are a change's point and interval as text.
func changeCells(c *explain.Change) (Cell, Cell) {
	f := func(v float64) string {
		if c.Ratio {
			return format.SignedPct(v - 1)
		}
		return signedSig3(v)
	}
	if math.IsNaN(c.Point) {
		return Absent("no estimate"), Absent("no estimate")
	}
	point := Text(f(c.Point))
	if !c.IntervalOK {
		return point, Absent("no interval with these runs")
	}
	return point, Text("[" + f(c.Lo) + ", " + f(c.Hi) + "]")
}

// rampFindingsFigures are the ramp findings' charts: operational speed
// (calls/s, and rows/s dashed) and p99 per level, one line per variant,
// with the repeats' min–max as dotted lines; the CPU and the disk per
// level.
func rampFindingsFigures(rec *experiment.Record, ids *chartIDs) []anchored {
	if rec.Findings == nil || rec.Findings.Ramp == nil || len(rec.Findings.Ramp.Cells) == 0 {
		return nil
	}
	r := rec.Findings.Ramp
	x := chart.Axis{Label: "clients"}
	if r.By == "rate" {
		x = chart.Axis{Label: "target rate", Unit: "tx/s"}
	}
	speed := &chart.Chart{ID: ids.id("findings", "speed"), Title: "operational speed per level (pg_stat_statements calls/s; rows/s dashed)", Kind: chart.XY, X: x,
		Y: chart.Axis{Label: "calls/s", Unit: "/s"}}
	p99 := &chart.Chart{ID: ids.id("findings", "p99"), Title: "response p99 per level (median; min and max of the repeats as points)", Kind: chart.XY, X: x,
		Y: chart.Axis{Label: "p99", Unit: "ms"}}
	cpu := &chart.Chart{ID: ids.id("findings", "os"), Title: "vmstat us + sy and wa per level, busiest disk util (median over the repeats)", Kind: chart.XY, X: x,
		Y: chart.Axis{Label: "share", Unit: "%", Min: bound(0), Max: bound(100)}}
	for i, v := range rampFindingVariants(r) {
		tone := i + 1
		calls, rows := chart.Series{Name: v + " calls/s", Tone: tone}, chart.Series{Name: v + " rows/s", Dash: true, Tone: tone}
		pm, pr := chart.Series{Name: v, Tone: tone}, chart.Series{Name: v + " min/max", Points: true, Tone: tone}
		busy, wa, util := chart.Series{Name: v + " us+sy", Tone: tone}, chart.Series{Name: v + " wa", Dash: true, Tone: tone},
			chart.Series{Name: v + " disk util", Points: true, Tone: tone}
		for _, c := range rampCells(r, v) {
			calls.X, calls.Y = append(calls.X, c.Level), append(calls.Y, median(c.Figure(explain.FigCalls)))
			rows.X, rows.Y = append(rows.X, c.Level), append(rows.Y, median(c.Figure(explain.FigRows)))
			pm.X, pm.Y = append(pm.X, c.Level), append(pm.Y, median(c.Figure(explain.FigP99)))
			if s := c.Figure(explain.FigP99); s != nil && s.N > 1 {
				pr.X, pr.Y = append(pr.X, c.Level, c.Level), append(pr.Y, s.Min, s.Max)
			}
			busy.X, busy.Y = append(busy.X, c.Level), append(busy.Y, median(c.Figure("us"))+median(c.Figure("sy")))
			wa.X, wa.Y = append(wa.X, c.Level), append(wa.Y, median(c.Figure("wa")))
			util.X, util.Y = append(util.X, c.Level), append(util.Y, median(c.Figure(explain.FigDiskUtil)))
		}
		speed.Series = append(speed.Series, calls, rows)
		p99.Series = append(p99.Series, pm)
		if len(pr.X) > 0 {
			p99.Series = append(p99.Series, pr)
		}
		cpu.Series = append(cpu.Series, busy, wa, util)
	}
	f := &Figure{Title: "ramp findings: speed, p99 and the machine per level, one colour per variant:", Charts: []*chart.Chart{speed, p99, cpu}}
	for _, k := range r.Knees {
		if k.Found {
			p99.Markers = append(p99.Markers, chart.Marker{X: k.Level, Label: "knee of " + k.Variant, Kind: chart.MarkOther})
		}
	}
	return []anchored{{at: titlePrefix(rampFindingsTitle), blocks: []Block{f}}}
}

// median is the stat's median, NaN (a gap) when missing.
func median(s *explain.Stat) float64 {
	if s == nil || s.N == 0 {
		return math.NaN()
	}
	return s.Median
}
