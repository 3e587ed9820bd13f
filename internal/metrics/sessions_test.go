package metrics

import (
	"sync"
	"testing"
	"time"
)

// TestSessionsTick: Tick reads the counts at the interval's end and the
// most connected during it; the high-water mark restarts at each tick.
func TestSessionsTick(t *testing.T) {
	s := NewSet(4, Layout{Scripts: 1})
	t0 := time.Unix(0, 0)
	if iv := s.Tick(t0, t0.Add(time.Second)); iv.Sessions != (SessionCounts{}) {
		t.Errorf("no sessions counted: %+v", iv.Sessions)
	}
	ss := s.Sessions(2)
	if s.Sessions(2) != ss {
		t.Fatal("Sessions made twice")
	}
	for range 3 {
		ss.Connect()
	}
	ss.Busy(0)
	ss.Busy(1)
	ss.Idle(1)
	ss.Disconnect()
	iv := s.Tick(t0.Add(time.Second), t0.Add(2*time.Second))
	if want := (SessionCounts{Connected: 2, ConnectedMax: 3, Busy: 1, Idle: 1}); iv.Sessions != want {
		t.Errorf("interval 2: %+v, want %+v", iv.Sessions, want)
	}
	s.Recycle(iv)
	iv = s.Tick(t0.Add(2*time.Second), t0.Add(3*time.Second))
	if want := (SessionCounts{Connected: 2, ConnectedMax: 2, Busy: 1, Idle: 1}); iv.Sessions != want {
		t.Errorf("interval 3 (mark restarted): %+v, want %+v", iv.Sessions, want)
	}

	// A phase merge keeps the last counts and the highest mark.
	ph := NewInterval(s.Layout())
	ph.Merge(&Interval{Start: t0, End: t0.Add(time.Second), Sessions: SessionCounts{Connected: 5, ConnectedMax: 9, Busy: 2, Idle: 3}})
	ph.Merge(&Interval{Start: t0.Add(time.Second), End: t0.Add(2 * time.Second), Sessions: SessionCounts{Connected: 4, ConnectedMax: 5, Busy: 1, Idle: 3}})
	if want := (SessionCounts{Connected: 4, ConnectedMax: 9, Busy: 1, Idle: 3}); ph.Sessions != want {
		t.Errorf("merged: %+v, want %+v", ph.Sessions, want)
	}

	// A nil *Sessions counts nothing and does not panic.
	var none *Sessions
	none.Connect()
	none.Busy(0)
	none.Idle(0)
	none.Disconnect()
}

// TestSessionsConcurrent: the counters are updated from many goroutines
// while ticks read them (run with -race); busy never exceeds connected.
func TestSessionsConcurrent(t *testing.T) {
	s := NewSet(1, Layout{Scripts: 1})
	ss := s.Sessions(4)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				ss.Connect()
				ss.Busy(g)
				ss.Idle(g)
				ss.Disconnect()
			}
			ss.Connect()
		}()
	}
	t0 := time.Unix(0, 0)
	for k := range 50 {
		iv := s.Tick(t0, t0.Add(time.Duration(k)*time.Millisecond))
		c := iv.Sessions
		if c.Busy+c.Idle != c.Connected || c.Busy < 0 || c.ConnectedMax < c.Connected || c.ConnectedMax > 4 {
			t.Fatalf("inconsistent counts %+v", c)
		}
		s.Recycle(iv)
	}
	wg.Wait()
	if c := s.Tick(t0, t0.Add(time.Second)).Sessions; c.Connected != 4 || c.Busy != 0 {
		t.Errorf("after: %+v, want 4 connected, 0 busy", c)
	}
}

// BenchmarkSessionsBusyIdle: a transaction's two changes allocate nothing.
func BenchmarkSessionsBusyIdle(b *testing.B) {
	ss := NewSet(1, Layout{Scripts: 1}).Sessions(1)
	b.ReportAllocs()
	for b.Loop() {
		ss.Busy(0)
		ss.Idle(0)
	}
}

// TestSessionsFreeze: after Freeze, ticks report the frozen counts, not
// the disconnections that follow.
func TestSessionsFreeze(t *testing.T) {
	s := NewSet(1, Layout{Scripts: 1})
	ss := s.Sessions(1)
	ss.Connect()
	ss.Connect()
	ss.Busy(0)
	ss.Freeze()
	ss.Idle(0)
	ss.Disconnect()
	ss.Disconnect()
	ss.Freeze()
	t0 := time.Unix(0, 0)
	if c := s.Tick(t0, t0.Add(time.Second)).Sessions; c != (SessionCounts{Connected: 2, ConnectedMax: 2, Busy: 1, Idle: 1}) {
		t.Errorf("frozen: %+v", c)
	}
}
