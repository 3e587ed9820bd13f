package engine

import (
	"testing"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// What the client records for the slowest transactions: the end on the
// engine's clock and the connection's pid for committed, failed and
// unfinished transactions (a failed one with its times), none for a
// skipped slot or an unstarted one.
func TestRecordEndAndPID(t *testing.T) {
	c, _ := hotClient(true)
	c.scheduled, c.begin, c.pid, c.tries = 1000, 1500, 4242, 2
	check := func(name string, want metrics.Tx) {
		t.Helper()
		if c.tx != want {
			t.Errorf("%s: recorded %+v, want %+v", name, c.tx, want)
		}
	}
	c.record(metrics.Committed, 4000)
	check("committed", metrics.Tx{Outcome: metrics.Committed, Tries: 2, Response: 3000, Service: 2500, Lag: 500, End: 4000, PID: 4242})
	c.record(metrics.FailedSerialization, 5000)
	check("failed", metrics.Tx{Outcome: metrics.FailedSerialization, Tries: 2, Response: 4000, Service: 3500, Lag: 500, End: 5000, PID: 4242})
	c.record(metrics.Skipped, 0)
	check("skipped", metrics.Tx{Outcome: metrics.Skipped})
	c.recordCut(metrics.Unfinished, 6000)
	check("unfinished", metrics.Tx{Outcome: metrics.Unfinished, Tries: 2, Response: 5000, Service: 4500, Lag: 500, End: 6000, PID: 4242})
	c.recordCut(metrics.Unstarted, 6000)
	check("unstarted", metrics.Tx{Outcome: metrics.Unstarted, Response: 5000, Lag: 5000, End: 6000})
}
