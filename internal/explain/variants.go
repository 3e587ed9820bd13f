package explain

// VariantChange is one variant against the first: the change of each
// figure per level and over the ramp, with its interval and verdict.
type VariantChange struct{}

// variants compares each variant with the first (not built yet).
func variants(in *ExperimentInput, cfg Config) ([]*VariantChange, []string) {
	_, _ = in, cfg
	return nil, nil
}
