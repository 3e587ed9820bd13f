package explain

import "github.com/pgtrial/pgtrial/internal/results"

// alarms is the run's OS alarms (not built yet: nil).
func alarms(in *runInput) (*results.Alarms, []string) {
	_ = in
	return nil, nil
}
