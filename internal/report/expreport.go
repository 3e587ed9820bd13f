package report

import (
	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/experiment"
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
// STUB (contract): the helper that owns expreport*.go replaces it.
func ExperimentReport(dir string, rec *experiment.Record) (*Doc, error) {
	return Experiment(rec, dir), nil
}

// CompareReport is the report of `pgtrial compare`: the comparison's table
// and verdicts, the forest plot and per metric the runs of A and B as dots.
//
// STUB (contract): the helper that owns expreport*.go replaces it.
func CompareReport(rep *compare.Report) *Doc {
	return Compare(rep)
}
