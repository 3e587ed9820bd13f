package explain

import "testing"

// TestChangesFalsePositiveRate: over 300 seeded noise-only windows of 30
// and of 60 intervals (tps with 3 % noise, log-normal p99 and lag), the
// share of runs where any of the three series reports a change — the
// run's family-wise false-positive rate — stays at or below 10 %.
func TestChangesFalsePositiveRate(t *testing.T) {
	const trials = 300
	for _, n := range []int{30, 60} {
		runs := 0
		for seed := range uint64(trials) {
			s := synth{zero: synthZero, n: n, tps: flat(500), seed: 1000 + seed}
			if c := detectChanges(s.input(nil, nil, nil)); len(c.Changes) > 0 {
				runs++
			}
		}
		rate := float64(runs) / trials
		t.Logf("n %d: %d of %d noise-only runs report a change (%.1f %%)", n, runs, trials, 100*rate)
		if rate > 0.10 {
			t.Errorf("n %d: noise alone gives a change in %.1f %% of runs (want ≤ 10 %%)", n, 100*rate)
		}
	}
}
