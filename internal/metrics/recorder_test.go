package metrics

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/HdrHistogram/hdrhistogram-go"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestRecordSizes(t *testing.T) {
	// The package comment promises these sizes; memory per client is
	// proportional to them.
	if got := unsafe.Sizeof(txRecord{}); got != 48 {
		t.Errorf("txRecord is %d bytes, want 48", got)
	}
	if got := unsafe.Sizeof(cmdRecord{}); got != 16 {
		t.Errorf("cmdRecord is %d bytes, want 16", got)
	}
}

func TestNewSetRejectsBadLayout(t *testing.T) {
	tests := []struct {
		name    string
		clients int
		layout  Layout
	}{
		{"no scripts", 1, Layout{Scripts: 0}},
		{"too many scripts", 1, Layout{Scripts: maxScripts + 1}},
		{"commands per script mismatch", 1, Layout{Scripts: 2, Commands: []int{3}}},
		{"negative command count", 1, Layout{Scripts: 1, Commands: []int{-1}}},
		{"negative limit", 1, Layout{Scripts: 1, LatencyLimit: -1}},
		{"negative clients", -1, Layout{Scripts: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("NewSet(%d, %+v) did not panic", tt.clients, tt.layout)
				}
			}()
			NewSet(tt.clients, tt.layout)
		})
	}
}

func TestLayoutIsCopied(t *testing.T) {
	cmds := []int{2, 3}
	s := NewSet(1, Layout{Scripts: 2, Commands: cmds, LatencyLimit: 5})
	cmds[0] = 100
	l := s.Layout()
	if !slices.Equal(l.Commands, []int{2, 3}) || l.Scripts != 2 || l.LatencyLimit != 5 {
		t.Fatalf("Layout() = %+v", l)
	}
	l.Commands[1] = 100
	if s.Layout().Commands[1] != 3 {
		t.Fatal("Layout() returned the set's own slice")
	}
}

// TestTickAttribution checks what lands where: per script, per outcome, per
// command, late and retried counts.
func TestTickAttribution(t *testing.T) {
	s := NewSet(2, Layout{Scripts: 2, Commands: []int{2, 1}, LatencyLimit: 1000})
	a, b := s.Recorder(0), s.Recorder(1)
	txs := []struct {
		r  *Recorder
		tx Tx
	}{
		{a, Tx{Script: 0, Outcome: Committed, Tries: 1, Response: 500, Service: 400, Lag: 100}},
		{a, Tx{Script: 0, Outcome: Committed, Tries: 3, Response: 1500, Service: 1500}},         // late, retried twice
		{b, Tx{Script: 0, Outcome: FailedSerialization, Tries: 2}},                              // retried once, failed
		{b, Tx{Script: 1, Outcome: Skipped}},                                                    //
		{b, Tx{Script: 1, Outcome: Dropped}},                                                    //
		{b, Tx{Script: 1, Outcome: Committed, Tries: 1, Response: 1000, Service: 1000}},         // exactly the limit: not late
		{b, Tx{Script: 1, Outcome: FailedConnection, Tries: 1}},                                 //
		{b, Tx{Script: 2, Outcome: Committed, Tries: 1, Response: 7}},                           // no script 2: ignored
		{b, Tx{Script: -1, Outcome: Committed, Tries: 1, Response: 7}},                          // ignored
		{b, Tx{Script: 0, Outcome: NumOutcomes, Tries: 1, Response: 7}},                         // ignored
		{a, Tx{Script: 1, Outcome: FailedDeadlock, Tries: 1, Response: 9, Service: 9}},          // latency of a failure is not recorded
		{a, Tx{Script: 1, Outcome: Committed, Tries: 1, Response: 2000, Service: 1, Lag: 1999}}, // late
	}
	for _, x := range txs {
		x.r.Record(&x.tx)
	}
	a.CommandDone(0, 0, 100)
	a.CommandDone(0, 0, 300)
	b.CommandDone(0, 1, 50)
	a.CommandError(0, 1, true)
	b.CommandError(0, 1, true)
	b.CommandError(0, 1, false)
	b.CommandError(1, 0, false)
	b.CommandDone(1, 1, 10) // no command 1 in script 1: ignored
	b.CommandDone(2, 0, 10) // no script 2: ignored
	b.CommandError(-1, 0, true)

	iv := s.Tick(t0, t0.Add(time.Second))

	s0, s1, tot := &iv.Scripts[0].Stats, &iv.Scripts[1].Stats, &iv.Total.Stats
	checks := []struct {
		name      string
		got, want int64
	}{
		{"s0 committed", s0.Count, 2},
		{"s0 failed", s0.Failed(), 1},
		{"s0 serialization", s0.Outcome[FailedSerialization], 1},
		{"s0 retried", s0.Retried, 2},
		{"s0 retries", s0.Retries, 3},
		{"s0 late", s0.Late, 1},
		{"s0 total", s0.Total(), 3},
		{"s1 committed", s1.Count, 2},
		{"s1 skipped", s1.Skipped(), 1},
		{"s1 dropped", s1.Dropped(), 1},
		{"s1 failed", s1.Failed(), 2},
		{"s1 late", s1.Late, 1},
		{"s1 total (dropped excluded)", s1.Total(), 5},
		{"total committed", tot.Count, 4},
		{"total late", tot.Late, 2},
		{"total failed", tot.Failed(), 3},
		{"total retries", tot.Retries, 3},
		{"s0 response hist", iv.Scripts[0].Response.TotalCount(), 2},
		{"s1 lag hist", iv.Scripts[1].Lag.TotalCount(), 2},
		{"total service hist", iv.Total.Service.TotalCount(), 4},
		{"s0 response max", Quantile(iv.Scripts[0].Response, 1), iv.Scripts[0].Response.Max()},
		{"s1 lag max", Quantile(iv.Scripts[1].Lag, 1), 1999},
		{"cmd 0.0 executions", iv.Commands[0][0].Elapsed.N, 2},
		{"cmd 0.0 elapsed sum", int64(iv.Commands[0][0].Elapsed.Sum), 400},
		{"cmd 0.1 executions", iv.Commands[0][1].Elapsed.N, 1},
		{"cmd 0.1 retries", iv.Commands[0][1].Retries, 2},
		{"cmd 0.1 failures", iv.Commands[0][1].Failures, 1},
		{"cmd 1.0 failures", iv.Commands[1][0].Failures, 1},
		{"cmd 1.0 executions", iv.Commands[1][0].Elapsed.N, 0},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if got := iv.Scripts[0].Stats.Latency.Mean(); got != 1000 {
		t.Errorf("s0 mean latency = %v, want 1000", got)
	}
	if !iv.Start.Equal(t0) || iv.Duration() != time.Second {
		t.Errorf("interval %v … %v", iv.Start, iv.End)
	}

	// The next tick starts empty: nothing is counted twice.
	iv2 := s.Tick(t0.Add(time.Second), t0.Add(2*time.Second))
	if n := iv2.Total.Stats.Total() + iv2.Total.Stats.Dropped(); n != 0 {
		t.Errorf("second tick has %d transactions", n)
	}
	if n := iv2.Commands[0][0].Elapsed.N; n != 0 {
		t.Errorf("second tick has %d command executions", n)
	}
}

func TestNoCommandStats(t *testing.T) {
	s := NewSet(1, Layout{Scripts: 1})
	s.Recorder(0).CommandDone(0, 0, 5)
	s.Recorder(0).CommandError(0, 0, true)
	iv := s.Tick(t0, t0.Add(time.Second))
	if iv.Commands != nil {
		t.Errorf("Commands = %v, want nil without Layout.Commands", iv.Commands)
	}
}

// TestTickConcurrent records from many goroutines while another ticks, under
// -race, and checks that the ticks add up to exactly what was recorded.
func TestTickConcurrent(t *testing.T) {
	const (
		clients = 8
		perTx   = 5000
		scripts = 3
	)
	l := Layout{Scripts: scripts, Commands: []int{2, 2, 2}, LatencyLimit: 20_000}
	s := NewSet(clients, l)

	// Values are integers below 1e5 µs, so every Σx and Σx² stays below
	// 2^53 and the float sums are exact whatever the order of addition.
	want := NewInterval(l)
	var wantMu sync.Mutex
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 1))
			local := NewInterval(l)
			r := s.Recorder(c)
			for range perTx {
				tx := Tx{
					Script:  rng.IntN(scripts),
					Outcome: Outcome(rng.IntN(int(NumOutcomes))),
					Tries:   uint32(1 + rng.IntN(3)),
				}
				if tx.Outcome == Committed {
					tx.Service = rng.Int64N(50_000)
					tx.Lag = rng.Int64N(50_000)
					tx.Response = tx.Service + tx.Lag
				}
				r.Record(&tx)
				local.Scripts[tx.Script].add(&tx, l.LatencyLimit)
				local.Total.add(&tx, l.LatencyLimit)

				cmd := rng.IntN(2)
				el := rng.Int64N(1000)
				r.CommandDone(tx.Script, cmd, el)
				local.Commands[tx.Script][cmd].Elapsed.Add(float64(el))
				if tx.Tries > 1 {
					r.CommandError(tx.Script, cmd, true)
					local.Commands[tx.Script][cmd].Retries++
				}
			}
			wantMu.Lock()
			want.Merge(local)
			wantMu.Unlock()
		})
	}

	got := NewInterval(l)
	done := make(chan struct{})
	ticks := 0
	var tickWG sync.WaitGroup
	tickWG.Go(func() {
		// At least one tick from t0 however the goroutines are scheduled
		// (on a loaded machine the clients could all finish before this
		// goroutine first ran: 0 ticks, and the merged interval would not
		// start at t0).
		at := t0
		for {
			iv := s.Tick(at, at.Add(time.Millisecond))
			at = at.Add(time.Millisecond)
			got.Merge(iv)
			ticks++
			select {
			case <-done:
				return
			default:
			}
		}
	})
	wg.Wait()
	close(done)
	tickWG.Wait()
	got.Merge(s.Tick(t0.Add(time.Hour), t0.Add(time.Hour+time.Millisecond)))
	t.Logf("%d ticks", ticks)

	if total := outcomes(&got.Total.Stats); total != clients*perTx {
		t.Fatalf("ticks hold %d transactions, recorded %d", total, clients*perTx)
	}
	for i := range scripts {
		if got.Scripts[i].Stats != want.Scripts[i].Stats {
			t.Errorf("script %d stats:\n got %+v\nwant %+v", i, got.Scripts[i].Stats, want.Scripts[i].Stats)
		}
		assertSameHists(t, "script", &got.Scripts[i], &want.Scripts[i])
		for c := range 2 {
			if got.Commands[i][c] != want.Commands[i][c] {
				t.Errorf("command %d.%d:\n got %+v\nwant %+v", i, c, got.Commands[i][c], want.Commands[i][c])
			}
		}
	}
	if got.Total.Stats != want.Total.Stats {
		t.Errorf("total stats:\n got %+v\nwant %+v", got.Total.Stats, want.Total.Stats)
	}
	assertSameHists(t, "total", &got.Total, &want.Total)
	if !got.Start.Equal(t0) || !got.End.Equal(t0.Add(time.Hour+time.Millisecond)) {
		t.Errorf("merged interval %v … %v", got.Start, got.End)
	}
}

func assertSameHists(t *testing.T, what string, got, want *Hists) {
	t.Helper()
	pairs := []struct {
		kind      string
		got, want *hdrhistogram.Histogram
	}{{"response", got.Response, want.Response}, {"service", got.Service, want.Service}, {"lag", got.Lag, want.Lag}}
	for _, p := range pairs {
		if !sameCounts(p.got, p.want) {
			t.Errorf("%s %s histogram: %d values, want %d (or different buckets)", what, p.kind, p.got.TotalCount(), p.want.TotalCount())
		}
	}
}

func sameCounts(a, b *hdrhistogram.Histogram) bool {
	return a.TotalCount() == b.TotalCount() && slices.Equal(a.Export().Counts, b.Export().Counts)
}

func TestRecordAllocatesNothingInSteadyState(t *testing.T) {
	s := NewSet(1, Layout{Scripts: 2, Commands: []int{3, 3}})
	r := s.Recorder(0)
	tx := Tx{Script: 1, Outcome: Committed, Tries: 1, Response: 1200, Service: 1000, Lag: 200}
	round := func() {
		for range 1000 {
			r.Record(&tx)
			r.CommandDone(1, 2, 300)
		}
	}
	// Two rounds and ticks: both the current and the spare slices grow.
	round()
	s.Tick(t0, t0)
	round()
	s.Tick(t0, t0)
	if a := testing.AllocsPerRun(10, func() {
		round()
		s.Tick(t0, t0) // allocates the interval, not counted below
	}); a > 30 {
		// Tick's own allocations (the Interval and its histograms) are a
		// handful per call; 2000 appends must add none.
		t.Errorf("%v allocations per 1000 Record + 1000 CommandDone + Tick", a)
	}
	if a := testing.AllocsPerRun(100, func() {
		r.Record(&tx)
		r.CommandDone(1, 2, 300)
	}); a != 0 {
		t.Errorf("Record + CommandDone: %v allocations, want 0", a)
	}
}

// TestRecordGrowthInTick: the spare slices get their room in Tick, so a
// client whose count rises by up to 25 % from one interval to the next
// appends without allocating, and a steady recorder stops allocating after
// two ticks.
func TestRecordGrowthInTick(t *testing.T) {
	s := NewSet(1, Layout{Scripts: 1, Commands: []int{1}})
	r := s.Recorder(0)
	tx := Tx{Script: 0, Outcome: Committed, Tries: 1, Response: 1200, Service: 1000, Lag: 200}
	record := func(n int) {
		for range n {
			r.Record(&tx)
			r.CommandDone(0, 0, 300)
		}
	}
	record(4000)
	s.Tick(t0, t0)
	record(4000)
	s.Tick(t0, t0)
	// Both slices now have room for 5000 records (append's own growth
	// would have given 4864): a 24 % faster interval appends without
	// allocating, however the slices alternate.
	for i := range 4 {
		// AllocsPerRun calls the function once more as a warm-up: 2 × 2480.
		if a := testing.AllocsPerRun(1, func() { record(2480) }); a != 0 {
			t.Fatalf("interval %d: 4960 records after intervals of 4000 allocated %v times, want 0", i, a)
		}
		s.Tick(t0, t0)
	}
	if c := cap(r.tx); c < 5000 || c > 8000 {
		t.Errorf("capacity %d after intervals of 4000–4960 records, want 1.25–1.5 × that", c)
	}
	// A count creeping up by 2 % an interval reallocates once per +20 %,
	// not at every new maximum: 6000 records a tick after 4960 (two
	// spares to regrow), then 6120 … 7040 within the new room.
	var grown int
	n := 6000
	for range 8 {
		c0, s0 := cap(r.tx), cap(r.spareTx)
		record(n)
		s.Tick(t0, t0)
		if cap(r.tx) != s0 || cap(r.spareTx) != c0 {
			grown++
		}
		n += n / 50
	}
	if grown > 3 {
		t.Errorf("the slices were regrown in %d of 8 intervals of a count creeping up 2 %% an interval", grown)
	}
}

func BenchmarkRecord(b *testing.B) {
	s := NewSet(1, Layout{Scripts: 1})
	r := s.Recorder(0)
	tx := Tx{Outcome: Committed, Tries: 1, Response: 1200, Service: 1000, Lag: 200}
	const perTick = 1 << 16 // records per interval
	for range 2 {           // warm-up: grow both slices
		for range perTick {
			r.Record(&tx)
		}
		s.Tick(t0, t0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		r.Record(&tx)
		if i%perTick == perTick-1 {
			b.StopTimer()
			s.Tick(t0, t0)
			b.StartTimer()
		}
	}
}

func BenchmarkCommandDone(b *testing.B) {
	s := NewSet(1, Layout{Scripts: 1, Commands: []int{4}})
	r := s.Recorder(0)
	const perTick = 1 << 16
	for range 2 {
		for range perTick {
			r.CommandDone(0, 3, 100)
		}
		s.Tick(t0, t0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		r.CommandDone(0, 3, 100)
		if i%perTick == perTick-1 {
			b.StopTimer()
			s.Tick(t0, t0)
			b.StartTimer()
		}
	}
}

// BenchmarkTick measures one Tick that replays 10,000 transactions (a
// 10,000 tx/s run with 1 s ticks) spread over the clients.
func BenchmarkTick(b *testing.B) {
	const txPerTick = 10_000
	for _, clients := range []int{4, 256} {
		b.Run("clients="+strconv.Itoa(clients), func(b *testing.B) {
			s := NewSet(clients, Layout{Scripts: 1, LatencyLimit: 5000})
			rng := rand.New(rand.NewPCG(1, 2))
			fill := func() {
				for i := range txPerTick {
					svc := 200 + rng.Int64N(5000)
					s.Recorder(i % clients).Record(&Tx{Outcome: Committed, Tries: 1, Response: svc, Service: svc})
				}
			}
			fill()
			s.Tick(t0, t0)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				fill()
				b.StartTimer()
				s.Tick(t0, t0.Add(time.Second))
			}
		})
	}
}

// A recycled Interval is refilled by the next Tick: nothing of the previous
// interval remains, and its histograms are reused, not reallocated.
func TestTickRecycle(t *testing.T) {
	s := NewSet(1, Layout{Scripts: 2, Commands: []int{2, 1}})
	r := s.Recorder(0)
	r.Record(&Tx{Script: 0, Outcome: Committed, Tries: 1, Response: 100, Service: 100})
	r.Record(&Tx{Script: 1, Outcome: Committed, Tries: 1, Response: 300, Service: 300})
	r.CommandDone(0, 1, 50)
	t0 := time.Now()
	first := s.Tick(t0, t0.Add(time.Second))
	hist := first.Scripts[0].Response
	s.Recycle(first)
	r.Record(&Tx{Script: 0, Outcome: Committed, Tries: 1, Response: 200, Service: 200})
	second := s.Tick(t0.Add(time.Second), t0.Add(2*time.Second))
	if second != first || second.Scripts[0].Response != hist {
		t.Fatal("the recycled interval was not reused")
	}
	if second.Total.Stats.Count != 1 || second.Scripts[1].Stats.Count != 0 || second.Total.Response.TotalCount() != 1 ||
		Quantile(second.Total.Response, 1) != 200 || second.Commands[0][1].Elapsed.N != 0 || !second.Start.Equal(t0.Add(time.Second)) {
		t.Errorf("recycled interval not emptied: total %+v, script 1 %+v, commands %+v", second.Total.Stats, second.Scripts[1].Stats, second.Commands)
	}
}

// TestDrain: records drained between ticks are in the next Tick's
// interval, counted once, and the recorders' slices hold only what came
// since the last drain.
func TestDrain(t *testing.T) {
	s := NewSet(2, Layout{Scripts: 1, Commands: []int{1}})
	tx := Tx{Script: 0, Outcome: Committed, Tries: 1, Response: 1200, Service: 1000, Lag: 200}
	for round := range 3 {
		for range 10 {
			for _, r := range s.recorders {
				for range 100 {
					r.Record(&tx)
					r.CommandDone(0, 0, 300)
				}
			}
			s.Drain()
		}
		for _, r := range s.recorders {
			if c := cap(r.tx); c > 200 {
				t.Fatalf("round %d: a recorder's slice has room for %d records with drains every 100", round, c)
			}
		}
		s.recorders[0].Record(&tx) // after the last drain: taken by Tick
		iv := s.Tick(t0, t0.Add(time.Second))
		if got := iv.Total.Stats.Count; got != 2001 {
			t.Errorf("round %d: %d transactions in the interval, want 2 × 10 × 100 + 1", round, got)
		}
		if got := iv.Commands[0][0].Elapsed.N; got != 2000 {
			t.Errorf("round %d: %d command completions, want 2000", round, got)
		}
		if got := iv.Total.Response.TotalCount(); got != 2001 {
			t.Errorf("round %d: response histogram counts %d", round, got)
		}
		if !iv.Start.Equal(t0) || !iv.End.Equal(t0.Add(time.Second)) {
			t.Errorf("round %d: interval %v–%v", round, iv.Start, iv.End)
		}
		s.Recycle(iv)
	}
	if iv := s.Tick(t0, t0); iv.Total.Stats.Count != 0 {
		t.Errorf("a tick with nothing recorded has %d transactions", iv.Total.Stats.Count)
	}
}
