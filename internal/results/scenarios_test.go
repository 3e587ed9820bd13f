package results

import (
	"math"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// TestSummarizeScenario: a scenario's summary merges only its own
// scripts: counts, failures, skipped and the percentiles of its
// histograms; its achieved rate is (committed + failed) / duration.
func TestSummarizeScenario(t *testing.T) {
	set := metrics.NewSet(1, metrics.Layout{Scripts: 3})
	rec := set.Recorder(0)
	t0 := time.Unix(1000, 0)
	// Script 0 (scenario a): 100 committed at 1..100 ms, 5 skipped;
	// script 1 (a): 50 committed at 200 ms, 2 failed; script 2 (b): 1000 at 10 s.
	for i := 1; i <= 100; i++ {
		rec.Record(&metrics.Tx{Script: 0, Outcome: metrics.Committed, Tries: 1, Response: int64(i) * 1000, Service: 500, Lag: 100, End: 1})
	}
	for range 5 {
		rec.Record(&metrics.Tx{Script: 0, Outcome: metrics.Skipped})
	}
	for range 50 {
		rec.Record(&metrics.Tx{Script: 1, Outcome: metrics.Committed, Tries: 1, Response: 200000, Service: 200000, End: 1})
	}
	for range 2 {
		rec.Record(&metrics.Tx{Script: 1, Outcome: metrics.FailedSerialization, Tries: 1, End: 1})
	}
	for range 1000 {
		rec.Record(&metrics.Tx{Script: 2, Outcome: metrics.Committed, Tries: 1, Response: 10e6, Service: 10e6, End: 1})
	}
	iv := set.Tick(t0, t0.Add(10*time.Second))
	sc := &Scenario{Name: "a", Scripts: []int{0, 1}, Kind: ModelOpen, Rate: 15}
	s := SummarizeScenario(iv, sc, []string{"r", "w", "x"})
	tot := s.Total
	if tot.Name != "a" || tot.Committed != 150 || tot.Failed != 2 || tot.Skipped != 5 || len(s.Scripts) != 2 || s.Scripts[1].Name != "w" {
		t.Fatalf("summary %+v", s)
	}
	if s.TargetRate != 15 || math.Abs(s.AchievedRate-15.2) > 1e-9 {
		t.Errorf("target %v, achieved %v, want 15 and (150 + 2) / 10 s = 15.2", s.TargetRate, s.AchievedRate)
	}
	// p50 of 150 values (100 at 1..100 ms, 50 at 200 ms): the 75th, 75 ms;
	// the max 200 ms, never scenario b's 10 s (HDR precision 0.1 %).
	if math.Abs(tot.Response.P50-75) > 0.1 || math.Abs(tot.Response.Max-200) > 0.2 {
		t.Errorf("response p50 %v max %v ms, want 75 and 200", tot.Response.P50, tot.Response.Max)
	}
	b := SummarizeScenario(iv, &Scenario{Name: "b", Scripts: []int{2}}, nil)
	if b.Total.Committed != 1000 || b.TargetRate != 0 || b.Scripts[0].Name != "script3" {
		t.Errorf("scenario b: %+v", b)
	}
}
