package capacity

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// checkBracket checks what every finished search promises: the steps are
// numbered after the ceiling runs in order and judged by Judge; Rates
// lists every rate with its runs and verdict (all pass: holds, none:
// misses, else mixed); Low is the highest rate that holds and High the
// lowest that misses, with Low < High; Rate is Low, Pass a passing run at
// Low, Fail a failing run at High; and a search that ended normally made
// BracketRepeats runs at each end.
func checkBracket(t *testing.T, cfg Config, r *Result) {
	t.Helper()
	byRate := map[float64][]Step{}
	for i, st := range r.Steps {
		if want := len(r.CeilingRuns) + i + 1; st.N != want {
			t.Errorf("step %d: N = %d, want %d", i, st.N, want)
		}
		if st.Probe.Kind != KindOpen {
			t.Errorf("step %d: kind %q", i, st.Probe.Kind)
		}
		if ok, why := cfg.Judge(st.Probe); ok != st.Pass || why != st.Why {
			t.Errorf("step %d: recorded (%v, %q), Judge says (%v, %q)", i, st.Pass, st.Why, ok, why)
		}
		byRate[st.Probe.Rate] = append(byRate[st.Probe.Rate], st)
		if st.Repeat != len(byRate[st.Probe.Rate]) || (st.Phase == PhaseRepeat) != (st.Repeat > 1) {
			t.Errorf("step %d: phase %s, repeat %d, the run %d at %v", i, st.Phase, st.Repeat, len(byRate[st.Probe.Rate]), st.Probe.Rate)
		}
	}
	if len(r.Rates) != len(byRate) {
		t.Errorf("%d rates listed, %d tried", len(r.Rates), len(byRate))
	}
	low, high := 0.0, math.Inf(1)
	for i, rr := range r.Rates {
		if i > 0 && !(rr.Rate > r.Rates[i-1].Rate) {
			t.Errorf("rates not increasing: %v after %v", rr.Rate, r.Rates[i-1].Rate)
		}
		steps := byRate[rr.Rate]
		passed := 0
		for k, st := range steps {
			if k >= len(rr.Runs) || rr.Runs[k] != st.N {
				t.Errorf("rate %v: runs %v, steps %+v", rr.Rate, rr.Runs, steps)
			}
			if st.Pass {
				passed++
			}
		}
		want := VerdictMixed
		switch passed {
		case len(steps):
			want = VerdictHolds
			low = max(low, rr.Rate)
		case 0:
			want = VerdictMisses
			high = min(high, rr.Rate)
		}
		if rr.Passed != passed || len(rr.Runs) != len(steps) || rr.Verdict != want {
			t.Errorf("rate %v: %+v, want %d of %d passed, %s", rr.Rate, rr, passed, len(steps), want)
		}
	}
	if low >= high {
		t.Errorf("the highest rate that holds, %v, is not below the lowest that misses, %v", low, high)
	}
	if r.Low != low || r.Rate != low {
		t.Errorf("Low = %v, Rate = %v, want the highest rate that holds %v", r.Low, r.Rate, low)
	}
	if math.IsInf(high, 1) {
		high = 0
	}
	if r.High != high {
		t.Errorf("High = %v, want the lowest rate that misses %v", r.High, high)
	}
	if r.Pass == nil {
		if r.Low != 0 {
			t.Errorf("Low = %v without a Pass", r.Low)
		}
	} else if !r.Pass.Pass || r.Pass.Probe.Rate != r.Low {
		t.Errorf("Pass = %+v does not pass at Low %v", r.Pass, r.Low)
	}
	if r.Fail == nil {
		if r.High != 0 {
			t.Errorf("Fail is nil, but High is %v", r.High)
		}
	} else if r.Fail.Pass || r.Fail.Probe.Rate != r.High {
		t.Errorf("Fail = %+v, want a failing run at High %v", r.Fail, r.High)
	}
	c := cfg.Normalized()
	if r.RunsPerRate != c.BracketRepeats {
		t.Errorf("RunsPerRate %d, want %d", r.RunsPerRate, c.BracketRepeats)
	}
	if r.Stopped != StopCanceled && r.Stopped != StopError {
		for _, end := range []float64{r.Low, r.High} {
			if end != 0 && len(byRate[end]) != c.BracketRepeats {
				t.Errorf("%d runs at the end %v, want %d", len(byRate[end]), end, c.BracketRepeats)
			}
		}
	}
}

func TestSearchFindsSLORate(t *testing.T) {
	tests := []struct {
		name      string
		capacity  float64
		service   time.Duration
		limit     time.Duration
		precision float64
		phases    []string // of the open steps; nil: not checked
	}{
		{"p99 50 ms, default precision", 1000, 2 * time.Millisecond, 50 * time.Millisecond, 0, nil},
		{"between 0.3 and 0.6", 2500, 10 * time.Millisecond, 80 * time.Millisecond, 0.01, nil},
		{"between 0.9 and the ceiling", 1000, 2 * time.Millisecond, time.Second, 0.001,
			[]string{"fraction", "fraction", "fraction", "fraction", "bisect", "bisect", "bisect", "bisect", "bisect", "bisect", "bisect", "repeat", "repeat", "repeat", "repeat"}},
		{"below the lowest fraction: halve", 1000, 2 * time.Millisecond, 10 * time.Millisecond, 0.05,
			[]string{"fraction", "halve", "halve", "bisect", "bisect", "bisect", "bisect", "bisect", "repeat", "repeat", "repeat", "repeat"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &mm1{capacity: tc.capacity, service: tc.service, closedSpread: []float64{0.97, 1.02, 1}}
			var seen []Step
			cfg := Config{Limit: tc.limit, Precision: tc.precision, MaxSteps: 20, OnProbe: func(st Step) { seen = append(seen, st) }}
			r, err := Search(context.Background(), f, cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkBracket(t, cfg, r)
			prec := r.Config.Precision
			want := f.sloRate(tc.limit)
			if r.Stopped != StopPrecision || r.Pass == nil || r.Fail == nil {
				t.Fatalf("stopped %q, pass %v, fail %v", r.Stopped, r.Pass, r.Fail)
			}
			// low ≤ r* < high and (high − low)/low ≤ precision.
			lo, hi := r.Rate, r.Fail.Probe.Rate
			if !(lo <= want && want < hi) || (hi-lo)/lo > prec {
				t.Errorf("bracket [%v, %v] (width %.4f), true SLO rate %v, precision %v", lo, hi, (hi-lo)/lo, want, prec)
			}
			if want-r.Rate > prec*r.Rate {
				t.Errorf("found %v, true %v: further than precision %v", r.Rate, want, prec)
			}
			if r.Pass.Probe.Quantile > tc.limit || r.Fail.Probe.Quantile <= tc.limit && !r.Fail.Probe.LagGrowing {
				t.Errorf("pass p99 %v, fail p99 %v, limit %v", r.Pass.Probe.Quantile, r.Fail.Probe.Quantile, tc.limit)
			}
			if r.Ceiling != tc.capacity {
				t.Errorf("ceiling %v, want the median %v", r.Ceiling, tc.capacity)
			}
			if len(r.CeilingRuns) != DefaultCeilingRepeats || r.CeilingRuns[0].Kind != KindClosed {
				t.Errorf("ceiling runs %+v", r.CeilingRuns)
			}
			// OnProbe saw every run in order: the ceiling runs, then Steps.
			if len(seen) != len(r.CeilingRuns)+len(r.Steps) {
				t.Fatalf("OnProbe called %d times for %d runs", len(seen), len(r.CeilingRuns)+len(r.Steps))
			}
			for i, st := range seen {
				if i < len(r.CeilingRuns) {
					if st.Phase != PhaseCeiling || st.Pass || st.N != i+1 {
						t.Errorf("OnProbe %d: %+v", i, st)
					}
				} else if !equalStep(st, r.Steps[i-len(r.CeilingRuns)]) {
					t.Errorf("OnProbe %d: %+v, step %+v", i, st, r.Steps[i-len(r.CeilingRuns)])
				}
			}
			if !slices.Equal(f.ns, seqFrom1(len(seen))) {
				t.Errorf("run numbers %v", f.ns)
			}
			if tc.phases != nil {
				var got []string
				for _, st := range r.Steps {
					got = append(got, st.Phase)
				}
				if !slices.Equal(got, tc.phases) {
					t.Errorf("phases %v, want %v", got, tc.phases)
				}
			}
		})
	}
}

func equalStep(a, b Step) bool {
	return a.N == b.N && a.Phase == b.Phase && a.Fraction == b.Fraction && a.Probe == b.Probe && a.Pass == b.Pass && a.Why == b.Why
}

func seqFrom1(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i + 1
	}
	return s
}

// TestSearchFractionsStopAtFirstFailure: 0.9 is not run once 0.6 fails.
func TestSearchFractionsStopAtFirstFailure(t *testing.T) {
	f := &mm1{capacity: 1000, service: 10 * time.Millisecond}
	// r* = 1000·(1 − 46.05/80) ≈ 424: 0.3 passes, 0.6 fails.
	r, err := Search(context.Background(), f, Config{Limit: 80 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.rates) < 3 || f.rates[0] != 300 || f.rates[1] != 600 || f.rates[2] != 450 {
		t.Errorf("rates %v: want 300, 600, then bisection at 450", f.rates)
	}
	for _, st := range r.Steps[2:] {
		if st.Phase != PhaseBisect && st.Phase != PhaseRepeat {
			t.Errorf("step %+v after the failing fraction", st)
		}
	}
}

func TestSearchAllFractionsPass(t *testing.T) {
	t.Run("the ceiling passes", func(t *testing.T) {
		f := &mm1{capacity: 800, service: time.Millisecond, flat: true}
		cfg := Config{Limit: 50 * time.Millisecond}
		r, err := Search(context.Background(), f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkBracket(t, cfg, r)
		if r.Stopped != StopAtCeiling || r.Rate != 800 || r.Fail != nil || r.Pass == nil || r.Pass.Fraction != 1 {
			t.Errorf("stopped %q, rate %v, pass %+v, fail %+v", r.Stopped, r.Rate, r.Pass, r.Fail)
		}
		if !slices.Equal(f.rates, []float64{240, 480, 720, 800, 800, 800}) {
			t.Errorf("rates %v", f.rates)
		}
	})
	t.Run("fractions end at 1: no extra run", func(t *testing.T) {
		f := &mm1{capacity: 800, service: time.Millisecond, flat: true}
		r, err := Search(context.Background(), f, Config{Limit: 50 * time.Millisecond, Fractions: []float64{0.5, 1}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Stopped != StopAtCeiling || r.Rate != 800 || !slices.Equal(f.rates, []float64{400, 800, 800, 800}) {
			t.Errorf("stopped %q, rate %v, rates %v", r.Stopped, r.Rate, f.rates)
		}
	})
	t.Run("the ceiling fails: bisect above the last fraction", func(t *testing.T) {
		f := &mm1{capacity: 1000, service: time.Millisecond}
		cfg := Config{Limit: time.Second, Precision: 0.02}
		r, err := Search(context.Background(), f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkBracket(t, cfg, r)
		// r* ≈ 995: 0.9 passes, 1.0 fails (lag grows), then 950, 975 and
		// 987.5 (p99 368 ms) pass and (1000 − 987.5)/987.5 ≤ 2 %.
		if r.Stopped != StopPrecision || r.Rate != 987.5 || r.Fail.Probe.Rate != 1000 || !strings.Contains(r.Fail.Why, "lag grows") {
			t.Errorf("stopped %q, rate %v, fail %+v", r.Stopped, r.Rate, r.Fail)
		}
	})
}

func TestSearchLowestFractionFails(t *testing.T) {
	// Unloaded p99 is ln(100)·2 ms ≈ 9.2 ms > 5 ms: no rate passes.
	tests := []struct {
		name     string
		capacity float64
		maxSteps int
		rates    []float64
	}{
		// 30, 15, 7.5, 3.75, 1.875; 0.9375 < MinRate; the lowest repeated.
		{"min rate ends halving", 100, 0, []float64{30, 15, 7.5, 3.75, 1.875, 1.875, 1.875}},
		{"max steps end halving", 100000, 3, []float64{30000, 15000, 7500, 3750, 3750, 3750}},
		{"no steps", 1000, -1, []float64{300, 300, 300}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &mm1{capacity: tc.capacity, service: 2 * time.Millisecond}
			cfg := Config{Limit: 5 * time.Millisecond, MaxSteps: tc.maxSteps}
			r, err := Search(context.Background(), f, cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkBracket(t, cfg, r)
			if r.Stopped != StopLowestFails || r.Rate != 0 || r.Pass != nil {
				t.Errorf("stopped %q, rate %v, pass %+v", r.Stopped, r.Rate, r.Pass)
			}
			low := tc.rates[len(tc.rates)-1]
			if r.Fail == nil || r.Fail.Probe.Rate != low {
				t.Errorf("fail %+v, want the lowest rate %v", r.Fail, low)
			}
			if !slices.Equal(f.rates, tc.rates) {
				t.Errorf("rates %v, want %v", f.rates, tc.rates)
			}
		})
	}
}

// TestSearchNoisy: p99 multiplied by noise up to ±40 %, so the fake is not
// monotone in the rate. The bracket stays consistent, and the answer lies
// where the noisy curve allows: its true rate for some noise factor.
func TestSearchNoisy(t *testing.T) {
	const a = 0.4
	limit := 50 * time.Millisecond
	for seed := range uint64(300) {
		f := &mm1{capacity: 1000, service: 2 * time.Millisecond, noise: noiseFrom(seed, a)}
		cfg := Config{Limit: limit, Precision: 0.02, MaxSteps: 12}
		r, err := Search(context.Background(), f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkBracket(t, cfg, r)
		if t.Failed() {
			t.Fatalf("seed %d: %+v", seed, r)
		}
		// A pass at rate ρ needs p99·(1−a) ≤ limit; with s' = s·(1 − a),
		// ρ ≤ 1 − ln(100)·s'/limit.
		hiBound := (&mm1{capacity: 1000, service: time.Duration((1 - a) * float64(2*time.Millisecond))}).sloRate(limit)
		loBound := (&mm1{capacity: 1000, service: time.Duration((1 + a) * float64(2*time.Millisecond))}).sloRate(limit)
		if r.Rate > hiBound || r.Fail == nil || r.Fail.Probe.Rate < loBound {
			t.Errorf("seed %d: rate %v, fail %+v, outside the noise's range [%v, %v]", seed, r.Rate, r.Fail, loBound, hiBound)
		}
	}
}

func TestSearchMaxSteps(t *testing.T) {
	f := &mm1{capacity: 1000, service: 2 * time.Millisecond}
	cfg := Config{Limit: 50 * time.Millisecond, Precision: 1e-9, MaxSteps: 2}
	r, err := Search(context.Background(), f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkBracket(t, cfg, r)
	bisect := 0
	for _, st := range r.Steps {
		if st.Phase == PhaseBisect {
			bisect++
		}
	}
	// Fractions 300, 600 pass, 900 fails; bisection at 750 (pass), 825
	// (fail); then 2 repeats at each, which MaxSteps does not count.
	if r.Stopped != StopMaxSteps || bisect != 2 || r.Rate != 750 || r.Fail.Probe.Rate != 825 {
		t.Errorf("stopped %q after %d bisection steps, bracket %v–%v", r.Stopped, bisect, r.Rate, r.Fail.Probe.Rate)
	}

	f = &mm1{capacity: 1000, service: 2 * time.Millisecond}
	r, err = Search(context.Background(), f, Config{Limit: 50 * time.Millisecond, MaxSteps: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stopped != StopMaxSteps || len(r.Steps) != 7 || r.Rate != 600 || r.Fail.Probe.Rate != 900 {
		t.Errorf("MaxSteps < 0: stopped %q, %d steps, bracket %v–%v", r.Stopped, len(r.Steps), r.Rate, r.Fail.Probe.Rate)
	}
}

func TestSearchCancel(t *testing.T) {
	for _, aware := range []bool{true, false} {
		t.Run(map[bool]string{true: "prober returns ctx.Err()", false: "prober ignores ctx"}[aware], func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Runs 1–3 closed, 4 (300) and 5 (600) pass, 6 (900) fails,
			// 7 (750) cancels.
			f := &mm1{capacity: 1000, service: 2 * time.Millisecond, cancelAt: 7, cancel: cancel, ctxAware: aware}
			cfg := Config{Limit: 50 * time.Millisecond}
			r, err := Search(ctx, f, cfg)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if r == nil || r.Stopped != StopCanceled {
				t.Fatalf("result %+v", r)
			}
			checkBracket(t, cfg, r)
			wantSteps, wantRate, wantRuns := 3, 600.0, 7
			if !aware {
				// Run 7 finished and passed; the search stops before run 8.
				wantSteps, wantRate = 4, 750
			}
			if len(r.Steps) != wantSteps || r.Rate != wantRate || r.Fail.Probe.Rate != 900 || len(f.ns) != wantRuns {
				t.Errorf("%d steps, rate %v, fail %v, runs %v", len(r.Steps), r.Rate, r.Fail.Probe.Rate, f.ns)
			}
			if !strings.Contains(err.Error(), "bisect step at") {
				t.Errorf("err %q does not name the step", err)
			}
		})
	}
	t.Run("cancelled before the start", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		f := &mm1{capacity: 1000, service: time.Millisecond}
		r, err := Search(ctx, f, Config{Limit: 50 * time.Millisecond})
		if !errors.Is(err, context.Canceled) || r.Stopped != StopCanceled || len(f.ns) != 0 || r.Ceiling != 0 {
			t.Errorf("err %v, result %+v, runs %v", err, r, f.ns)
		}
	})
	t.Run("prober error caused by the cancellation", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		boom := errors.New("connection closed")
		f := &mm1{capacity: 1000, service: time.Millisecond, failAt: 2, err: boom}
		p := &cancelThenFail{mm1: f, cancel: cancel}
		r, err := Search(ctx, p, Config{Limit: 50 * time.Millisecond})
		if !errors.Is(err, context.Canceled) || !errors.Is(err, boom) || r.Stopped != StopCanceled || len(r.CeilingRuns) != 1 {
			t.Errorf("err %v, result %+v", err, r)
		}
	})
}

// cancelThenFail cancels the context and then fails at run failAt, with an
// error that is not the context's.
type cancelThenFail struct {
	*mm1
	cancel context.CancelFunc
}

func (c *cancelThenFail) Closed(ctx context.Context, n int) (Probe, error) {
	if n == c.failAt {
		c.cancel()
		return Probe{}, c.err
	}
	return c.mm1.Closed(ctx, n)
}

func TestSearchProberError(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		failAt  int
		ceiling int // ceiling runs recorded
		steps   int
		rate    float64
		msg     string
	}{
		{"in a ceiling run", 2, 1, 0, 0, "run 2, ceiling run 2 of 3 (closed model): boom"},
		{"in a fraction", 5, 3, 1, 300, "run 5, fraction step at 600 tx/s (60 % of the ceiling): boom"},
		{"in a bisection", 8, 3, 4, 750, "run 8, bisect step at 825 tx/s (82 % of the ceiling): boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &mm1{capacity: 1000, service: 2 * time.Millisecond, failAt: tc.failAt, err: boom}
			cfg := Config{Limit: 50 * time.Millisecond}
			r, err := Search(context.Background(), f, cfg)
			if !errors.Is(err, boom) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want boom with %q", err, tc.msg)
			}
			checkBracket(t, cfg, r)
			if r.Stopped != StopError || len(r.CeilingRuns) != tc.ceiling || len(r.Steps) != tc.steps || r.Rate != tc.rate {
				t.Errorf("stopped %q, %d ceiling runs, %d steps, rate %v", r.Stopped, len(r.CeilingRuns), len(r.Steps), r.Rate)
			}
		})
	}
}

func TestSearchNoCeiling(t *testing.T) {
	f := &mm1{capacity: 0, service: time.Millisecond}
	r, err := Search(context.Background(), f, Config{Limit: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "ceiling is 0 tx/s") || r.Stopped != StopNoCeiling || f.open != 0 {
		t.Errorf("err %v, result %+v", err, r)
	}
}

func TestSearchConfig(t *testing.T) {
	f := &mm1{capacity: 1000, service: time.Millisecond}
	tests := []struct {
		name string
		cfg  Config
		msg  string
	}{
		{"no limit", Config{}, "limit 0s"},
		{"decreasing fractions", Config{Limit: time.Second, Fractions: []float64{0.5, 0.4}}, "fractions[1] = 0.4: want fractions in increasing order"},
		{"fraction above 1", Config{Limit: time.Second, Fractions: []float64{0.5, 1.2}}, "fractions[1] = 1.2: want a fraction of the ceiling in (0, 1]"},
		{"quantile", Config{Limit: time.Second, Quantile: 99}, "quantile 99"},
		{"repeats", Config{Limit: time.Second, CeilingRepeats: -1}, "ceiling repeats -1"},
		{"bracket repeats", Config{Limit: time.Second, BracketRepeats: -1}, "bracket repeats -1"},
		{"precision NaN", Config{Limit: time.Second, Precision: math.NaN()}, "precision NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Search(context.Background(), f, tc.cfg)
			if err == nil || r != nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err %v, want %q", err, tc.msg)
			}
		})
	}
	if _, err := Search(context.Background(), nil, Config{Limit: time.Second}); err == nil {
		t.Error("nil prober accepted")
	}
	if len(f.ns) != 0 {
		t.Errorf("runs made with a bad config: %v", f.ns)
	}

	c := Config{Limit: time.Second}.Normalized()
	if c.Quantile != 0.99 || !slices.Equal(c.Fractions, []float64{0.3, 0.6, 0.9}) || c.CeilingRepeats != 3 || c.Precision != 0.05 ||
		c.MaxSteps != 8 || c.MinRate != 1 || c.MaxFailedShare != 0.01 || c.BracketRepeats != 3 {
		t.Errorf("defaults %+v", c)
	}
	c = Config{Limit: time.Second, MaxSteps: -2, Precision: -1, MaxFailedShare: -1}.Normalized()
	if c.MaxSteps != 0 || c.Precision != 0 || c.MaxFailedShare != 0 {
		t.Errorf("negatives %+v", c)
	}
	// The caller's Fractions are not shared with the Result.
	fr := []float64{0.5}
	r, err := Search(context.Background(), &mm1{capacity: 100, service: time.Millisecond, flat: true}, Config{Limit: time.Second, Fractions: fr})
	if err != nil {
		t.Fatal(err)
	}
	r.Config.Fractions[0] = 0.7
	if fr[0] != 0.5 {
		t.Error("Result.Config.Fractions aliases the caller's slice")
	}
}

// TestSearchRepeatsMoveTheInterval: a repeat that goes the other way
// turns an end mixed; the interval widens to the next rate that holds (or
// misses) in all its runs, which is repeated in turn, and the bisection
// goes on within MaxSteps where the gap is wider than the precision.
// Noise-free, the search is 300, 600 (pass), 900 (fail), 750 (pass), 825
// (fail), 787.5 (pass, run 9); one noisy run (p99 multiplied) changes it.
func TestSearchRepeatsMoveTheInterval(t *testing.T) {
	tests := []struct {
		name      string
		noisy     map[int]float64 // run → p99 factor
		rates     []float64       // after 300, 600, 900, 750, 825, 787.5
		low, high float64
		mixed     float64
	}{
		{"no flip", nil, []float64{787.5, 787.5, 825, 825}, 787.5, 825, 0},
		// Run 10 (787.5's first repeat) fails: 750 becomes the low end.
		{"the low end turns mixed", map[int]float64{10: 2}, []float64{787.5, 787.5, 750, 750, 825, 825}, 750, 825, 787.5},
		// Run 12 (825's first repeat) passes: 900 is the lowest that
		// misses, and (900 − 825)/825 > 5 % is bisected at 862.5.
		{"the high end turns mixed", map[int]float64{12: 0.5}, []float64{787.5, 787.5, 825, 825, 862.5, 862.5, 862.5}, 787.5, 862.5, 825},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &mm1{capacity: 1000, service: 2 * time.Millisecond, noise: func(n int) float64 {
				if v, ok := tc.noisy[n]; ok {
					return v
				}
				return 1
			}}
			cfg := Config{Limit: 50 * time.Millisecond}
			r, err := Search(context.Background(), f, cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkBracket(t, cfg, r)
			want := append([]float64{300, 600, 900, 750, 825, 787.5}, tc.rates...)
			if !slices.Equal(f.rates, want) {
				t.Errorf("rates %v, want %v", f.rates, want)
			}
			if r.Low != tc.low || r.High != tc.high || r.Stopped != StopPrecision {
				t.Errorf("interval %v–%v, stopped %q; want %v–%v", r.Low, r.High, r.Stopped, tc.low, tc.high)
			}
			if tc.mixed != 0 {
				if rr := r.at(tc.mixed); rr == nil || rr.Verdict != VerdictMixed || len(rr.Runs) != 3 {
					t.Errorf("rate %v: %+v, want mixed in 3 runs", tc.mixed, rr)
				}
			}
		})
	}
}

// TestSearchSingleRuns: BracketRepeats 1 is the search without repeats.
func TestSearchSingleRuns(t *testing.T) {
	f := &mm1{capacity: 1000, service: 2 * time.Millisecond}
	cfg := Config{Limit: 50 * time.Millisecond, BracketRepeats: 1}
	r, err := Search(context.Background(), f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkBracket(t, cfg, r)
	if !slices.Equal(f.rates, []float64{300, 600, 900, 750, 825, 787.5}) || r.Low != 787.5 || r.High != 825 || r.RunsPerRate != 1 {
		t.Errorf("rates %v, interval %v–%v, %d per rate", f.rates, r.Low, r.High, r.RunsPerRate)
	}
	if got := Conclusion(r); !strings.Contains(got, "between 788 and 825 tx/s at p99 ≤ 50 ms (1 run each)") {
		t.Errorf("conclusion %q", got)
	}
}
