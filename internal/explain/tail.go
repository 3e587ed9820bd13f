package explain

import "github.com/pgtrial/pgtrial/internal/results"

// tail is the run's why the slowest transactions were slow (not built yet: nil).
func tail(in *runInput) (*results.Tail, []string) {
	_ = in
	return nil, nil
}
