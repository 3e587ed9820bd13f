package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestQuantileVsSortedReference compares HDR quantiles with the exact
// nearest-rank quantile of the sorted values, v[⌈q·n⌉ − 1] (seed 000's
// stats.py), for several distributions. 3 significant digits: within 0.1 %
// (+1 µs for rounding).
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
	perMille := []int{0, 1, 500, 900, 950, 990, 999, 1000} // qs in 1/1000, for exact ranks
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
			for i, q := range qs {
				rank := (len(vals)*perMille[i] + 999) / 1000 // ⌈q·n⌉ in integers
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

// BenchmarkQuantile is the cost of one quantile of a full interval's
// histogram (20,000 lognormal values around 1 ms, a 5 s tail), as the
// timeline reads five per interval.
func BenchmarkQuantile(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := NewHistogram()
	for range 20_000 {
		RecordValue(h, int64(math.Exp(rng.NormFloat64()*0.8+math.Log(1000))))
	}
	RecordValue(h, 5_000_000)
	qs := []float64{0.5, 0.95, 0.99, 0.999, 1}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = Quantile(h, qs[i%len(qs)])
	}
}

// sortedNearestRank is the reference: the ⌈num/den · n⌉-th smallest of the
// sorted values (at least the first), in integer arithmetic, as stats.py
// computes it: v[-(-n*q // 100) - 1].
func sortedNearestRank(sorted []int64, num, den int) int64 {
	n := len(sorted)
	k := (n*num + den - 1) / den
	return sorted[max(1, min(k, n))-1]
}

// TestQuantileNearestRankExact records small integers (each value is its own
// HDR bucket below 2,048, so HDR is exact) and checks Quantile against the
// sorted nearest rank for every n ≤ 60 and q in 1/1000 steps, and that the
// cases where HDR's own round(q·n) rank differs are among them (the defect:
// the old Quantile took the round rank, so it fails here).
func TestQuantileNearestRankExact(t *testing.T) {
	differ := 0
	for n := 1; n <= 60; n++ {
		h := NewHistogram()
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = int64(10 * (i + 1)) // 10, 20, …: rank k is 10·k
			RecordValue(h, vals[i])
		}
		for pm := 1; pm <= 1000; pm++ {
			q := float64(pm) / 1000
			want := sortedNearestRank(vals, pm, 1000)
			if got := Quantile(h, q); got != want {
				t.Fatalf("n=%d q=%v: Quantile %d, nearest rank %d", n, q, got, want)
			}
			if h.ValueAtQuantile(q*100) != want {
				differ++
			}
		}
	}
	// n = 7, q = 0.9: ⌈6.3⌉ = 7, round(6.3) = 6.
	h := NewHistogram()
	for v := int64(1); v <= 7; v++ {
		RecordValue(h, v)
	}
	if got, round := Quantile(h, 0.9), h.ValueAtQuantile(90); got != 7 || round != 6 {
		t.Errorf("n=7 p90: Quantile %d (want 7), ValueAtQuantile %d (the round rank, 6)", got, round)
	}
	if differ == 0 {
		t.Fatal("no case where the round rank differs: the test proves nothing")
	}
	t.Logf("%d of 60,000 (n, q) cases where HDR's round(q·n) rank differs from ⌈q·n⌉", differ)
}

// TestQuantileNearestRankRandom: seeded random samples of random sizes and
// quantiles; HDR's value is the bucket of the sorted nearest-rank value
// (ValuesAreEquivalent) and its highest equivalent value, never below it.
func TestQuantileNearestRankRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 8))
	for trial := range 2000 {
		n := 1 + rng.IntN(300)
		vals := make([]int64, n)
		h := NewHistogram()
		for i := range vals {
			vals[i] = int64(math.Exp(rng.NormFloat64()*1.5 + math.Log(2000)))
			RecordValue(h, vals[i])
		}
		slices.Sort(vals)
		pm := rng.IntN(1001) // q in 1/1000, 0 … 1
		q := float64(pm) / 1000
		want := sortedNearestRank(vals, pm, 1000)
		got := Quantile(h, q)
		if !h.ValuesAreEquivalent(got, want) || (pm > 0 && got < want) {
			t.Fatalf("trial %d: n=%d q=%v: Quantile %d, nearest rank %d", trial, n, q, got, want)
		}
	}
}

func TestNearestRank(t *testing.T) {
	tests := []struct {
		q    float64
		n, k int64
	}{
		{0.5, 1, 1}, {0.5, 2, 1}, {0.5, 3, 2}, {0.5, 4, 2},
		{0.9, 7, 7}, {0.9, 10, 9}, {0.99, 10, 10},
		{0.07, 100, 7}, // 0.07·100 is 7.000000000000001 in float64
		{0.999, 4210, 4206},
		{0.999, 1000, 999},
		{0, 5, 1}, {-1, 5, 1}, {math.NaN(), 5, 1}, {1, 5, 5}, {2, 5, 5},
		{1e-12, 5, 1},
		{0.5, 0, 0},
		{0.999, math.MaxInt64, 9_214_148_664_817_921_032}, // ⌈0.999·(2⁶³−1)⌉, no overflow
	}
	for _, tt := range tests {
		if got := NearestRank(tt.q, tt.n); got != tt.k {
			t.Errorf("NearestRank(%v, %d) = %d, want %d", tt.q, tt.n, got, tt.k)
		}
	}
	if got := Beyond(0.999, 4210); got != 4 {
		t.Errorf("Beyond(0.999, 4210) = %d, want 4", got)
	}
	if got := Beyond(1, 4210); got != 0 {
		t.Errorf("Beyond(1, 4210) = %d, want 0", got)
	}
}
