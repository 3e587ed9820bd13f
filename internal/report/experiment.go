package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/report/format"
)

// Experiment is the experiment's summary: what ran, each variant's figures
// as median (min–max) over its repeats, the verdicts of every variant
// against the first, the ramp's levels, the capacity search, the SLOs, the
// checklist and the warnings. dir is the experiment directory.
func Experiment(rec *experiment.Record, dir string) *Doc {
	title := "experiment " + rec.Name
	if rec.Description != "" {
		title += ": " + rec.Description
	}
	d := &Doc{Title: title}
	d.Add(&Lines{Lines: experimentHeader(rec), Indent: 2, Attached: true})
	if rec.Search == nil && len(rec.Ramp) == 0 {
		d.Add(variantTable(rec))
	}
	d.Add(TPCCExperimentBlocks(rec)...) // tpcc_experiment.go
	for _, c := range rec.Comparisons {
		v := CompareVerdicts(c)
		v.Title = fmt.Sprintf("%s against %s (%d vs %d runs):", c.NameB, c.NameA, len(c.RunsB), len(c.RunsA))
		if c.Primary != "" {
			v.Title = fmt.Sprintf("%s against %s (%d vs %d runs; primary metric %s, %d exploratory with Holm's correction):",
				c.NameB, c.NameA, len(c.RunsB), len(c.RunsA), c.Primary, max(c.Tests-1, 0))
		}
		if few := compareFewLine(c); few != "" {
			v.Lines = append(v.Lines, few)
		}
		d.Add(v)
		if env := CompareEnvironment(c); env != nil {
			d.Add(env)
		}
	}
	if len(rec.Ramp) > 0 {
		d.Add(rampTable(rec.Ramp))
	}
	d.Add(experimentScenarioBlocks(rec)...) // experiment_scenarios.go
	d.Add(ExperimentFindingsBlocks(rec.Findings)...)
	d.Add(experimentRunFindingsBlocks(rec, dir)...)
	if rec.Search != nil {
		d.Add(CapacityBlocks(rec.Search)...)
	}
	if len(rec.SLOs) > 0 {
		d.Add(sloTable(rec.SLOs))
	}
	d.Add(GateBlocks(rec.Gate)...) // gate.go
	d.Add(endBlocks(rec)...)
	d.Add(&Lines{Lines: []string{fmt.Sprintf("experiment directory: %s (%s, runs in %s/)", dir, experiment.File, experiment.RunsDir)}})
	return d
}

// experimentHeader is what ran: the workload on the target with the load
// model, the protocol, and the injections, one a line.
func experimentHeader(rec *experiment.Record) []string {
	var b strings.Builder
	b.WriteString(rec.Workload)
	if rec.Scale > 0 {
		fmt.Fprintf(&b, " (scale %d)", rec.Scale)
	}
	if rec.Warehouses > 0 {
		fmt.Fprintf(&b, " (%d %s)", rec.Warehouses, format.Plural(rec.Warehouses, "warehouse", "warehouses"))
	}
	fmt.Fprintf(&b, " on %s (PostgreSQL %s); %s", targetText(rec), rec.Target.ServerVersion, modelText(rec))
	lines := []string{b.String()}

	b.Reset()
	repeats := format.Plural(rec.Repeats, "repeat", "repeats")
	if rec.Model == "ramp" && rec.StepS > 0 {
		// Each level is a run measured for the step duration; the
		// protocol's window is not used.
		fmt.Fprintf(&b, "warm-up %s before the first step, %s per step, %d %s per variant",
			format.Seconds(rec.WarmupS), format.Seconds(rec.StepS), rec.Repeats, repeats)
	} else {
		fmt.Fprintf(&b, "warm-up %s, window %s, %d %s per variant", format.Seconds(rec.WarmupS), format.Seconds(rec.WindowS), rec.Repeats, repeats)
	}
	if len(rec.Variants) > 1 {
		if rec.Interleave {
			b.WriteString(", interleaved")
		} else {
			b.WriteString(", not interleaved")
		}
	}
	fmt.Fprintf(&b, ", seed %d", rec.Seed)
	lines = append(lines, b.String())
	if l := rec.Loaded; l != nil {
		lines = append(lines, fmt.Sprintf("tables loaded before the runs in %s: %s", format.Seconds(l.DurationS), l.Command))
	}
	for _, sh := range rec.Shaped {
		lines = append(lines, "shaped before the runs: "+sh.Summary())
	}

	if c := rec.Calibration; c != nil && c.Text != "" {
		// The A/A runs made before the real runs (not in the comparisons);
		// too few repeats are among the warnings.
		lines = append(lines, c.Text)
		if wt := c.WindowText(); wt != "" {
			lines = append(lines, wt)
		}
	}
	for _, inj := range rec.Injections {
		l := "injection: " + inj.Kind
		if inj.Table != "" {
			l += " " + inj.Table
		}
		l += " at " + format.Seconds(inj.AtS)
		if inj.DurationS > 0 {
			l += " for " + format.Seconds(inj.DurationS)
		}
		lines = append(lines, l)
	}
	return lines
}

// targetText is "host:port/database".
func targetText(rec *experiment.Record) string {
	return fmt.Sprintf("%s:%d/%s", rec.Target.Host, rec.Target.Port, rec.Target.Database)
}

// modelText is the load model: "open model at 500 tx/s, 8 clients".
func modelText(rec *experiment.Record) string {
	if t := scenariosModelText(rec); t != "" { // experiment_scenarios.go
		return t
	}
	switch rec.Model {
	case "open":
		return fmt.Sprintf("open model at %s tx/s, %d clients", format.Sig3(rec.Rate), rec.Clients)
	case "closed":
		return fmt.Sprintf("closed model, %d clients", rec.Clients)
	case "ramp":
		return "ramp"
	case "search":
		return fmt.Sprintf("capacity search, %d clients", rec.Clients)
	}
	return rec.Model
}

// percent is a share (0–1) in percent without the unit, for a column whose
// head says "%": 0.0123 → "1.23".
func percent(share float64) string { return format.Sig3(100 * share) }

// variantTable is each variant's figures over its completed runs (a run
// that failed before committing anything does not count): median (min–max)
// over the runs and, when the comparisons pooled the variants' histograms,
// the pooled p99 and p99.9 beside them (compare.Pooled).
func variantTable(rec *experiment.Record) *Table {
	pooled := variantPooled(rec)
	head := []string{"variant", "runs", "tps", "p50 ms", "p95 ms", "p99 ms"}
	if pooled != nil {
		head = append(head, "p99 pooled")
	}
	head = append(head, "p99.9 ms")
	if pooled != nil {
		head = append(head, "p99.9 pooled")
	}
	t := &Table{Head: append(head, "skipped+dropped %")}
	for _, v := range rec.Variants {
		var tps, p50, p95, p99, p999, sk []float64
		for _, r := range rec.Runs {
			if r.Variant != v.Name || (r.Error != "" && r.TPS == 0) {
				continue
			}
			tps, p50, p95, p99, p999 = append(tps, r.TPS), append(p50, r.P50), append(p95, r.P95), append(p99, r.P99), append(p999, r.P999)
			sk = append(sk, r.SkippedShare)
		}
		tpsCell := Text(format.Spread(tps, format.Rate))
		if len(tps) == 0 {
			tpsCell = Absent("no run of the variant completed")
		}
		row := []Cell{Text(v.Name), Text(strconv.Itoa(len(tps))), tpsCell,
			Text(format.Spread(p50, format.Ms)), Text(format.Spread(p95, format.Ms)), Text(format.Spread(p99, format.Ms))}
		if pooled != nil {
			row = append(row, pooled.cell(v.Name, "p99"))
		}
		row = append(row, Text(format.Spread(p999, format.Ms)))
		if pooled != nil {
			row = append(row, pooled.cell(v.Name, "p99.9"))
		}
		t.Rows = append(t.Rows, append(row, Text(format.Spread(sk, percent))))
	}
	if pooled != nil {
		t.Notes = []string{"ms: median (min–max) over the runs of each run's percentile; pooled: the percentile of all the variant's transactions, " +
			"its runs' histograms merged (nearest rank ⌈q·n⌉ both). One stalled run in five moves the pooled p99 a lot and the median " +
			"of the runs' p99s little, so both are shown; the verdicts use the per-run values."}
	}
	return t
}

// pooledFigures are the variants' pooled latency figures, read from the
// comparisons (the first variant is every comparison's A side).
type pooledFigures struct {
	values  map[string]map[string]float64 // variant → metric → ms
	missing map[string]string             // variant → why it has none
}

// variantPooled collects the pooled figures of the comparisons; nil when
// none has any (no comparison, or records written before them).
func variantPooled(rec *experiment.Record) *pooledFigures {
	f := &pooledFigures{values: map[string]map[string]float64{}, missing: map[string]string{}}
	found := false
	side := func(name string, p *compare.Pooled, m *compare.Metric, v *float64) {
		if p == nil {
			return
		}
		found = found || hasPooled(p)
		if len(p.Missing) > 0 {
			f.missing[name] = "no pooled figure for " + name + ": " + pooledMissing(p)
			return
		}
		if v != nil {
			if f.values[name] == nil {
				f.values[name] = map[string]float64{}
			}
			f.values[name][m.Metric] = *v
		}
	}
	for _, c := range rec.Comparisons {
		for i := range c.Metrics {
			m := &c.Metrics[i]
			if m.Group == "latency" {
				side(c.NameA, c.PooledA, m, m.PooledA)
				side(c.NameB, c.PooledB, m, m.PooledB)
			}
		}
	}
	if !found {
		return nil
	}
	return f
}

// cell is a variant's pooled figure of a metric, or missing with the reason.
func (f *pooledFigures) cell(variant, metric string) Cell {
	if v, ok := f.values[variant][metric]; ok {
		return Text(format.Ms(v))
	}
	if why := f.missing[variant]; why != "" {
		return Absent(why)
	}
	return Absent("no pooled figure for " + variant + ": it is in no comparison")
}

// rampTable is the ramp's levels with the waits by type; a level without
// statement evidence has calls/s and rows/s missing, with the reason.
func rampTable(levels []experiment.RampLevel) *Table {
	types := map[string]bool{}
	for _, l := range levels {
		for k := range l.Waits {
			types[k] = true
		}
	}
	var names []string
	for k := range types {
		names = append(names, k)
	}
	sort.Strings(names)
	t := &Table{
		Title: "ramp (median over the repeats; waits: share of the samples of active sessions):",
		Head:  []string{"variant", "level", "runs", "tps", "p50 ms", "p99 ms", "calls/s", "rows/s"},
	}
	for _, n := range names {
		t.Head = append(t.Head, n+" %")
	}
	for _, l := range levels {
		calls, rows := Text(format.Rate(l.CallsPerSec)), Text(format.Rate(l.RowsPerSec))
		if l.StatementsMissing != "" {
			calls, rows = Absent(l.StatementsMissing), Absent(l.StatementsMissing)
		}
		row := []Cell{Text(l.Variant), Text(format.Sig3(l.Level)), Text(strconv.Itoa(len(l.Runs))), Text(format.Rate(l.TPS)),
			Text(format.Ms(l.P50)), Text(format.Ms(l.P99)), calls, rows}
		for _, n := range names {
			row = append(row, Text(percent(l.Waits[n])))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// sloTable is each SLO judged for each variant: the median of the quantile
// over the repeats and the worst run against the limit.
func sloTable(slos []experiment.SLOResult) *Table {
	t := &Table{Title: "SLOs (median over the repeats; worst run):"}
	for _, s := range slos {
		met := "met"
		switch {
		case !s.Met:
			met = "MISSED"
		case !s.AllMet:
			met = "met by the median, missed by a run"
		}
		t.AddRow(s.Variant, fmt.Sprintf("%s at %s tx/s: %s ms (worst %s ms): %s", s.SLO, format.Sig3(s.Rate), format.Ms(s.Median), format.Ms(s.Worst), met))
	}
	return t
}

// endBlocks are what closes an experiment's or the demo's report: the
// checklist, the warnings and why it ended early.
func endBlocks(rec *experiment.Record) []Block {
	var out []Block
	if len(rec.Checks) > 0 {
		out = append(out, &Checklist{Title: "checklist:", Items: rec.Checks})
	}
	if len(rec.Warnings) > 0 {
		out = append(out, &Notes{Prefix: "warning: ", Lines: rec.Warnings})
	}
	if rec.Error != "" {
		out = append(out, &Notes{Prefix: "ended early: ", Lines: []string{rec.Error}})
	}
	return out
}
