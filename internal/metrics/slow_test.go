package metrics

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"
)

// slowRecorded is a transaction as recorded by a client, for the
// reference selection.
type slowRecorded struct {
	client int
	tx     Tx
}

// randomTxs draws n transactions of clients clients with few distinct
// response times (many ties) and every outcome, seeded.
func randomTxs(seed uint64, clients, n int) []slowRecorded {
	rng := rand.New(rand.NewPCG(seed, 17))
	out := make([]slowRecorded, n)
	for i := range out {
		o := Outcome(rng.IntN(int(NumOutcomes)))
		tx := Tx{Script: rng.IntN(2), Outcome: o, Tries: 1 + uint32(rng.IntN(2))}
		if o != Skipped && o != Dropped {
			svc := int64(rng.IntN(20)) * 100
			lag := int64(rng.IntN(3)) * 100
			tx.Response, tx.Service, tx.Lag = svc+lag, svc, lag
			tx.End = int64(rng.IntN(50)) * 1000
			tx.PID = 1000 + uint32(rng.IntN(4))
		} else {
			tx.Tries = 0
		}
		out[i] = slowRecorded{client: rng.IntN(clients), tx: tx}
	}
	return out
}

// referenceSlowest is the n slowest of txs by response time, written
// independently of compareSlow: candidates (not skipped or dropped) sorted
// by the documented key (response ↓, end ↑, client ↑, script ↑, outcome ↑,
// service ↓, lag ↑, tries ↑, pid ↑), the first n.
func referenceSlowest(txs []slowRecorded, n int) []SlowTx {
	var all []SlowTx
	for _, r := range txs {
		if r.tx.Outcome == Skipped || r.tx.Outcome == Dropped {
			continue
		}
		t := r.tx
		all = append(all, SlowTx{Script: t.Script, Outcome: t.Outcome, Client: r.client, PID: t.PID, End: t.End,
			Response: t.Response, Service: t.Service, Lag: t.Lag, Tries: t.Tries})
	}
	key := func(s SlowTx) []int64 {
		return []int64{-s.Response, s.End, int64(s.Client), int64(s.Script), int64(s.Outcome), -s.Service, s.Lag, int64(s.Tries), int64(s.PID)}
	}
	sort.SliceStable(all, func(i, j int) bool { return slices.Compare(key(all[i]), key(all[j])) < 0 })
	return all[:min(n, len(all))]
}

// record records txs into s, draining every drainEvery records (0: never).
func record(s *Set, txs []slowRecorded, drainEvery int) {
	for i, r := range txs {
		s.Recorder(r.client).Record(&r.tx)
		if drainEvery > 0 && i%drainEvery == drainEvery-1 {
			s.Drain()
		}
	}
}

// The N slowest of an interval are exactly the top N by response time of
// what was recorded in it, ties broken by the documented order, whatever
// the drains between ticks; skipped and dropped slots never count.
func TestSlowestAreTheTopN(t *testing.T) {
	for seed := range uint64(20) {
		const clients = 5
		n := []int{1, 3, 50, 400}[seed%4]
		txs := randomTxs(seed, clients, 1+int(seed)*97)
		want := referenceSlowest(txs, n)
		for _, drainEvery := range []int{0, 1, 7, 100} {
			s := NewSet(clients, Layout{Scripts: 2, Slowest: n})
			record(s, txs, drainEvery)
			iv := s.Tick(t0, t0.Add(time.Second))
			if !slices.Equal(iv.Slow, want) {
				t.Fatalf("seed %d, n %d, drain every %d: Slow =\n%v\nwant\n%v", seed, n, drainEvery, iv.Slow, want)
			}
			for _, st := range iv.Slow {
				if st.Outcome == Skipped || st.Outcome == Dropped {
					t.Fatalf("a %v slot among the slowest", st.Outcome)
				}
			}
		}
	}
}

// Each interval keeps its own slowest, at most N, in a reused slice: a
// second interval of faster transactions does not inherit the first's.
func TestSlowestPerInterval(t *testing.T) {
	s := NewSet(2, Layout{Scripts: 1, Slowest: 3})
	for i := range 10 {
		s.Recorder(i % 2).Record(&Tx{Outcome: Committed, Tries: 1, Response: int64(1000 + i), Service: 900, Lag: int64(100 + i), End: int64(i), PID: 7})
	}
	iv := s.Tick(t0, t0.Add(time.Second))
	got := []int64{}
	for _, st := range iv.Slow {
		got = append(got, st.Response)
	}
	if !slices.Equal(got, []int64{1009, 1008, 1007}) {
		t.Fatalf("first interval's slowest %v, want 1009 1008 1007", got)
	}
	if iv.Slow[0].Client != 1 || iv.Slow[0].PID != 7 || iv.Slow[0].End != 9 || iv.Slow[0].Service != 900 || iv.Slow[0].Lag != 109 {
		t.Errorf("slowest %+v: client, pid, end, service or lag lost", iv.Slow[0])
	}
	capBefore := cap(iv.Slow)
	s.Recycle(iv)
	s.Recorder(0).Record(&Tx{Outcome: Committed, Tries: 1, Response: 5})
	s.Recorder(0).Record(&Tx{Outcome: Skipped})
	iv = s.Tick(t0.Add(time.Second), t0.Add(2*time.Second))
	if len(iv.Slow) != 1 || iv.Slow[0].Response != 5 {
		t.Fatalf("second interval's slowest %+v, want the one 5 µs transaction", iv.Slow)
	}
	if cap(iv.Slow) != capBefore {
		t.Errorf("the recycled interval's Slow was reallocated (cap %d → %d)", capBefore, cap(iv.Slow))
	}
	s.Recycle(iv)
	iv = s.Tick(t0.Add(2*time.Second), t0.Add(3*time.Second))
	if len(iv.Slow) != 0 {
		t.Errorf("an empty interval has slowest %+v", iv.Slow)
	}
}

// Failed and cut transactions compete with their times (the cut ones'
// lower bounds); Slowest = 0 keeps none.
func TestSlowestOutcomes(t *testing.T) {
	txs := []Tx{
		{Outcome: Committed, Tries: 1, Response: 100, Service: 100},
		{Outcome: FailedSerialization, Tries: 3, Response: 400, Service: 350, Lag: 50, PID: 9},
		{Outcome: Unfinished, Tries: 1, Response: 900, Service: 800, Lag: 100, End: 5000, PID: 8},
		{Outcome: Unstarted, Response: 700, Lag: 700, End: 5000},
		{Outcome: Dropped},
		{Outcome: Skipped},
	}
	s := NewSet(1, Layout{Scripts: 1, Slowest: 10})
	off := NewSet(1, Layout{Scripts: 1})
	for i := range txs {
		s.Recorder(0).Record(&txs[i])
		off.Recorder(0).Record(&txs[i])
	}
	iv := s.Tick(t0, t0.Add(time.Second))
	var got []Outcome
	for _, st := range iv.Slow {
		got = append(got, st.Outcome)
	}
	want := []Outcome{Unfinished, Unstarted, FailedSerialization, Committed}
	if !slices.Equal(got, want) {
		t.Fatalf("slowest outcomes %v, want %v", got, want)
	}
	if f := iv.Slow[2]; f.Tries != 3 || f.PID != 9 || f.Service != 350 {
		t.Errorf("the failed one %+v", f)
	}
	if st := &iv.Total.Stats; st.Count != 1 || st.Latency.Max != 100 {
		t.Errorf("a failed transaction's times reached the stats: %+v", st.Latency)
	}
	if ivOff := off.Tick(t0, t0.Add(time.Second)); len(ivOff.Slow) != 0 {
		t.Errorf("Slowest = 0 kept %d", len(ivOff.Slow))
	}
}

func TestSlowestRejectsNegative(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewSet with Slowest = -1 did not panic")
		}
	}()
	NewSet(1, Layout{Scripts: 1, Slowest: -1})
}

// Merge leaves Slow alone: a phase's merge does not grow without bound.
func TestMergeLeavesSlow(t *testing.T) {
	s := NewSet(1, Layout{Scripts: 1, Slowest: 2})
	s.Recorder(0).Record(&Tx{Outcome: Committed, Tries: 1, Response: 100})
	iv := s.Tick(t0, t0.Add(time.Second))
	phase := NewInterval(s.Layout())
	phase.Merge(iv)
	if len(phase.Slow) != 0 || phase.Total.Stats.Count != 1 {
		t.Errorf("merged phase: %d slow, %d committed", len(phase.Slow), phase.Total.Stats.Count)
	}
}

// Recording allocates nothing with the selection on (it happens at the
// replay), and a steady tick reuses the recycled interval's slice.
func TestSlowestRecordAllocs(t *testing.T) {
	s := NewSet(1, Layout{Scripts: 1, Slowest: 50})
	r := s.Recorder(0)
	i := int64(0)
	step := func() {
		i++
		r.Record(&Tx{Outcome: Committed, Tries: 1, Response: i % 977, Service: i % 977, End: i, PID: 3})
	}
	for range 1000 {
		step()
	}
	s.Recycle(s.Tick(t0, t0))
	for range 1000 {
		step()
	}
	s.Recycle(s.Tick(t0, t0))
	if n := testing.AllocsPerRun(800, step); n != 0 {
		t.Errorf("%v allocations per Record, want 0", n)
	}
	// A tick of 1,000 records, recycled: its slowest in the reused slice.
	tick := func() {
		for range 1000 {
			step()
		}
		s.Recycle(s.Tick(t0, t0))
	}
	tick()
	if n := testing.AllocsPerRun(20, tick); n != 0 {
		t.Errorf("%v allocations per recycled tick with the slowest, want 0", n)
	}
}

// BenchmarkTickSlow is BenchmarkTick's 10,000 transactions per tick, with
// the interval recycled, without and with the 50 slowest kept: the cost of
// the selection at the replay.
func BenchmarkTickSlow(b *testing.B) {
	const txPerTick = 10_000
	for _, n := range []int{0, 50} {
		b.Run("slowest="+strconv.Itoa(n), func(b *testing.B) {
			s := NewSet(4, Layout{Scripts: 1, Slowest: n})
			rng := rand.New(rand.NewPCG(1, 2))
			end := int64(0)
			fill := func() {
				for i := range txPerTick {
					svc := 200 + rng.Int64N(5000)
					end += 100
					s.Recorder(i % 4).Record(&Tx{Outcome: Committed, Tries: 1, Response: svc, Service: svc, End: end, PID: 1})
				}
			}
			fill()
			s.Recycle(s.Tick(t0, t0))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				fill()
				b.StartTimer()
				s.Recycle(s.Tick(t0, t0.Add(time.Second)))
			}
		})
	}
}
