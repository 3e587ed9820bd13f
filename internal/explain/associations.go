package explain

import "github.com/pgtrial/pgtrial/internal/results"

// associations is the run's waits against speed and latency across intervals (not built yet: nil).
func associations(in *runInput) (*results.Associations, []string) {
	_ = in
	return nil, nil
}
