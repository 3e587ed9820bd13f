package explain

import "github.com/pgtrial/pgtrial/internal/results"

// changes is the run's level shifts in tps, p99 and lag matched to occurrences (not built yet: nil).
func changes(in *runInput) (*results.Changes, []string) {
	_ = in
	return nil, nil
}
