package report

import (
	"fmt"
	"path/filepath"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/report/format"
)

// Demo is the demo's report: the closed-model ceiling, the open model at
// three fractions of it, the stall in both models, the checklist and where
// the run directories are. dir is the demo's experiment directory.
func Demo(rec *experiment.Record, dir string) *Doc {
	d := &Doc{Title: fmt.Sprintf("pgtrial demo: %s (scale %d) on %s (PostgreSQL %s)", rec.Workload, rec.Scale, targetText(rec), rec.Target.ServerVersion)}
	var closed []float64
	for _, r := range rec.Runs {
		if r.Variant == experiment.DemoClosed {
			closed = append(closed, r.TPS)
		}
	}
	if len(closed) > 0 {
		d.Add(&Lines{Lines: []string{fmt.Sprintf("closed-model ceiling: %s tx/s, median (min–max) of %d %s of %s",
			format.Spread(closed, format.Rate), len(closed), format.Plural(len(closed), "run", "runs"), format.Seconds(rec.WindowS))}})
	}
	d.Add(demoLevels(rec))
	if t := demoStall(rec); t != nil {
		d.Add(t)
	}
	d.Add(endBlocks(rec)...)
	d.Add(&Lines{Lines: []string{fmt.Sprintf("run directories: %s (%s); compare two of them with pgtrial compare", filepath.Join(dir, experiment.RunsDir), experiment.File)}})
	return d
}

// demoLevels is the open model's table: each level's target rate and
// latencies as median (min–max) over its completed repeats.
func demoLevels(rec *experiment.Record) *Table {
	t := &Table{
		Title: "open model (latency from the intended start), -L 100 ms; median (min–max) of the repeats:",
		Head:  []string{"load", "rate tx/s", "p50 ms", "p95 ms", "p99 ms", "skipped %"},
		Notes: []string{`read p99 together with the skipped share: -L moves the latest transactions out of the latency into "skipped"`},
	}
	for _, f := range experiment.DemoFractions() {
		name := experiment.DemoLevel(f)
		var p50, p95, p99, sk []float64
		rate := 0.0
		for _, r := range rec.Runs {
			if r.Variant == name && r.Error == "" {
				p50, p95, p99, sk = append(p50, r.P50), append(p95, r.P95), append(p99, r.P99), append(sk, r.SkippedShare)
				rate = r.Rate
			}
		}
		rateCell := Text(format.Sig3(rate))
		if len(p50) == 0 {
			rateCell = Absent("no run of the level completed")
		}
		t.Rows = append(t.Rows, []Cell{Text(format.Pct(f)), rateCell, Text(format.Spread(p50, format.Ms)),
			Text(format.Spread(p95, format.Ms)), Text(format.Spread(p99, format.Ms)), Text(format.Spread(sk, percent))})
	}
	return t
}

// demoStallRuns are the demo's stall-closed and stall-open runs (the last
// of each), nil for one the record does not have.
func demoStallRuns(rec *experiment.Record) (closed, open *experiment.RunRecord) {
	for i := range rec.Runs {
		switch rec.Runs[i].Variant {
		case experiment.DemoStallClosed:
			closed = &rec.Runs[i]
		case experiment.DemoStallOpen:
			open = &rec.Runs[i]
		}
	}
	return closed, open
}

// demoStall is the stall's table, the closed-model run against the
// open-model one under the same lock; nil without both runs.
func demoStall(rec *experiment.Record) *Table {
	sc, so := demoStallRuns(rec)
	if sc == nil || so == nil {
		return nil
	}
	lock := ""
	if len(rec.Injections) > 0 {
		in := rec.Injections[0]
		lock = fmt.Sprintf("%s ACCESS EXCLUSIVE lock on %s at %s", format.Seconds(in.DurationS), in.Table, format.Seconds(in.AtS))
	}
	t := &Table{
		Title: fmt.Sprintf("stall (%s), no latency limit:", lock),
		Head:  []string{"model", "tps", "p50 ms", "p99 ms", "max ms", "service p99 ms"},
	}
	t.AddRow("closed", format.Rate(sc.TPS), format.Ms(sc.P50), format.Ms(sc.P99), format.Ms(sc.Max), format.Ms(sc.ServiceP99))
	t.AddRow("open "+format.Sig3(so.Rate)+" tx/s", format.Rate(so.TPS), format.Ms(so.P50), format.Ms(so.P99), format.Ms(so.Max), format.Ms(so.ServiceP99))
	if sc.P99 > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("the open model's p99 is %s× the closed model's: the closed clients stopped sending during the stall (coordinated omission), the open schedule kept arriving",
			format.Sig3(so.P99/sc.P99)))
	}
	return t
}
