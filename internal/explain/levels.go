package explain

// LevelAssociations are each wait type's and event's association with
// speed and latency across an experiment's levels and runs, also after
// removing the level (partial correlation), and the ranking that replaces
// pg_expecto's "weighted correlation".
type LevelAssociations struct{}

// RunAlarms are the OS alarms of one variant at one level, over its runs.
type RunAlarms struct{}

// levels computes the associations across levels and the OS alarms per
// variant and level (not built yet).
func levels(in *ExperimentInput, cfg Config) (*LevelAssociations, []*RunAlarms, []string) {
	_, _ = in, cfg
	return nil, nil, nil
}
