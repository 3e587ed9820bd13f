package report

import (
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/results"
)

// The findings (internal/explain) as people read them. Each part has its
// own file (findings_*.go); this file puts them in order: the run's in the
// run summary and the run report after the evidence, the experiment's in
// its summary after the ramp and the comparisons.

// RunFindingsBlocks are a run's findings: the changes in its timeline and
// what happened near them, why the tail was slow, the OS alarms, the
// associations and the Pareto of waits and statements; nil when there are
// none.
func RunFindingsBlocks(f *results.Findings) []Block {
	if f == nil {
		return nil
	}
	var out []Block
	out = append(out, changesBlocks(f.Changes)...)
	out = append(out, tailBlocks(f.Tail)...)
	out = append(out, alarmsBlocks(f.Alarms)...)
	out = append(out, associationsBlocks(f.Associations)...)
	out = append(out, paretoBlocks(f.Pareto)...)
	if len(f.Warnings) > 0 {
		out = append(out, &Notes{Prefix: "findings: ", Lines: redactAll(f.Warnings)})
	}
	return out
}

// ExperimentFindingsBlocks are an experiment's findings: the ramp's levels,
// trends and knee, each variant against the first, the associations
// across levels, the OS alarms, the plans that changed and each variant's
// Pareto of waits and statements; nil when there are none.
func ExperimentFindingsBlocks(f *explain.ExperimentFindings) []Block {
	if f == nil {
		return nil
	}
	var out []Block
	out = append(out, rampFindingsBlocks(f.Ramp)...)
	out = append(out, variantChangeBlocks(f.Variants)...)
	out = append(out, levelAssociationsBlocks(f.Associations)...)
	out = append(out, runAlarmsBlocks(f.Alarms)...)
	out = append(out, planChangesBlocks(f.Plans)...)
	out = append(out, variantParetoBlocks(f.Pareto)...)
	if len(f.Warnings) > 0 {
		out = append(out, &Notes{Prefix: "findings: ", Lines: redactAll(f.Warnings)})
	}
	return out
}

// experimentFindingsFigures are the charts of an experiment's findings in
// its HTML and Markdown reports, each anchored to its part's block.
func experimentFindingsFigures(rec *experiment.Record, ids *chartIDs) []anchored {
	if rec.Findings == nil {
		return nil
	}
	var out []anchored
	out = append(out, rampFindingsFigures(rec, ids)...)
	return out
}
