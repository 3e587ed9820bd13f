package explain

import (
	"github.com/pgtrial/pgtrial/internal/results"
)

// Run computes the findings of the run directory dir, whose run.json is run
// (the caller's copy: at the end of a run it is not written yet). Each part
// reads the files it needs; a part whose evidence is missing is nil, with a
// warning that says why. It never fails: what cannot be explained is
// said so in Warnings.
func Run(dir string, run *results.Run, cfg Config) *results.Findings {
	f := &results.Findings{Schema: results.FindingsSchema, Settings: cfg.Changed()}
	in := &runInput{dir: dir, run: run, cfg: cfg}
	var w []string
	f.Changes, w = changes(in)
	f.Warnings = append(f.Warnings, w...)
	f.Tail, w = tail(in)
	f.Warnings = append(f.Warnings, w...)
	f.Alarms, w = alarms(in)
	f.Warnings = append(f.Warnings, w...)
	f.Associations, w = associations(in)
	f.Warnings = append(f.Warnings, w...)
	f.Pareto, w = pareto(in)
	f.Warnings = append(f.Warnings, w...)
	return f
}

// runInput is what every part of Run starts from.
type runInput struct {
	dir string
	run *results.Run
	cfg Config
}
