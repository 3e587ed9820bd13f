package explain

import (
	"github.com/pgtrial/pgtrial/internal/results"
)

// ExperimentInput is an experiment's runs as its analysis sees them.
type ExperimentInput struct {
	Dir string // the experiment directory
	// By is a ramp's unit, "clients" or "rate"; "" for a fixed load (one
	// level, 0).
	By       string
	Levels   []float64 // a ramp's levels in order; nil for a fixed load
	Variants []string  // in the file's order; the first is the baseline
	Runs     []ExpRun  // every run with a summary, in the order run
	// Primary is the metric the verdicts are held to ("tps", "p99", …;
	// "" the default: tps closed, p99 open), Margin the equivalence margin
	// (0: the default), as compare.Options.
	Primary     string
	Margin      float64
	Interleaved bool // the variants' repeats were interleaved in rounds
	Seed        uint64
}

// ExpRun is one run of an experiment.
type ExpRun struct {
	Variant string
	Level   float64 // the ramp's level; 0 for a fixed load
	Repeat  int     // 1-based: the round, when interleaved
	Dir     string  // the run directory
	Run     *results.Run
}

// ExperimentFindings are an experiment's findings, kept in experiment.json.
// Each part is nil when it does not apply or its evidence is missing
// (Warnings say why).
type ExperimentFindings struct {
	Schema string `json:"schema"` // results.FindingsSchema

	Ramp         *Ramp              `json:"ramp,omitempty"`         // per level and variant, trends, knee (ramp.go)
	Variants     []*VariantChange   `json:"variants,omitempty"`     // each variant against the first (variants.go)
	Associations *LevelAssociations `json:"associations,omitempty"` // across levels and runs (levels.go)
	Alarms       []*RunAlarms       `json:"alarms,omitempty"`       // OS alarms per variant and level (levels.go)
	Plans        *PlanChanges       `json:"plans,omitempty"`        // plans that changed between variants (plans.go)
	Pareto       []*VariantPareto   `json:"pareto,omitempty"`       // per variant, over its runs (pareto.go)

	Warnings []string `json:"warnings,omitempty"`
}

// Experiment computes an experiment's findings from its runs. It never
// fails: what cannot be explained is said so in Warnings.
func Experiment(in *ExperimentInput, cfg Config) *ExperimentFindings {
	f := &ExperimentFindings{Schema: results.FindingsSchema}
	var w []string
	f.Ramp, w = ramp(in, cfg)
	f.Warnings = append(f.Warnings, w...)
	f.Variants, w = variants(in, cfg)
	f.Warnings = append(f.Warnings, w...)
	f.Associations, f.Alarms, w = levels(in, cfg)
	f.Warnings = append(f.Warnings, w...)
	f.Plans, w = plans(in, cfg)
	f.Warnings = append(f.Warnings, w...)
	f.Pareto, w = variantParetos(in, cfg)
	f.Warnings = append(f.Warnings, w...)
	return f
}
