package engine

import (
	"testing"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/prng"
)

// hotClient is a client of an open-model run, without a connection, for the
// per-transaction schedule and record path.
func hotClient(cut bool) (*client, *metrics.Set) {
	set := metrics.NewSet(1, metrics.Layout{Scripts: 1})
	e := &engine{cfg: &Config{Metrics: set, CutAtEnd: cut}, endTime: 1 << 40, sessions: set.Sessions(1)}
	if cut {
		e.windowEnd.Store(1 << 40)
	}
	rnd := prng.Derive(1, 1, 1, false).Threads[0].Throttle
	g := &group{sched: newSchedule(Poisson, 100, 0, &rnd)}
	c := &client{e: e, g: g, rec: set.Recorder(0), tries: 1}
	return c, set
}

// BenchmarkScheduleRecord is the open model's per-transaction bookkeeping
// around the server's work: the next slot of the schedule, the checks
// against the window's end (CutAtEnd), and the record of the committed
// transaction. It allocates nothing (the records' buffers are drained as
// the trial's recorder drains them).
func BenchmarkScheduleRecord(b *testing.B) {
	for _, cut := range []bool{false, true} {
		name := "pgbench"
		if cut {
			name = "cut"
		}
		b.Run(name, func(b *testing.B) {
			c, set := hotClient(cut)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				c.scheduled = c.g.sched.next()
				c.begin = c.scheduled + 10
				end := c.begin + 100
				if c.afterWindow(c.begin) || c.afterWindow(end) {
					b.Fatal("after the window")
				}
				c.record(metrics.Committed, end)
				if i%4096 == 4095 {
					set.Drain()
				}
			}
		})
	}
}

// The per-transaction path allocates nothing once the records' buffers
// have grown: the schedule, the window checks, the session counts (busy,
// idle), the record of a committed transaction and of a cut one.
func TestScheduleRecordAllocs(t *testing.T) {
	c, set := hotClient(true)
	step := func() {
		c.scheduled = c.g.sched.next()
		c.begin = c.scheduled + 10
		_ = c.afterWindow(c.begin + 100)
		c.setBusy(true)
		c.setBusy(false)
		c.record(metrics.Committed, c.begin+100)
		c.recordCut(metrics.Unfinished, c.begin+200)
	}
	for range 1000 {
		step()
	}
	set.Drain()
	set.Drain()
	if n := testing.AllocsPerRun(500, step); n != 0 {
		t.Errorf("%v allocations per transaction, want 0", n)
	}
}
