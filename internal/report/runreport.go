package report

import (
	"github.com/pgtrial/pgtrial/internal/results"
)

// RunReport is the report of one run, made from its run directory alone
// (DESIGN: the run directory is the only contract): the header (the question
// in one line, target, settings that matter, data against memory, command
// line, tool, times), the summary table, the timeline with its linked
// panels and markers, the percentile spectrum, the statements, the
// evidence and the checklist. A run that was interrupted or crashed gives
// the report of what the directory holds, saying so at the top.
//
// STUB (contract): the helper that owns runreport*.go replaces it.
func RunReport(dir string) (*Doc, error) {
	run, err := results.Load(dir)
	if err != nil {
		return nil, err
	}
	return &Doc{Title: "run " + run.Workload.Name}, nil
}
