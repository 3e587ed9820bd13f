package results

import (
	"context"
	"sync"
	"time"
)

// Clock is a run's clock: its zero is the bench start (every client
// connected, the first phase begins), and "elapsed_s" in every CSV file of
// the run directory is seconds from it, so a row at elapsed_s = 5 means the
// same instant in timeline.csv, waits.csv, server.csv and os.csv. The zero
// is set once, by Start; the collectors, which begin before the clients
// have connected, Wait for it and sample on its grid. It is recorded in
// run.json as Run.BenchStart. A Clock (made by NewClock) is safe for
// concurrent use.
type Clock struct {
	once  sync.Once
	mu    sync.Mutex
	zero  time.Time
	ready chan struct{} // closed by Start
}

// NewClock is a clock not yet started.
func NewClock() *Clock { return &Clock{ready: make(chan struct{})} }

// Start sets the clock's zero to t; only the first call counts. It reports
// whether this call set it.
func (c *Clock) Start(t time.Time) bool {
	set := false
	c.once.Do(func() {
		c.mu.Lock()
		c.zero = t
		c.mu.Unlock()
		close(c.ready)
		set = true
	})
	return set
}

// Zero is the clock's zero; ok is false before Start.
func (c *Clock) Zero() (zero time.Time, ok bool) {
	select {
	case <-c.ready:
	default:
		return time.Time{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.zero, true
}

// Wait returns the zero once the clock has started, or ctx's error.
func (c *Clock) Wait(ctx context.Context) (time.Time, error) {
	select {
	case <-c.ready:
		z, _ := c.Zero()
		return z, nil
	case <-ctx.Done():
		return time.Time{}, context.Cause(ctx)
	}
}
