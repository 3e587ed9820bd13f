package results

import "time"

// WindowValue is one of trial.Config.WindowQueries' results: a query run on
// the run's own session at the measured window's start and at its end
// (e.g. TPC-C-like's sum(d_next_o_id), for NOPM).
type WindowValue struct {
	Query   string    `json:"query"`
	Start   float64   `json:"start"`
	End     float64   `json:"end"`
	StartAt time.Time `json:"start_at,omitzero"`
	EndAt   time.Time `json:"end_at,omitzero"`
	// Missing says why a value is absent (the query failed, the run
	// ended before its window); then Start and End mean nothing.
	Missing string `json:"missing,omitempty"`
}
