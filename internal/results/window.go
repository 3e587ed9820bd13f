package results

import "time"

// Window is a span (From, To] of the run's clock: the measured phase, or any
// part of a run an analysis looks at.
type Window struct {
	From, To time.Time
}

// Holds reports whether a row whose interval is (end − length, end] falls in
// w. It is the one rule for the rows of every file (timeline.csv, waits.csv,
// server.csv, os.csv) and every analysis (checks, compare, experiment,
// evidence): a row falls in the window when its interval's midpoint
// m = end − length/2 does, From < m ≤ To. So a row counts in exactly one of
// two adjacent windows, a row that straddles a boundary goes where most of
// it lies, and a collector's last row (taken at the first grid point at or
// after the run's end, up to one interval late) counts when it lies mostly
// inside. An instant (length 0: an event) falls in w when From < end ≤ To.
// A zero window (From and To zero) holds nothing.
func (w Window) Holds(end time.Time, length time.Duration) bool {
	if length < 0 {
		length = 0
	}
	m := end.Add(-length / 2)
	return m.After(w.From) && !m.After(w.To)
}

// Known reports whether the window has a start and ends after it.
func (w Window) Known() bool { return !w.From.IsZero() && w.To.After(w.From) }
