package trial

import (
	"strconv"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
)

// slowest is how many of each interval's slowest transactions the run keeps
// (metrics.Layout.Slowest) for slow.csv: Config.SlowPerInterval, its default
// results.SlowPerInterval when 0, none when negative, and none without a
// run directory (the selection then costs nothing).
func (c *Config) slowest() int {
	switch {
	case c.Dir == "" || c.SlowPerInterval < 0:
		return 0
	case c.SlowPerInterval == 0:
		return results.SlowPerInterval
	}
	return c.SlowPerInterval
}

// slowWriter writes slow.csv: each interval's slowest transactions
// (metrics.Interval.Slow, slowest first), on the run's clock.
type slowWriter struct {
	w     *results.CSVWriter
	zero  time.Time // the run's clock zero (the bench start)
	shift int64     // µs from the clock zero to the engine's start (≤ 0: the engine starts before the bench)
	names []string  // script names
}

// newSlowWriter creates slow.csv in dir for an engine that started at
// engineStart (engine.Result.Start, the zero of metrics.SlowTx.End) in a
// run whose clock zero is zero.
func newSlowWriter(dir string, zero, engineStart time.Time, names []string) (*slowWriter, error) {
	w, err := results.CreateSlow(dir)
	if err != nil {
		return nil, err
	}
	// A whole number of µs, so that every time of a row is an exact µs and
	// response = end − intended holds to the µs in the file.
	shift := int64(engineStart.Sub(zero).Round(time.Microsecond) / time.Microsecond)
	return &slowWriter{w: w, zero: zero, shift: shift, names: names}, nil
}

// row is st, one of the slowest of iv, as a slow.csv row:
//
//	end_s      = (shift + End) / 10⁶
//	intended_s = end_s − Response / 10⁶
//	start_s    = end_s − Service / 10⁶
//
// and response, service, lag in ms.
func (s *slowWriter) row(iv *metrics.Interval, st *metrics.SlowTx) results.SlowRow {
	end := s.shift + st.End
	script := strconv.Itoa(st.Script)
	if st.Script >= 0 && st.Script < len(s.names) {
		script = s.names[st.Script]
	}
	const us, ms = 1e-6, 1e-3
	return results.SlowRow{
		Time:       iv.End,
		Elapsed:    iv.End.Sub(s.zero).Seconds(),
		Script:     script,
		Outcome:    st.Outcome.String(),
		Client:     st.Client,
		PID:        st.PID,
		IntendedS:  float64(end-st.Response) * us,
		StartS:     float64(end-st.Service) * us,
		EndS:       float64(end) * us,
		ResponseMs: float64(st.Response) * ms,
		ServiceMs:  float64(st.Service) * ms,
		LagMs:      float64(st.Lag) * ms,
		Tries:      int(st.Tries),
	}
}

// write appends iv's slowest transactions and flushes them to the
// operating system (an interrupted run keeps every interval written).
func (s *slowWriter) write(iv *metrics.Interval) error {
	for i := range iv.Slow {
		if err := s.w.Write(s.row(iv, &iv.Slow[i]).Record()); err != nil {
			return err
		}
	}
	return s.w.Flush()
}

// close flushes, fsyncs and closes slow.csv.
func (s *slowWriter) close() error { return s.w.Close() }
