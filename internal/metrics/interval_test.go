package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestQuantileVsSortedReference compares HDR quantiles with the exact
// quantile of the sorted values, using HDR's rank round(q·n), for several
// distributions. 3 significant digits: within 0.1 % (+1 µs for rounding).
func TestQuantileVsSortedReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	dists := []struct {
		name string
		gen  func() int64
	}{
		{"uniform 0-2ms", func() int64 { return rng.Int64N(2000) }},
		{"lognormal ~1ms", func() int64 { return int64(math.Exp(rng.NormFloat64()*0.8 + math.Log(1000))) }},
		{"bimodal with 5s stalls", func() int64 {
			if rng.IntN(100) == 0 {
				return 5_000_000 + rng.Int64N(1_000_000)
			}
			return 300 + rng.Int64N(700)
		}},
		{"constant", func() int64 { return 12345 }},
		{"single value", nil},
	}
	qs := []float64{0, 0.001, 0.5, 0.9, 0.95, 0.99, 0.999, 1}
	for _, d := range dists {
		t.Run(d.name, func(t *testing.T) {
			var vals []int64
			if d.gen == nil {
				vals = []int64{777}
			} else {
				for range 20_000 {
					vals = append(vals, d.gen())
				}
			}
			h := NewHistogram()
			for _, v := range vals {
				RecordValue(h, v)
			}
			slices.Sort(vals)
			for _, q := range qs {
				rank := int(q*float64(len(vals)) + 0.5)
				rank = max(1, min(rank, len(vals)))
				ref := vals[rank-1]
				got := Quantile(h, q)
				if tol := ref/1000 + 1; got < ref-tol || got > ref+tol {
					t.Errorf("q=%v: %d µs, exact %d µs (tolerance %d)", q, got, ref, tol)
				}
			}
		})
	}
}

func TestQuantileEmpty(t *testing.T) {
	for _, q := range []float64{0, 0.5, 1} {
		if got := Quantile(NewHistogram(), q); got != 0 {
			t.Errorf("empty q=%v: %d", q, got)
		}
		if got := Quantile(nil, q); got != 0 {
			t.Errorf("nil q=%v: %d", q, got)
		}
	}
}

func TestQuantileTakesFraction(t *testing.T) {
	// The mistake this guards against: ValueAtQuantile(0.9) is p0.9, not p90.
	h := NewHistogram()
	for v := int64(1); v <= 1000; v++ {
		RecordValue(h, v)
	}
	if got := Quantile(h, 0.9); got != 900 {
		t.Errorf("Quantile(0.9) = %d, want 900", got)
	}
}

func TestClamp(t *testing.T) {
	tests := []struct {
		in, want int64
	}{
		{-5, 0},
		{0, 0},
		{1, 1},
		{HistHighest, HistHighest},
		{HistHighest + 1, HistHighest},
		{math.MaxInt64, HistHighest},
		{math.MinInt64, 0},
	}
	for _, tt := range tests {
		h := NewHistogram()
		RecordValue(h, tt.in)
		if h.TotalCount() != 1 {
			t.Errorf("RecordValue(%d) recorded %d values", tt.in, h.TotalCount())
			continue
		}
		if got := Quantile(h, 0.5); !h.ValuesAreEquivalent(got, tt.want) {
			t.Errorf("RecordValue(%d) recorded %d, want %d", tt.in, got, tt.want)
		}
	}

	// Through a Set: the histogram is clamped, the sums are not.
	s := NewSet(1, Layout{Scripts: 1})
	s.Recorder(0).Record(&Tx{Outcome: Committed, Tries: 1, Response: 2 * HistHighest, Service: -3, Lag: 2 * HistHighest})
	iv := s.Tick(t0, t0)
	if got := iv.Total.Response.TotalCount(); got != 1 {
		t.Fatalf("response histogram holds %d values", got)
	}
	if got := Quantile(iv.Total.Response, 1); !iv.Total.Response.ValuesAreEquivalent(got, HistHighest) {
		t.Errorf("response max %d, want %d (clamped)", got, HistHighest)
	}
	if got := Quantile(iv.Total.Service, 1); got != 0 {
		t.Errorf("service max %d, want 0 (clamped)", got)
	}
	if got := iv.Total.Stats.Latency.Max; got != 2*float64(HistHighest) {
		t.Errorf("Stats.Latency.Max = %v, want the unclamped %d", got, 2*HistHighest)
	}
}

func TestEmptyInterval(t *testing.T) {
	l := Layout{Scripts: 2, Commands: []int{1, 2}}
	for name, iv := range map[string]*Interval{
		"Tick":        NewSet(3, l).Tick(t0, t0.Add(time.Second)),
		"NewInterval": NewInterval(l),
	} {
		t.Run(name, func(t *testing.T) {
			if len(iv.Scripts) != 2 || len(iv.Commands) != 2 || len(iv.Commands[1]) != 2 {
				t.Fatalf("shape: %d scripts, commands %v", len(iv.Scripts), iv.Commands)
			}
			for _, h := range append(slices.Clone(iv.Scripts), iv.Total) {
				if h.Response == nil || h.Service == nil || h.Lag == nil {
					t.Fatal("nil histogram")
				}
				if h.Stats != (Stats{}) || h.Response.TotalCount() != 0 || Quantile(h.Lag, 0.99) != 0 {
					t.Errorf("not empty: %+v", h.Stats)
				}
			}
		})
	}
	if d := NewInterval(l).Duration(); d != 0 {
		t.Errorf("Duration of a zero interval = %v", d)
	}
}

func TestIntervalMerge(t *testing.T) {
	l := Layout{Scripts: 2, Commands: []int{1, 1}, LatencyLimit: 100}
	s := NewSet(2, l)
	all := NewSet(1, l) // records everything, ticked once
	rng := rand.New(rand.NewPCG(3, 4))
	record := func(n int) {
		for i := range n {
			tx := Tx{Script: i % 2, Outcome: Outcome(rng.IntN(int(NumOutcomes))), Tries: 1, Response: rng.Int64N(200)}
			s.Recorder(i % 2).Record(&tx)
			all.Recorder(0).Record(&tx)
			s.Recorder(i%2).CommandDone(tx.Script, 0, 10)
			all.Recorder(0).CommandDone(tx.Script, 0, 10)
		}
	}
	record(100)
	a := s.Tick(t0.Add(time.Second), t0.Add(2*time.Second))
	record(50)
	b := s.Tick(t0.Add(2*time.Second), t0.Add(3*time.Second))
	want := all.Tick(t0, t0)

	phase := NewInterval(l)
	phase.Merge(b) // order does not matter
	phase.Merge(a)
	phase.Merge(nil)
	phase.Merge(&Interval{}) // zero times and no scripts: no change

	if !phase.Start.Equal(t0.Add(time.Second)) || !phase.End.Equal(t0.Add(3*time.Second)) || phase.Duration() != 2*time.Second {
		t.Errorf("merged span %v … %v", phase.Start, phase.End)
	}
	for i := range 2 {
		if phase.Scripts[i].Stats != want.Scripts[i].Stats {
			t.Errorf("script %d: %+v, want %+v", i, phase.Scripts[i].Stats, want.Scripts[i].Stats)
		}
		assertSameHists(t, "script", &phase.Scripts[i], &want.Scripts[i])
		if phase.Commands[i][0] != want.Commands[i][0] {
			t.Errorf("command %d: %+v, want %+v", i, phase.Commands[i][0], want.Commands[i][0])
		}
	}
	if phase.Total.Stats != want.Total.Stats {
		t.Errorf("total: %+v, want %+v", phase.Total.Stats, want.Total.Stats)
	}
	assertSameHists(t, "total", &phase.Total, &want.Total)
	if n := outcomes(&phase.Total.Stats); n != 150 {
		t.Errorf("merged %d transactions, want 150", n)
	}

	// Merging into a zero Interval allocates what it needs.
	var z Interval
	z.Merge(a)
	if len(z.Scripts) != 2 || z.Total.Response.TotalCount() != a.Total.Response.TotalCount() || len(z.Commands) != 2 {
		t.Errorf("merge into zero Interval: %d scripts", len(z.Scripts))
	}
}

func TestSummaryMerge(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
	}{
		{"both empty", nil, nil},
		{"left empty", nil, []float64{3, 1}},
		{"right empty", []float64{2, 5}, nil},
		{"overlapping", []float64{1, 10, 4}, []float64{0, 7}},
		{"negative", []float64{-3}, []float64{-1, -8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a, b, all Summary
			for _, v := range tt.a {
				a.Add(v)
				all.Add(v)
			}
			for _, v := range tt.b {
				b.Add(v)
				all.Add(v)
			}
			a.Merge(&b)
			if a != all {
				t.Errorf("merged %+v, want %+v", a, all)
			}
		})
	}

	var s Summary
	for _, v := range []float64{2, 4, 4, 4, 5, 5, 7, 9} {
		s.Add(v)
	}
	if s.Mean() != 5 || s.Stddev() != 2 || s.Min != 2 || s.Max != 9 {
		t.Errorf("mean %v stddev %v min %v max %v, want 5 2 2 9", s.Mean(), s.Stddev(), s.Min, s.Max)
	}
}

func TestStatsMerge(t *testing.T) {
	txs := []Tx{
		{Outcome: Committed, Tries: 1, Response: 10, Service: 8, Lag: 2},
		{Outcome: Committed, Tries: 2, Response: 500, Service: 500},
		{Outcome: Skipped},
		{Outcome: Dropped},
		{Outcome: FailedDeadlock, Tries: 3},
		{Outcome: FailedOther, Tries: 1},
		{Outcome: Committed, Tries: 1, Response: 90, Service: 60, Lag: 30},
	}
	const limit = 50
	for split := range len(txs) + 1 {
		var a, b, all Stats
		for i := range txs {
			all.Add(&txs[i], limit)
			if i < split {
				a.Add(&txs[i], limit)
			} else {
				b.Add(&txs[i], limit)
			}
		}
		a.Merge(&b)
		if a != all {
			t.Errorf("split at %d: %+v, want %+v", split, a, all)
		}
	}
	var s Stats
	for i := range txs {
		s.Add(&txs[i], limit)
	}
	want := Stats{Count: 3, Retried: 2, Retries: 3, Late: 2}
	if s.Count != want.Count || s.Retried != want.Retried || s.Retries != want.Retries || s.Late != want.Late ||
		s.Failed() != 2 || s.Skipped() != 1 || s.Dropped() != 1 || s.Total() != 6 {
		t.Errorf("%+v", s)
	}
}

// outcomes is the number of transactions of every outcome in s.
func outcomes(s *Stats) int64 {
	var n int64
	for _, c := range s.Outcome {
		n += c
	}
	return n
}
