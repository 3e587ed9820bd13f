package capacity

import (
	"math"
	"testing"
	"time"
)

func TestJudge(t *testing.T) {
	ms := time.Millisecond
	good := Probe{Kind: KindOpen, Rate: 1000, Achieved: 1000, Quantile: 41 * ms}
	with := func(f func(*Probe)) Probe { p := good; f(&p); return p }
	cfg := Config{Limit: 50 * ms}
	tests := []struct {
		name string
		cfg  Config
		pr   Probe
		pass bool
		why  string
	}{
		{"meets", cfg, good, true, "p99 41 ms ≤ 50 ms"},
		{"at the limit", cfg, with(func(p *Probe) { p.Quantile = 50 * ms }), true, "p99 50 ms ≤ 50 ms"},
		{"quantile over", cfg, with(func(p *Probe) { p.Quantile = 73 * ms }), false, "p99 73 ms > 50 ms"},
		{"just over: exact durations", cfg, with(func(p *Probe) { p.Quantile = 50*ms + 10*time.Microsecond }), false, "p99 50.01ms > 50ms"},
		{"other quantile", Config{Limit: 200 * ms, Quantile: 0.999}, with(func(p *Probe) { p.Quantile = 1500 * ms }), false, "p99.9 1.5 s > 200 ms"},
		{"p50", Config{Limit: 2 * ms, Quantile: 0.5}, with(func(p *Probe) { p.Quantile = 850 * time.Microsecond }), true, "p50 850 µs ≤ 2 ms"},
		{"lag grows", cfg, with(func(p *Probe) { p.LagGrowing = true }), false, "lag grows"},
		// The checklist's rule (stats.RateAchieved): without a window 1 %
		// of the rate; with one, E = rate·window may fall max(1 % of E, 3√E)
		// short.
		{"achieved within 1 %", cfg, with(func(p *Probe) { p.Achieved = 990 }), true, "p99 41 ms ≤ 50 ms"},
		{"achieved 5 % short: the old tolerance, no longer", cfg, with(func(p *Probe) { p.Achieved = 950 }), false, "achieved 950 of 1000 tx/s"},
		{"achieved short", cfg, with(func(p *Probe) { p.Achieved = 912 }), false, "achieved 912 of 1000 tx/s"},
		{"achieved NaN", cfg, with(func(p *Probe) { p.Achieved = math.NaN() }), false, "achieved NaN of 1000 tx/s"},
		// 3 s at 26.8 tx/s expect E = 80.4: Poisson noise allows 3√E = 26.9
		// short (33 %); a long window leaves the 1 %.
		{"short window: Poisson noise", cfg, Probe{Kind: KindOpen, Rate: 26.8, Achieved: 22.3, Quantile: 12 * ms, WindowS: 3}, true, "p99 12 ms ≤ 50 ms"},
		{"short window: beyond the noise", cfg, Probe{Kind: KindOpen, Rate: 26.8, Achieved: 17, Quantile: 12 * ms, WindowS: 3}, false, "achieved 17 of 26.8 tx/s"},
		{"short window, uniform arrivals: 1 %", cfg, Probe{Kind: KindOpen, Rate: 26.8, Achieved: 22.3, Quantile: 12 * ms, WindowS: 3, Uniform: true}, false, "achieved 22.3 of 26.8 tx/s"},
		// 1000 tx/s for 60 s: E = 60000, 3√E = 735 > 1 % of E = 600, so
		// 720 short (1.2 %) is allowed and 1200 (2 %) is not.
		{"long window: 3√E", cfg, with(func(p *Probe) { p.Achieved, p.WindowS = 988, 60 }), true, "p99 41 ms ≤ 50 ms"},
		{"long window: beyond 3√E", cfg, with(func(p *Probe) { p.Achieved, p.WindowS = 980, 60 }), false, "achieved 980 of 1000 tx/s"},
		// Started (committed + failed + in flight) is what the checklist
		// counts; it is used when known.
		{"started counts, not committed", cfg, with(func(p *Probe) { p.Achieved, p.WindowS, p.Started = 980, 60, 59990 }), true, "p99 41 ms ≤ 50 ms"},
		{"failures within", cfg, with(func(p *Probe) { p.SkippedShare, p.FailedShare = 0.004, 0.006 }), true, "p99 41 ms ≤ 50 ms"},
		{"skipped + failed over", cfg, with(func(p *Probe) { p.SkippedShare, p.FailedShare = 0.012, 0.003 }), false, "skipped 1.2 % + failed 0.3 % > 1.0 %"},
		{"no failures allowed", Config{Limit: 50 * ms, MaxFailedShare: -1}, with(func(p *Probe) { p.FailedShare = 0.0001 }), false, "skipped 0 % + failed 0.01 % > 0 %"},
		{"everything", cfg, Probe{Kind: KindOpen, Rate: 1300, Achieved: 1100, Quantile: 73 * ms, LagGrowing: true, SkippedShare: 0.05},
			false, "p99 73 ms > 50 ms; lag grows; achieved 1100 of 1300 tx/s; skipped 5.0 % + failed 0 % > 1.0 %"},
		{"closed", cfg, Probe{Kind: KindClosed, Achieved: 1000, Quantile: ms}, false, "closed model: not judged against the SLO (its latency counts from the actual start)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pass, why := tc.cfg.Judge(tc.pr)
			if pass != tc.pass || why != tc.why {
				t.Errorf("Judge = (%v, %q), want (%v, %q)", pass, why, tc.pass, tc.why)
			}
		})
	}
}

func TestQuantileName(t *testing.T) {
	for _, tc := range []struct {
		q    float64
		want string
	}{{0.99, "p99"}, {0.999, "p99.9"}, {0.5, "p50"}, {0.9999, "p99.99"}, {0.95, "p95"}} {
		if got := QuantileName(tc.q); got != tc.want {
			t.Errorf("QuantileName(%v) = %q, want %q", tc.q, got, tc.want)
		}
	}
}
