package explain

import "github.com/pgtrial/pgtrial/internal/results"

// pareto is the run's Pareto of wait events and statements (not built yet: nil).
func pareto(in *runInput) (*results.Pareto, []string) {
	_ = in
	return nil, nil
}
