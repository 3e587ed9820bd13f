package report

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/capacity"
	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/report/chart"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// ExperimentReport is the report of an experiment directory dir whose
// experiment.json is rec: per variant and metric the runs as dots with
// their median and range, each comparison as a forest plot (primary metric
// first, the verdict in words), a ramp's tps, p99 and waits per level for
// each variant, a capacity search's p99 against rate with the SLO, the
// probes and the bracket, the stall comparison (closed vs open) as two
// spectra, the checklist, and links to each run's own report
// (runs/NAME/report.html). The demo's experiment gives the demo's report
// (the three-level table and chart, the stall comparison).
//
// It is the text summary's Doc (Experiment, or Demo for the demo) with the
// figures put after the blocks they draw; a figure whose block is not found
// goes before the last block, so none is lost. A run directory that cannot
// be read (moved, deleted, cut short) is a note in the report, not an error.
func ExperimentReport(dir string, rec *experiment.Record) (*Doc, error) {
	if rec == nil {
		return nil, errors.New("report: no experiment record")
	}
	ids := &chartIDs{}
	var d *Doc
	var after []anchored
	if rec.Model == "demo" {
		d = Demo(rec, dir)
		if f := demoFigure(dir, rec, ids); f != nil {
			after = append(after, anchored{at: titlePrefix(demoLevelsTitle), blocks: []Block{f}})
		}
	} else {
		d = Experiment(rec, dir)
		if rec.Search == nil && len(rec.Ramp) == 0 {
			if f := variantDots(rec, ids); f != nil {
				after = append(after, anchored{at: isVariantTable, blocks: []Block{f}})
			}
		}
		for _, c := range rec.Comparisons {
			if c == nil {
				continue
			}
			if f := forestFigure(c, ids); f != nil {
				after = append(after, anchored{at: titlePrefix(c.NameB + " against " + c.NameA + " ("), blocks: []Block{f}})
			}
		}
		if len(rec.Ramp) > 0 {
			after = append(after, anchored{at: titlePrefix("ramp ("), blocks: rampFigures(rec, ids)})
		}
		if rec.Search != nil {
			if f := searchFigure(rec.Search, ids); f != nil {
				after = append(after, anchored{at: hasLinePrefix("search ended: "), blocks: []Block{f}})
			}
		}
	}
	if stall := stallBlocks(dir, rec, ids); len(stall) > 0 {
		if rec.Model == "demo" {
			after = append(after, anchored{at: titlePrefix("stall ("), blocks: stall})
		} else {
			after = append(after, anchored{at: isChecklist, blocks: stall, before: true})
		}
	}
	after = append(after, experimentFindingsFigures(rec, ids)...)
	if t := runsTable(dir, rec); t != nil {
		after = append(after, anchored{at: isChecklist, blocks: []Block{t}})
	}
	d.Blocks = placeAfter(d.Blocks, after)
	d.Blocks = atTop(d.Blocks, rec)
	return d, nil
}

// CompareReport is the report of `pgtrial compare`: the comparison's table
// and verdicts, the forest plot and per metric the runs of A and B as dots
// (compare.Metric's ValuesA and ValuesB: each run's value, in the order of
// the runs; a record without them gives the sides' sorted values).
func CompareReport(rep *compare.Report) *Doc {
	if rep == nil {
		return &Doc{Title: "compare: no comparison"}
	}
	d := Compare(rep)
	ids := &chartIDs{}
	var figs []Block
	if f := forestFigure(rep, ids); f != nil {
		figs = append(figs, f)
	}
	if f := compareDots(rep, ids); f != nil {
		figs = append(figs, f)
	}
	d.Blocks = placeAfter(d.Blocks, []anchored{{at: titlePrefix("verdicts ("), blocks: figs}})
	return d
}

// anchored is blocks to put right after (or, before set, right before)
// the first block that at matches.
type anchored struct {
	at     func(Block) bool
	blocks []Block
	before bool
}

// placeAfter puts each anchored's blocks after (before) the first block its
// anchor matches, in the order of items when several anchors match one
// block, or before the last block when none matches.
func placeAfter(blocks []Block, items []anchored) []Block {
	following := make([][]Block, len(blocks))
	preceding := make([][]Block, len(blocks))
	var unplaced []Block
	for _, it := range items {
		if len(it.blocks) == 0 {
			continue
		}
		switch i := slices.IndexFunc(blocks, it.at); {
		case i < 0:
			unplaced = append(unplaced, it.blocks...)
		case it.before:
			preceding[i] = append(preceding[i], it.blocks...)
		default:
			following[i] = append(following[i], it.blocks...)
		}
	}
	out := make([]Block, 0, len(blocks)+len(items)+len(unplaced))
	for i, b := range blocks {
		if i == len(blocks)-1 {
			out = append(out, unplaced...)
			unplaced = nil
		}
		out = append(out, preceding[i]...)
		out = append(out, b)
		out = append(out, following[i]...)
	}
	return append(out, unplaced...)
}

// titlePrefix matches a Lines or Table whose title starts with p.
func titlePrefix(p string) func(Block) bool {
	return func(b Block) bool {
		switch b := b.(type) {
		case *Lines:
			return strings.HasPrefix(b.Title, p)
		case *Table:
			return strings.HasPrefix(b.Title, p)
		}
		return false
	}
}

// hasLinePrefix matches Lines with a line that starts with p.
func hasLinePrefix(p string) func(Block) bool {
	return func(b Block) bool {
		l, ok := b.(*Lines)
		return ok && slices.ContainsFunc(l.Lines, func(s string) bool { return strings.HasPrefix(s, p) })
	}
}

// isVariantTable matches the experiment's table of the variants.
func isVariantTable(b Block) bool {
	t, ok := b.(*Table)
	return ok && len(t.Head) > 1 && t.Head[0] == "variant" && t.Head[1] == "runs"
}

// isChecklist matches the checklist.
func isChecklist(b Block) bool {
	_, ok := b.(*Checklist)
	return ok
}

// demoLevelsTitle starts the demo's table of the open levels (demoLevels).
const demoLevelsTitle = "open model (latency from the intended start)"

// atTop says at the top, right after the header, that the experiment was
// interrupted or ended early (the "ended early" note moves up from the end)
// and that the server still holds a variant's changes.
func atTop(blocks []Block, rec *experiment.Record) []Block {
	var lines []string
	if rec.Interrupted {
		why := rec.Reason
		if why == "" {
			why = "interrupted"
		}
		made := 0
		for _, r := range rec.Runs {
			if r.Error == "" && !r.Interrupted {
				made++
			}
		}
		lines = append(lines, fmt.Sprintf("the experiment was interrupted (%s): this report shows the %d %s it completed",
			why, made, format.Plural(made, "run", "runs")))
	}
	if rec.Error != "" {
		lines = append(lines, "ended early: "+rec.Error)
		blocks = slices.DeleteFunc(blocks, func(b Block) bool {
			n, ok := b.(*Notes)
			return ok && n.Prefix == "ended early: "
		})
	}
	if rec.Unrestored {
		lines = append(lines, "the server still holds what a variant changed: pgtrial experiment --restore DIR puts it back ("+results.RestoreFile+")")
	}
	if len(lines) == 0 {
		return blocks
	}
	at := 0
	if len(blocks) > 0 {
		if l, ok := blocks[0].(*Lines); ok && l.Attached {
			at = 1 // after the header, which belongs to the title
		}
	}
	return slices.Insert(blocks, at, Block(&Notes{Prefix: "note: ", Lines: lines}))
}

// chartIDs makes the charts' IDs of one report: [a-z0-9-], unique.
type chartIDs struct{ used map[string]bool }

// id is the parts joined by "-", every other character made "-", runs of
// "-" squeezed, and "-2", "-3", … added to an ID already given.
func (c *chartIDs) id(parts ...string) string {
	if c.used == nil {
		c.used = map[string]bool{}
	}
	var b strings.Builder
	dash := true // no leading dash
	for _, r := range strings.ToLower(strings.Join(parts, "-")) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	base := strings.TrimSuffix(b.String(), "-")
	if len(base) > 60 {
		base = strings.TrimSuffix(base[:60], "-")
	}
	if base == "" {
		base = "chart"
	}
	id := base
	for n := 2; c.used[id]; n++ {
		id = base + "-" + strconv.Itoa(n)
	}
	c.used[id] = true
	return id
}

// runMetric is a figure of a RunRecord that the dots charts show: the
// comparisons' metric of the same name. Always: drawn without a comparison.
type runMetric struct {
	name, label, unit string
	always            bool
	value             func(*experiment.RunRecord) float64
}

// runMetrics are the RunRecord's figures in the order of the comparisons'
// metrics (compare's summary metrics).
var runMetrics = []runMetric{
	{"tps", "tps", "tx/s", true, func(r *experiment.RunRecord) float64 { return r.TPS }},
	{"p50", "response p50", "ms", true, func(r *experiment.RunRecord) float64 { return r.P50 }},
	{"p95", "response p95", "ms", false, func(r *experiment.RunRecord) float64 { return r.P95 }},
	{"p99", "response p99", "ms", true, func(r *experiment.RunRecord) float64 { return r.P99 }},
	{"p99.9", "response p99.9", "ms", false, func(r *experiment.RunRecord) float64 { return r.P999 }},
	{"max", "response max", "ms", false, func(r *experiment.RunRecord) float64 { return r.Max }},
	{"skipped+dropped %", "skipped+dropped", "%", false, func(r *experiment.RunRecord) float64 { return 100 * r.SkippedShare }},
	{"failed %", "failed", "%", false, func(r *experiment.RunRecord) float64 { return 100 * r.FailedShare }},
}

// completed reports whether a run counts in the variant's figures: as the
// variant table, a run that failed before committing anything does not.
func completed(r *experiment.RunRecord) bool { return r.Error == "" || r.TPS != 0 }

// variantDots is per metric a Dots chart of each variant's completed runs:
// tps, p50 and p99, and the other metrics of RunRecord that a comparison
// compares and that are not 0 in every run; nil when no run completed.
func variantDots(rec *experiment.Record, ids *chartIDs) *Figure {
	used := map[string]bool{}
	for _, c := range rec.Comparisons {
		if c == nil {
			continue
		}
		for _, m := range c.Metrics {
			used[m.Metric] = true
		}
	}
	f := &Figure{Title: "runs per variant (each dot a run; median and range over the runs):"}
	found := false
	for _, m := range runMetrics {
		if !m.always && !used[m.name] {
			continue
		}
		ch := &chart.Chart{ID: ids.id("runs", m.name), Title: m.label + " per run", Kind: chart.Dots,
			Y: chart.Axis{Label: m.label, Unit: m.unit}}
		nonZero := false
		for _, v := range rec.Variants {
			g := chart.DotGroup{Label: v.Name, Values: chart.Values{}}
			for j := range rec.Runs {
				r := &rec.Runs[j]
				if r.Variant == v.Name && completed(r) {
					x := m.value(r)
					g.Values = append(g.Values, x)
					found, nonZero = true, nonZero || x != 0
				}
			}
			ch.Groups = append(ch.Groups, g)
		}
		if !m.always && !nonZero {
			continue // a share that is 0 in every run (nothing skipped): no chart
		}
		for _, s := range rec.SLOs {
			if strings.HasPrefix(s.SLO, m.name+" ") && m.unit == "ms" && s.LimitMs > 0 &&
				!slices.ContainsFunc(ch.Refs, func(r chart.Ref) bool { return r.Value == s.LimitMs }) {
				ch.Refs = append(ch.Refs, chart.Ref{Value: s.LimitMs, Label: "SLO " + s.SLO})
			}
		}
		f.Charts = append(f.Charts, ch)
	}
	if !found {
		return nil
	}
	return f
}

// compareDots is per metric a Dots chart of the runs of A and B: each
// run's value (Metric.ValuesA/ValuesB, a run without one left out), or the
// side's sorted values (Verdict.A/B) in a record without per-run values;
// nil without any.
func compareDots(rep *compare.Report, ids *chartIDs) *Figure {
	f := &Figure{Title: "runs per side (each dot a run; median and range over the runs):"}
	for i := range rep.Metrics {
		m := &rep.Metrics[i]
		a, b := runValues(m.ValuesA, m.Verdict.A), runValues(m.ValuesB, m.Verdict.B)
		if len(a) == 0 && len(b) == 0 {
			continue
		}
		if !slices.ContainsFunc(a, nonZero) && !slices.ContainsFunc(b, nonZero) {
			continue // 0 in every run of both sides (nothing skipped, nothing failed): nothing to see
		}
		label := metricName(m)
		f.Charts = append(f.Charts, &chart.Chart{ID: ids.id("runs", m.Metric), Title: label + " per run", Kind: chart.Dots,
			Y:      chart.Axis{Label: label, Unit: m.Unit},
			Groups: []chart.DotGroup{{Label: rep.NameA, Values: a}, {Label: rep.NameB, Values: b}}})
	}
	if len(f.Charts) == 0 {
		return nil
	}
	return f
}

func nonZero(v float64) bool { return v != 0 }

// runValues are a side's runs' values of a metric: the per-run values
// without the runs that have none, or the summary's sorted values when there
// are no per-run values.
func runValues(perRun []*float64, s stats.Summary) chart.Values {
	out := chart.Values{}
	for _, v := range perRun {
		if v != nil {
			out = append(out, *v)
		}
	}
	if len(perRun) == 0 {
		out = append(out, s.Sorted...)
	}
	return out
}

// metricName is a metric as the charts name it: "tps", "response p99",
// "blocks/call s1".
func metricName(m *compare.Metric) string {
	if m.Group == "latency" {
		return "response " + m.Metric
	}
	return m.Metric
}

// forestFigure is a comparison as a forest plot: one row per metric, the
// primary first, the ratio B/A with its interval (the estimate alone when
// the interval was not made; the ratio of the medians when no ratio was),
// the outcome and the verdict line; a metric with no ratio at all (A's
// median is 0: its verdict rests on the difference) is named under the
// figure. Nil without metrics.
func forestFigure(rep *compare.Report, ids *chartIDs) *Figure {
	if len(rep.Metrics) == 0 {
		return nil
	}
	margin := rep.Margin
	if !(margin > 0 && margin < 1) {
		margin = stats.DefaultMargin
	}
	ch := &chart.Chart{ID: ids.id("forest", rep.NameB, "vs", rep.NameA), Kind: chart.Forest,
		Title: fmt.Sprintf("%s against %s: ratio %s/%s with its interval", rep.NameB, rep.NameA, rep.NameB, rep.NameA),
		X:     chart.Axis{Label: "ratio " + rep.NameB + "/" + rep.NameA, Log: true},
		Refs: []chart.Ref{{Value: 1, Label: "no change"},
			{Value: 1 - margin, Label: "equivalence margin −" + format.Sig3(100*margin) + " %"},
			{Value: 1 + margin, Label: "equivalence margin +" + format.Sig3(100*margin) + " %"}}}
	var noRatio []string
	var primary []chart.Row
	for i := range rep.Metrics {
		m := &rep.Metrics[i]
		v := &m.Verdict
		row := chart.Row{Label: metricName(m), Lo: math.NaN(), Hi: math.NaN(), Outcome: v.Outcome, Verdict: v.Text,
			Primary: v.Role == stats.RolePrimary}
		switch {
		case v.Ratio.OK:
			row.Estimate, row.Lo, row.Hi = v.Ratio.Point, v.Ratio.Lo, v.Ratio.Hi
		case v.Ratio.Point > 0:
			row.Estimate = v.Ratio.Point
		case v.A.N > 0 && v.B.N > 0 && v.A.Median > 0 && v.B.Median > 0:
			row.Estimate = v.B.Median / v.A.Median
		default:
			noRatio = append(noRatio, m.Metric)
			continue
		}
		if row.Primary {
			row.Verdict = "primary: " + v.Text
			primary = append(primary, row)
			continue
		}
		ch.Rows = append(ch.Rows, row)
	}
	ch.Rows = append(primary, ch.Rows...)
	if len(ch.Rows) == 0 {
		return nil
	}
	f := &Figure{Title: fmt.Sprintf("%s against %s, metric by metric (the primary first):", rep.NameB, rep.NameA), Charts: []*chart.Chart{ch}}
	if len(noRatio) > 0 {
		f.Notes = append(f.Notes, "no ratio (a median of "+rep.NameA+" is 0; the verdict rests on the difference, in the table): "+strings.Join(noRatio, ", "))
	}
	return f
}

// rampLevelAxis is the X axis of a ramp's charts: clients or tx/s, as its
// step runs were made.
func rampLevelAxis(rec *experiment.Record) chart.Axis {
	for _, r := range rec.Runs {
		if r.Phase == "step" {
			if r.Rate > 0 {
				return chart.Axis{Label: "target rate", Unit: "tx/s"}
			}
			return chart.Axis{Label: "clients"}
		}
	}
	return chart.Axis{Label: "level"}
}

// rampFigures are a ramp's charts: tps and p99 per level with one series
// per variant, then the waits by type per level, stacked, one chart per
// variant (drawn side by side).
func rampFigures(rec *experiment.Record, ids *chartIDs) []Block {
	x := rampLevelAxis(rec)
	variants := rampVariants(rec)
	tps := &chart.Chart{ID: ids.id("ramp", "tps"), Title: "tps per level", Kind: chart.XY, X: x, Y: chart.Axis{Label: "tps", Unit: "tx/s"}}
	p99 := &chart.Chart{ID: ids.id("ramp", "p99"), Title: "response p99 per level", Kind: chart.XY, X: x, Y: chart.Axis{Label: "response p99", Unit: "ms"}}
	waits := &Figure{Title: "ramp: waits by type per level (share of the samples of active sessions, median over the repeats):"}
	for _, v := range variants {
		levels := rampOf(rec.Ramp, v)
		st, sp := chart.Series{Name: v}, chart.Series{Name: v}
		for _, l := range levels {
			st.X, st.Y = append(st.X, l.Level), append(st.Y, l.TPS)
			sp.X, sp.Y = append(sp.X, l.Level), append(sp.Y, l.P99)
		}
		tps.Series, p99.Series = append(tps.Series, st), append(p99.Series, sp)
		if w := waitsChart(v, levels, x, ids); w != nil {
			waits.Charts = append(waits.Charts, w)
		}
	}
	out := []Block{&Figure{Title: "ramp: tps and p99 per level (median over the repeats), one line per variant:", Charts: []*chart.Chart{tps, p99}}}
	if len(waits.Charts) > 0 {
		out = append(out, waits)
	}
	return out
}

// rampVariants are the ramp's variants in the record's order, then any
// other that has levels.
func rampVariants(rec *experiment.Record) []string {
	var out []string
	for _, v := range rec.Variants {
		if slices.ContainsFunc(rec.Ramp, func(l experiment.RampLevel) bool { return l.Variant == v.Name }) {
			out = append(out, v.Name)
		}
	}
	for _, l := range rec.Ramp {
		if !slices.Contains(out, l.Variant) {
			out = append(out, l.Variant)
		}
	}
	return out
}

// rampOf is variant v's levels, increasing.
func rampOf(levels []experiment.RampLevel, v string) []experiment.RampLevel {
	var out []experiment.RampLevel
	for _, l := range levels {
		if l.Variant == v {
			out = append(out, l)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Level < out[j].Level })
	return out
}

// waitsChart is one variant's waits by type per level as stacked areas in
// per cent, the largest type at the bottom; a level without wait samples
// is a gap (NaN), a type missing at a level that has samples is 0. Nil
// when no level has waits.
func waitsChart(variant string, levels []experiment.RampLevel, x chart.Axis, ids *chartIDs) *chart.Chart {
	total := map[string]float64{}
	for _, l := range levels {
		for k, s := range l.Waits {
			total[k] += s
		}
	}
	if len(total) == 0 {
		return nil
	}
	types := make([]string, 0, len(total))
	for k := range total {
		types = append(types, k)
	}
	sort.Slice(types, func(i, j int) bool {
		if total[types[i]] != total[types[j]] {
			return total[types[i]] > total[types[j]]
		}
		return types[i] < types[j]
	})
	ch := &chart.Chart{ID: ids.id("ramp", "waits", variant), Title: "waits by type: " + variant, Kind: chart.XY, X: x,
		Y: chart.Axis{Label: "share of samples", Unit: "%", Min: bound(0), Max: bound(100)}}
	for _, k := range types {
		s := chart.Series{Name: k, Stack: "waits"}
		for _, l := range levels {
			y := math.NaN()
			if len(l.Waits) > 0 {
				y = 100 * l.Waits[k]
			}
			s.X, s.Y = append(s.X, l.Level), append(s.Y, y)
		}
		ch.Series = append(ch.Series, s)
	}
	return ch
}

// searchFigure is a capacity search's quantile of response time against
// the target rate: each open-model run a point (those that met the SLO and
// those that did not), the SLO's limit as a line, the interval between the
// highest rate that holds and the lowest that misses shaded, and the
// closed-model ceiling marked. Nil without open-model runs.
func searchFigure(r *capacity.Result, ids *chartIDs) *Figure {
	if len(r.Steps) == 0 {
		return nil
	}
	c := r.Config.Normalized()
	q := capacity.QuantileName(c.Quantile)
	limit := float64(c.Limit) / float64(time.Millisecond)
	ch := &chart.Chart{ID: ids.id("search", q), Title: "response " + q + " against the target rate", Kind: chart.XY,
		X: chart.Axis{Label: "target rate", Unit: "tx/s"}, Y: chart.Axis{Label: "response " + q, Unit: "ms"}}
	pass := chart.Series{Name: "met the SLO", Points: true}
	fail := chart.Series{Name: "missed the SLO", Points: true}
	lo, hi := math.Inf(1), 0.0
	for _, st := range r.Steps {
		ms := float64(st.Probe.Quantile) / float64(time.Millisecond)
		if ms > 0 {
			lo, hi = min(lo, ms), max(hi, ms)
		}
		if st.Pass {
			pass.X, pass.Y = append(pass.X, st.Probe.Rate), append(pass.Y, ms)
		} else {
			fail.X, fail.Y = append(fail.X, st.Probe.Rate), append(fail.Y, ms)
		}
	}
	// Runs that miss can be 1000× slower than those that meet: log scale
	// when the values span more than two decades.
	ch.Y.Log = hi > 0 && lo < hi && hi/lo > 100
	for _, s := range []chart.Series{pass, fail} {
		if len(s.X) > 0 {
			ch.Series = append(ch.Series, s)
		}
	}
	if limit > 0 {
		ch.Refs = []chart.Ref{{Value: limit, Label: "SLO " + q + " ≤ " + format.Duration(c.Limit)}}
	}
	switch {
	case r.Low > 0 && r.High > 0:
		ch.Spans = []chart.Span{{From: r.Low, To: r.High, Kind: chart.MarkOther,
			Label: fmt.Sprintf("capacity between %s and %s tx/s", format.Sig3(r.Low), format.Sig3(r.High))}}
	case r.Low > 0:
		ch.Markers = append(ch.Markers, chart.Marker{X: r.Low, Kind: chart.MarkOther, Label: "highest rate that holds: " + format.Sig3(r.Low) + " tx/s"})
	case r.High > 0:
		ch.Markers = append(ch.Markers, chart.Marker{X: r.High, Kind: chart.MarkOther, Label: "lowest rate that misses: " + format.Sig3(r.High) + " tx/s"})
	}
	if r.Ceiling > 0 {
		ch.Markers = append(ch.Markers, chart.Marker{X: r.Ceiling, Kind: chart.MarkPhase, Label: "closed-model ceiling " + format.Sig3(r.Ceiling) + " tx/s"})
	}
	return &Figure{Title: "capacity search: " + q + " against rate:", Charts: []*chart.Chart{ch}, Notes: []string{capacity.Conclusion(r)}}
}

// demoFigure is the demo's open levels: p50, p95 and p99 against the
// level's target rate (the fraction of the ceiling in a record without
// rates), each repeat a point and the medians a line, as seeds/000 draws
// them; nil when no level completed a run.
func demoFigure(dir string, rec *experiment.Record, ids *chartIDs) *Figure {
	type level struct {
		f          float64
		rates      []float64
		p          [3][]float64
		hasResults bool
	}
	var levels []level
	byRate := true
	for _, f := range experiment.DemoFractions() {
		l := level{f: f}
		for i := range rec.Runs {
			r := &rec.Runs[i]
			if r.Variant != experiment.DemoLevel(f) || r.Error != "" {
				continue
			}
			l.rates = append(l.rates, r.Rate)
			for k, v := range []float64{r.P50, r.P95, r.P99} {
				l.p[k] = append(l.p[k], v)
			}
			l.hasResults = true
		}
		if !l.hasResults {
			continue
		}
		if stats.Summarize(l.rates).Median <= 0 {
			byRate = false
		}
		levels = append(levels, l)
	}
	if len(levels) == 0 {
		return nil
	}
	x := chart.Axis{Label: "target rate", Unit: "tx/s"}
	if !byRate {
		x = chart.Axis{Label: "load, of the closed-model ceiling", Unit: "%"}
	}
	ch := &chart.Chart{ID: ids.id("demo", "levels"), Title: "p50, p95 and p99 at the three load levels", Kind: chart.XY, X: x,
		Y: chart.Axis{Label: "response (from the intended start)", Unit: "ms"}}
	for k, name := range []string{"p50", "p95", "p99"} {
		dots := chart.Series{Name: name + " (each repeat)", Points: true, Tone: k + 1}
		line := chart.Series{Name: name + " (median)", Tone: k + 1}
		for _, l := range levels {
			xv := 100 * l.f
			if byRate {
				xv = stats.Summarize(l.rates).Median
			}
			for _, v := range l.p[k] {
				dots.X, dots.Y = append(dots.X, xv), append(dots.Y, v)
			}
			line.X, line.Y = append(line.X, xv), append(line.Y, stats.Summarize(l.p[k]).Median)
		}
		ch.Series = append(ch.Series, dots, line)
	}
	if limit := demoLatencyLimit(dir, rec); limit > 0 {
		ch.Refs = append(ch.Refs, chart.Ref{Value: limit, Label: "-L " + format.Ms(limit) + " ms: later transactions are skipped"})
	}
	return &Figure{Title: "open model: latency at the three load levels (points: repeats; lines: medians):", Charts: []*chart.Chart{ch}}
}

// demoLatencyLimit is the latency limit (-L, ms) of the demo's open-model
// runs, from the first level run's run.json; 0 when none says.
func demoLatencyLimit(dir string, rec *experiment.Record) float64 {
	for _, f := range experiment.DemoFractions() {
		for i := range rec.Runs {
			r := &rec.Runs[i]
			if r.Variant != experiment.DemoLevel(f) || r.Dir == "" {
				continue
			}
			rd := r.Dir
			if !filepath.IsAbs(rd) {
				rd = filepath.Join(dir, rd)
			}
			if run, err := results.Load(rd); err == nil {
				return run.Model.LatencyLimitMs
			}
		}
	}
	return 0
}

// stallRuns are the stall comparison's runs: the demo's stall-closed and
// stall-open, or, in an experiment with injections, its first completed
// closed-model run and its first completed open-model one (not a ramp's or
// a search's); nil, nil without both.
func stallRuns(rec *experiment.Record) (closed, open *experiment.RunRecord) {
	if closed, open = demoStallRuns(rec); closed != nil && open != nil {
		return closed, open
	}
	closed, open = nil, nil
	if rec.Model == "demo" || len(rec.Injections) == 0 {
		return nil, nil
	}
	for i := range rec.Runs {
		r := &rec.Runs[i]
		if r.Phase != "" || r.Error != "" {
			continue
		}
		if r.Rate > 0 && open == nil {
			open = r
		} else if r.Rate == 0 && closed == nil {
			closed = r
		}
	}
	if closed == nil || open == nil {
		return nil, nil
	}
	return closed, open
}

// stallBlocks are the stall comparison's two distributions: the percentile
// spectrum of each run's measured response times (latency.hlog of its
// directory, results.MeasuredResponse), with a note for a run whose
// directory cannot be read; nil without the two runs.
func stallBlocks(dir string, rec *experiment.Record, ids *chartIDs) []Block {
	sc, so := stallRuns(rec)
	if sc == nil {
		return nil
	}
	ch := &chart.Chart{ID: ids.id("stall", "spectrum"), Title: "stall: response time, closed vs open model", Kind: chart.Spectrum,
		X: chart.Axis{Label: "quantile"}, Y: chart.Axis{Label: "response", Unit: "ms", Log: true}}
	var missing []string
	for _, side := range []struct {
		name string
		r    *experiment.RunRecord
	}{{"closed model", sc}, {"open model at " + format.Sig3(so.Rate) + " tx/s", so}} {
		s, err := runSpectrum(dir, side.r)
		if err != nil {
			missing = append(missing, fmt.Sprintf("no spectrum of the %s's run (%s): %v", side.name, side.r.Variant, err))
			continue
		}
		s.Name = side.name
		ch.Series = append(ch.Series, s)
	}
	var out []Block
	if len(ch.Series) > 0 {
		out = append(out, &Figure{Title: "stall: the distribution of response times in both models (percentile spectrum):", Charts: []*chart.Chart{ch},
			Notes: []string{"the closed clients stop sending while they wait (coordinated omission): their tail is short; the open schedule keeps arriving, and its tail shows the stall"}})
	}
	if len(missing) > 0 {
		out = append(out, &Notes{Prefix: "note: ", Lines: missing})
	}
	return out
}

// runSpectrum is the percentile spectrum of a run's measured response
// times, read from its directory (rec's Dir, relative to the experiment
// directory dir).
func runSpectrum(dir string, r *experiment.RunRecord) (chart.Series, error) {
	if r.Dir == "" {
		return chart.Series{}, errors.New("the record names no run directory")
	}
	rd := r.Dir
	if !filepath.IsAbs(rd) {
		rd = filepath.Join(dir, rd)
	}
	run, err := results.Load(rd)
	if err != nil {
		return chart.Series{}, err
	}
	h, err := results.MeasuredResponse(rd, run)
	if err != nil {
		return chart.Series{}, err
	}
	return spectrum(h), nil
}

// quantiler is what a spectrum reads of a histogram of µs
// (hdrhistogram.Histogram).
type quantiler interface {
	TotalCount() int64
	ValueAtQuantile(percent float64) int64
}

// spectrumSteps is the points per decade of 1/(1−q) in a spectrum.
const spectrumSteps = 20

// spectrum is a histogram of µs as a percentile spectrum in ms: q such
// that 1/(1−q) = 10^(k/spectrumSteps), k = 0, 1, …, while 1/(1−q) ≤ n (the
// count: beyond it no transaction is left), and the last one at
// q = 1 − 1/n.
func spectrum(h quantiler) chart.Series {
	var s chart.Series
	n := float64(h.TotalCount())
	if n <= 0 {
		return s
	}
	add := func(q float64) {
		s.X = append(s.X, q)
		s.Y = append(s.Y, float64(h.ValueAtQuantile(100*q))/1000)
	}
	for k := 0; ; k++ {
		inv := math.Pow(10, float64(k)/spectrumSteps)
		if inv > n {
			break
		}
		add(1 - 1/inv)
	}
	if last := 1 - 1/n; len(s.X) == 0 || last > s.X[len(s.X)-1] {
		add(last)
	}
	return s
}

// runsTable is every run of the experiment with its figures; each run's
// name links to its own report (runs/NAME/report.html, beside its run
// directory's files) when its run directory is there (a run whose
// directory was removed has no report to link to). Nil without runs.
func runsTable(dir string, rec *experiment.Record) *Table {
	if len(rec.Runs) == 0 {
		return nil
	}
	t := &Table{Title: "runs (each links to its own report):", Sortable: true,
		Head: []string{"run", "variant", "repeat", "clients", "rate tx/s", "tps", "p50 ms", "p99 ms", "checks", "status"}}
	for i := range rec.Runs {
		r := &rec.Runs[i]
		name := Cell{Text: strconv.Itoa(r.N)}
		if r.Dir != "" {
			name.Text = strings.TrimPrefix(path.Clean(filepath.ToSlash(r.Dir)), experiment.RunsDir+"/")
			if _, err := os.Stat(filepath.Join(dir, r.Dir, results.RunFile)); err == nil {
				name.Link = runLink(r.Dir)
			}
		}
		status := "completed"
		switch {
		case r.Error != "":
			status = "failed: " + format.OneLine(r.Error, 80)
		case r.Interrupted:
			status = "interrupted"
		case r.Aborted:
			status = "aborted"
		}
		rate := Text("")
		if r.Rate > 0 {
			rate = Text(format.Sig3(r.Rate))
		}
		row := []Cell{name, Text(r.Variant), Text(strconv.Itoa(r.Repeat)), Text(strconv.Itoa(r.Clients)), rate}
		if completed(r) {
			row = append(row, Text(format.Rate(r.TPS)), Text(format.Ms(r.P50)), Text(format.Ms(r.P99)))
		} else {
			why := "the run failed before committing anything"
			row = append(row, Absent(why), Absent(why), Absent(why))
		}
		t.Rows = append(t.Rows, append(row, Text(r.Checks), Text(status)))
	}
	return t
}

// runLink is the link to a run's report, relative to the experiment
// directory: DIR/report.html for the run's relative directory; "" for an
// absolute one or one that leaves the experiment directory.
func runLink(dir string) string {
	d := path.Clean(filepath.ToSlash(dir))
	if filepath.IsAbs(dir) || path.IsAbs(d) || d == "." || d == ".." || strings.HasPrefix(d, "../") {
		return ""
	}
	return d + "/" + HTMLFile
}
