package capacity

import (
	"context"
	"encoding/json"
	"slices"
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
	// passes and (825 − 787.5)/787.5 ≤ 5 %; then 787.5 (runs 10, 11) and
	// 825 (runs 12, 13) are repeated.
	want := "capacity: between 788 and 825 tx/s at p99 ≤ 50 ms (3 runs each): 788 tx/s meets it in 3 of 3 runs (p99 43.3 ms ≤ 50 ms, run runs/009); 825 tx/s in 0 of 3 (p99 52.6 ms > 50 ms, run runs/008)"
	if got := Conclusion(r); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// The Result goes to experiment.json as it is, with the interval and
	// each rate's runs.
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	var back struct {
		Low, High   float64
		RunsPerRate int `json:"runs_per_rate"`
		Rates       []RateRuns
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back.Low != 787.5 || back.High != 825 || back.RunsPerRate != 3 || len(back.Rates) != 6 ||
		!slices.Equal(back.Rates[3].Runs, []int{9, 10, 11}) || back.Rates[3].Verdict != VerdictHolds ||
		!slices.Equal(back.Rates[4].Runs, []int{8, 12, 13}) || back.Rates[4].Verdict != VerdictMisses {
		t.Errorf("json: %s", js)
	}
}

func TestConclusion(t *testing.T) {
	limit := 50 * time.Millisecond
	t.Run("at the ceiling", func(t *testing.T) {
		r, err := Search(context.Background(), &mm1{capacity: 800, service: time.Millisecond, flat: true}, Config{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		want := "capacity: at least 800 tx/s at p99 ≤ 50 ms: 800 tx/s, the closed-model ceiling, meets it in 3 of 3 runs (p99 4.61 ms ≤ 50 ms, run runs/007); no rate above the ceiling is tried (more needs more clients)"
		if got := Conclusion(r); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	})
	t.Run("none passes", func(t *testing.T) {
		r, err := Search(context.Background(), &mm1{capacity: 100, service: 2 * time.Millisecond}, Config{Limit: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		want := "capacity: none found: the lowest rate tried, 1.88 tx/s, misses p99 ≤ 5 ms in 3 of 3 runs: p99 9.39 ms > 5 ms (run runs/008)"
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
		want := "capacity so far (search ended early: interrupted): at least 300 tx/s at p99 ≤ 50 ms: 300 tx/s meets it in 1 of 1 run (p99 13.2 ms ≤ 50 ms, run runs/004); no rate above it was shown to miss"
		if got := Conclusion(r); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
		r, _ = Search(ctx, f, Config{Limit: limit})
		if got := Conclusion(r); got != "capacity so far (search ended early: interrupted): none found: no open-model run was made" {
			t.Errorf("got %q", got)
		}
	})
}
