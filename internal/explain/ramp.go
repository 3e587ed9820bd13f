package explain

// Ramp is a ramp's analysis: per level and variant its speed, latency,
// waits, OS and disk figures; trends over the levels; the knee.
type Ramp struct{}

// ramp analyses a ramp (nil for a fixed load; not built yet).
func ramp(in *ExperimentInput, cfg Config) (*Ramp, []string) {
	_, _ = in, cfg
	return nil, nil
}
