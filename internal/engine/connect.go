package engine

// connect.go: how the engine dials. The initial connections go out at a
// bounded rate and concurrency, each with a timeout, and the first failure
// stops the rest (connectAll); a client that lost its connection dials
// again after an exponential backoff with full jitter (reconnectDelay).

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Defaults of Config.ConnectRate, ConnectConcurrency and ConnectTimeout.
//
// The postmaster forks a backend per connection, and the backend's start
// (fork, authentication, catalog caches) is the cost of a dial on the
// server's side. On the development machine (2 shared cores, PostgreSQL
// 15, loopback, trust) pgbench -C made 134 connections/s from one client
// (6.6 ms each), 230/s from two and 259/s from four: the postmaster
// saturates near 260 forks/s there. 200/s stays below that on a small
// machine, so the dials never queue in the postmaster (where they would
// time out together), and connects 1,000 clients in 5 s.
//
// 32 in flight is what 200/s needs when a dial takes 150 ms (rate × time
// in flight, Little's law: a remote server with TLS and SCRAM, ~3 round
// trips of 50 ms); on loopback a dial takes ~7 ms and about 2 are in flight,
// so the bound only matters when the server is slow to accept, which is
// when an unbounded burst (426 dials in flight against max_connections 30)
// did harm.
//
// 10 s is libpq's advice for connect_timeout's lower end ("not less than
// 2 s") with room for a loaded server; a connection string's own
// connect_timeout wins.
const (
	DefaultConnectRate        = 200.0 // dials per second
	DefaultConnectConcurrency = 32    // dials in flight
	DefaultConnectTimeout     = 10 * time.Second
)

// Reconnect backoff (Config.Reconnect): the delay before attempt n+1
// after n failed attempts is uniform in [0, min(reconnectMax,
// reconnectBase·2^(n−1))) (full jitter), µs on the engine clock. After a
// success the next loss starts again at one immediate attempt.
const (
	reconnectBase = 10_000    // µs: 10 ms
	reconnectMax  = 1_000_000 // µs: 1 s
	// reconnectLogEvery: a client that keeps failing logs its error at the
	// first failure of a series and then at most once per this (µs).
	reconnectLogEvery = 5_000_000
)

// connectRate is the initial dials' rate (per second; 0: no limit).
func (e *engine) connectRate() float64 {
	switch r := e.cfg.ConnectRate; {
	case r < 0:
		return 0
	case r == 0:
		return DefaultConnectRate
	default:
		return r
	}
}

// connectConcurrency is how many initial dials may be in flight.
func (e *engine) connectConcurrency() int {
	if n := e.cfg.ConnectConcurrency; n > 0 {
		return n
	}
	return DefaultConnectConcurrency
}

// startDialing makes the context of every dial of the run: ctx's, also
// cancelled when the engine stops (an interrupt, --exit-on-abort), so a
// reconnect in progress does not hold a client past the stop. The returned
// func releases it.
func (e *engine) startDialing(ctx context.Context) func() {
	dctx, cancel := context.WithCancel(ctx)
	e.dialCtx = dctx
	go func() {
		select {
		case <-e.stopCh:
			cancel()
		case <-dctx.Done():
		}
	}()
	return cancel
}

// dial makes one connection within ctx, bounded by the connect timeout:
// the connection string's connect_timeout when it has one (pgconn applies
// it to each host it tries), else Config.ConnectTimeout (DefaultConnectTimeout
// when 0; none when negative, libpq's behaviour).
func (e *engine) dial(ctx context.Context, w fdWaiter) (*wireConn, error) {
	if e.cfg.Conn.ConnectTimeout == 0 && e.cfg.ConnectTimeout >= 0 {
		d := e.cfg.ConnectTimeout
		if d == 0 {
			d = DefaultConnectTimeout
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	return dial(ctx, e.cfg.Conn, e.ncmds, e.cfg.OnNotice, w)
}

// connectAll calls dial for 0 … n−1, in order: dial k starts no earlier
// than k/rate s after the first (rate ≤ 0: no pacing) and at most conc run
// at once. The first failure cancels the context of the dials in flight
// and starts no more; connectAll then waits for those in flight and
// returns the failure of the lowest index, not counting the cancellations
// it caused (with ctx cancelled: ctx's error). A dial that succeeded keeps
// what it made; the caller closes it.
func connectAll(ctx context.Context, n int, rate float64, conc int, dial func(ctx context.Context, i int) error) (int, error) {
	if conc < 1 {
		conc = 1
	}
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		failed  bool
		errIdx  = -1
		errDial error
	)
	sem := make(chan struct{}, conc)
	var gap time.Duration
	if rate > 0 {
		gap = time.Duration(float64(time.Second) / rate)
	}
	t0 := time.Now()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
start:
	for i := 0; i < n; i++ {
		if gap > 0 && i > 0 {
			if d := time.Until(t0.Add(time.Duration(i) * gap)); d > 0 {
				if timer == nil {
					timer = time.NewTimer(d)
				} else {
					timer.Reset(d)
				}
				select {
				case <-timer.C:
				case <-dctx.Done():
					break start
				}
			}
		}
		select {
		case sem <- struct{}{}:
		case <-dctx.Done():
			break start
		}
		if dctx.Err() != nil {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			err := dial(dctx, i)
			if err == nil {
				return
			}
			mu.Lock()
			// A dial ended by the cancellation below is not a failure of
			// its own.
			if !failed || !errors.Is(err, context.Canceled) {
				if errIdx < 0 || i < errIdx {
					errIdx, errDial = i, err
				}
			}
			failed = true
			mu.Unlock()
			cancel()
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return -1, err
	}
	return errIdx, errDial
}

// backoff is a client's state between failed reconnects.
type backoff struct {
	fails   int    // failed attempts in the current series
	retryAt int64  // µs: no dial before this
	logged  int64  // µs: when the series' error was last logged
	rnd     uint64 // splitmix64 state: the jitter's own stream
}

// newBackoff seeds a client's jitter from the run's random seed and the
// client's number. It reads the seed, draws nothing from the script's
// streams: those stay bit-exact with pgbench.
func newBackoff(seed int64, client int) backoff {
	return backoff{rnd: uint64(seed) ^ (uint64(client)+1)*0x9e3779b97f4a7c15}
}

// uint64 is splitmix64's next value.
func (b *backoff) uint64() uint64 {
	b.rnd += 0x9e3779b97f4a7c15
	z := b.rnd
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// failed notes a failed attempt at engine time now: the next is allowed
// after a delay uniform in [0, min(reconnectMax, reconnectBase·2^(fails−1))).
// It reports whether the failure should be logged: the first of a series,
// then at most every reconnectLogEvery.
func (b *backoff) failed(now int64) bool {
	b.fails++
	ceil := int64(reconnectMax)
	if b.fails <= 20 {
		ceil = min(ceil, int64(reconnectBase)<<(b.fails-1))
	}
	b.retryAt = now + int64(b.uint64()%uint64(ceil))
	if b.fails == 1 || now-b.logged >= reconnectLogEvery {
		b.logged = now
		return true
	}
	return false
}

// succeeded ends a series of failures.
func (b *backoff) succeeded() { b.fails, b.retryAt = 0, 0 }
