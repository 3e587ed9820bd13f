package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakeDials is a dialer for connectAll: each dial takes hold of time, and
// the dials listed in fail fail; it records when each started and the most
// in flight at once.
type fakeDials struct {
	hold time.Duration
	fail map[int]error

	mu       sync.Mutex
	started  map[int]time.Duration // since t0
	inFlight int
	maxIn    int
	t0       time.Time
}

func (f *fakeDials) dial(ctx context.Context, i int) error {
	f.mu.Lock()
	f.started[i] = time.Since(f.t0)
	f.inFlight++
	f.maxIn = max(f.maxIn, f.inFlight)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	if err, ok := f.fail[i]; ok {
		return err
	}
	select {
	case <-time.After(f.hold):
		return nil
	case <-ctx.Done():
		return fmt.Errorf("dial %d: %w", i, ctx.Err())
	}
}

func newFakeDials(hold time.Duration, fail map[int]error) *fakeDials {
	return &fakeDials{hold: hold, fail: fail, started: map[int]time.Duration{}, t0: time.Now()}
}

// The initial dials are paced at the rate and bounded in number in flight:
// on synctest's clock, dial k starts at k/rate when the dials are quick,
// and never more than conc run at once when they are slow.
func TestConnectAllPacesAndBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Quick dials (1 ms) at 200/s: dial k starts at exactly k·5 ms.
		f := newFakeDials(time.Millisecond, nil)
		if i, err := connectAll(context.Background(), 50, 200, 32, f.dial); err != nil {
			t.Fatalf("connectAll: client %d: %v", i, err)
		}
		if len(f.started) != 50 {
			t.Fatalf("%d dials, want 50", len(f.started))
		}
		for k := range 50 {
			if want := time.Duration(k) * 5 * time.Millisecond; f.started[k] != want {
				t.Errorf("dial %d started at %v, want %v", k, f.started[k], want)
			}
		}
		if f.maxIn != 1 {
			t.Errorf("%d dials in flight at once, want 1 (each takes 1 ms of its 5 ms)", f.maxIn)
		}

		// Slow dials (1 s) at 200/s, at most 32 in flight: the 33rd waits
		// for the first to end, and the bound holds throughout.
		f = newFakeDials(time.Second, nil)
		start := time.Now()
		if _, err := connectAll(context.Background(), 100, 200, 32, f.dial); err != nil {
			t.Fatal(err)
		}
		if f.maxIn != 32 {
			t.Errorf("%d dials in flight at most, want 32", f.maxIn)
		}
		if got, want := f.started[32], time.Second; got != want {
			t.Errorf("dial 32 started at %v, want %v (when dial 0 ended)", got, want)
		}
		// 100 dials of 1 s, 32 at a time: 4 waves (32+32+32+4), the last
		// wave starting at 3 s + its pacing.
		if d := time.Since(start); d < 4*time.Second || d > 4*time.Second+200*time.Millisecond {
			t.Errorf("100 slow dials took %v, want 4 s and a little", d)
		}

		// No rate limit (the pgbench front end): everything at once, up to
		// the bound.
		f = newFakeDials(time.Second, nil)
		if _, err := connectAll(context.Background(), 10, 0, 4, f.dial); err != nil {
			t.Fatal(err)
		}
		if f.maxIn != 4 || f.started[3] != 0 || f.started[4] != time.Second {
			t.Errorf("unpaced, 4 in flight: max %d, dial 3 at %v, dial 4 at %v", f.maxIn, f.started[3], f.started[4])
		}
	})
}

// The first failure stops the dials: no new one starts, those in flight
// are cancelled, and the failure (not the cancellations it caused) is what
// connectAll returns.
func TestConnectAllStopsAtFirstFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tooMany := errors.New("FATAL: sorry, too many clients already (SQLSTATE 53300)")
		f := newFakeDials(time.Hour, map[int]error{5: tooMany})
		start := time.Now()
		i, err := connectAll(context.Background(), 100000, 200, 32, f.dial)
		if i != 5 || !errors.Is(err, tooMany) {
			t.Errorf("connectAll = client %d, %v; want client 5, %v", i, err, tooMany)
		}
		if len(f.started) != 6 {
			t.Errorf("%d dials started, want 6 (none after the failure)", len(f.started))
		}
		// Dials 0–4 hang for an hour; the failure cancels them at once.
		if d := time.Since(start); d != 25*time.Millisecond {
			t.Errorf("connectAll returned after %v, want 25 ms (dial 5's start)", d)
		}

		// Two failures: the lowest client's is reported.
		f = newFakeDials(time.Hour, map[int]error{3: errors.New("three"), 1: errors.New("one")})
		f.hold = 0
		if i, err := connectAll(context.Background(), 10, 0, 10, f.dial); i != 1 || err == nil || err.Error() != "one" {
			t.Errorf("two failures: client %d, %v; want client 1, one", i, err)
		}

		// An interrupt during the dials: ctx's error.
		ctx, cancel := context.WithCancel(context.Background())
		f = newFakeDials(time.Hour, nil)
		time.AfterFunc(102*time.Millisecond, cancel) // not at a dial's instant: the order of the two would be a race
		if _, err := connectAll(ctx, 1000, 200, 32, f.dial); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled: %v, want context.Canceled", err)
		}
		if len(f.started) != 21 {
			t.Errorf("cancelled at 102 ms: %d dials started, want 21 (0 … 100 ms at 5 ms)", len(f.started))
		}
	})
}

// The reconnect backoff: the delay after n failures is below
// min(1 s, 10 ms·2^(n−1)), spread (full jitter) rather than fixed, the
// same for the same seed and client, different between clients; a
// success starts again from no delay; the failure is logged at the first
// of a series, then at most every 5 s.
func TestReconnectBackoff(t *testing.T) {
	b := newBackoff(42, 7)
	now := int64(0)
	var delays []int64
	var logged []int
	for n := 1; n <= 40; n++ {
		if b.failed(now) {
			logged = append(logged, n)
		}
		d := b.retryAt - now
		ceil := min(int64(reconnectMax), int64(reconnectBase)<<min(n-1, 20))
		if d < 0 || d >= ceil {
			t.Errorf("failure %d: delay %d µs, want in [0, %d)", n, d, ceil)
		}
		delays = append(delays, d)
		now = b.retryAt
	}
	// 40 failures within the series: a few seconds of retries (the ceiling
	// of 1 s reached after 7), not 40 dials in a burst nor minutes.
	if now < 5_000_000 || now > 40_000_000 {
		t.Errorf("40 failed attempts span %.1f s, want between 5 and 40", float64(now)/1e6)
	}
	if len(logged) < 2 || logged[0] != 1 || len(logged) > 1+int(now/reconnectLogEvery) {
		t.Errorf("logged at failures %v over %.1f s; want the first, then at most one per 5 s", logged, float64(now)/1e6)
	}
	same := newBackoff(42, 7)
	other := newBackoff(42, 8)
	var sameAll, differ = true, false
	now = 0
	for n := 1; n <= 10; n++ {
		same.failed(now)
		other.failed(now)
		sameAll = sameAll && same.retryAt-now == delays[n-1]
		differ = differ || other.retryAt != same.retryAt
		now = same.retryAt
	}
	if !sameAll || !differ {
		t.Errorf("same seed and client repeat the delays: %v; another client's differ: %v", sameAll, differ)
	}
	b.succeeded()
	if b.fails != 0 || b.retryAt != 0 {
		t.Errorf("after a success: %d failures, retry at %d", b.fails, b.retryAt)
	}
	if !b.failed(now) || b.retryAt-now >= reconnectBase {
		t.Errorf("a new series starts logged, below %d µs: delay %d", reconnectBase, b.retryAt-now)
	}
}
