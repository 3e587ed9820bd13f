package explain

// PlanChanges are the scripts' statements whose plan shape differs
// between variants (from each run's plans.json).
type PlanChanges struct{}

// plans finds the plans that changed between variants (not built yet).
func plans(in *ExperimentInput, cfg Config) (*PlanChanges, []string) {
	_, _ = in, cfg
	return nil, nil
}
