package capacity

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// The conclusion names the runs that bracket the capacity (the whole report
// is internal/report's TestCapacity).
func TestConclusionBracket(t *testing.T) {
	f := &mm1{capacity: 1000, service: 2 * time.Millisecond, closedSpread: []float64{0.98, 1, 1.01}}
	r, err := Search(context.Background(), f, Config{Limit: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// r* ≈ 816: 300, 600 pass, 900 fails; 750 passes, 825 fails, 787.5
	// passes and (825 − 787.5)/787.5 ≤ 5 %.
	want := "capacity: 788 tx/s (p99 43.3 ms ≤ 50 ms, run runs/009); at 825 tx/s p99 52.6 ms > 50 ms (run runs/008)"
	if got := Conclusion(r); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// The Result goes to experiment.json as it is.
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("json: %v", err)
	}
}

func TestConclusion(t *testing.T) {
	limit := 50 * time.Millisecond
	t.Run("at the ceiling", func(t *testing.T) {
		r, err := Search(context.Background(), &mm1{capacity: 800, service: time.Millisecond, flat: true}, Config{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		want := "capacity: 800 tx/s (p99 4.61 ms ≤ 50 ms, run runs/007), the closed-model ceiling; no higher rate is tried (more needs more clients)"
		if got := Conclusion(r); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	})
	t.Run("none passes", func(t *testing.T) {
		r, err := Search(context.Background(), &mm1{capacity: 100, service: 2 * time.Millisecond}, Config{Limit: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		want := "capacity: none found: the lowest rate tried, 1.88 tx/s, misses the SLO: p99 9.39 ms > 5 ms (run runs/008)"
		if got := Conclusion(r); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
		if r.Stopped != StopLowestFails {
			t.Errorf("stopped: %q, want %q", r.Stopped, StopLowestFails)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		f := &mm1{capacity: 1000, service: 2 * time.Millisecond, cancelAt: 5, cancel: cancel, ctxAware: true}
		r, _ := Search(ctx, f, Config{Limit: limit})
		want := "capacity so far (search ended early: interrupted): 300 tx/s (p99 13.2 ms ≤ 50 ms, run runs/004)"
		if got := Conclusion(r); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
		r, _ = Search(ctx, f, Config{Limit: limit})
		if got := Conclusion(r); got != "capacity so far (search ended early: interrupted): none found: no open-model run was made" {
			t.Errorf("got %q", got)
		}
	})
}
