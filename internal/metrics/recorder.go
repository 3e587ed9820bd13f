package metrics

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Layout describes what a Set records.
type Layout struct {
	Scripts      int   // number of scripts (≥ 1)
	Commands     []int // number of commands of each script, for per-command stats (-r); nil = none
	LatencyLimit int64 // µs; 0 = none (drives Stats.Late)
	// Slowest is how many of each interval's slowest transactions (by
	// response time; committed, failed and cut ones, not skipped or
	// dropped) Tick keeps in Interval.Slow; 0 = none (and no cost).
	Slowest int
}

// maxScripts bounds Layout.Scripts so a script index fits the records' uint16
// (pgbench allows 128 scripts).
const maxScripts = math.MaxUint16 + 1

func (l Layout) check() error {
	if l.Scripts < 1 || l.Scripts > maxScripts {
		return fmt.Errorf("Layout.Scripts = %d, want 1 … %d", l.Scripts, maxScripts)
	}
	if l.Commands != nil && len(l.Commands) != l.Scripts {
		return fmt.Errorf("Layout.Commands has %d entries for %d scripts", len(l.Commands), l.Scripts)
	}
	for i, n := range l.Commands {
		if n < 0 || int64(n) > math.MaxUint32 {
			return fmt.Errorf("Layout.Commands[%d] = %d", i, n)
		}
	}
	if l.LatencyLimit < 0 {
		return fmt.Errorf("Layout.LatencyLimit = %d µs", l.LatencyLimit)
	}
	if l.Slowest < 0 {
		return fmt.Errorf("Layout.Slowest = %d", l.Slowest)
	}
	return nil
}

// Set is the recorders of all clients of a run and the ticker's merge.
type Set struct {
	layout    Layout
	recorders []*Recorder
	tickMu    sync.Mutex // serialises Tick and Drain: the spare slices belong to them
	free      *Interval  // handed back by Recycle, reused by the next Tick
	pending   *Interval  // what Drain replayed since the last Tick (nil: nothing yet)
	sessions  atomic.Pointer[Sessions]
}

// NewSet returns recorders for clients clients. It panics on a malformed
// layout (Scripts < 1, Commands not one entry per script, a negative count
// or limit): that is a programming error, not user input.
func NewSet(clients int, l Layout) *Set {
	if err := l.check(); err != nil {
		panic("metrics.NewSet: " + err.Error())
	}
	if clients < 0 {
		panic(fmt.Sprintf("metrics.NewSet: %d clients", clients))
	}
	l.Commands = slices.Clone(l.Commands)
	s := &Set{layout: l, recorders: make([]*Recorder, clients)}
	for i := range s.recorders {
		s.recorders[i] = &Recorder{scripts: l.Scripts, commands: l.Commands}
	}
	return s
}

// Layout returns the set's layout (a copy).
func (s *Set) Layout() Layout {
	l := s.layout
	l.Commands = slices.Clone(l.Commands)
	return l
}

// Recorder returns the recorder of client (0 ≤ client < clients). A recorder
// is for one goroutine at a time; Tick may run concurrently with it.
func (s *Set) Recorder(client int) *Recorder { return s.recorders[client] }

// Sessions returns the set's session counters for groups groups (made at
// the first call; later calls return the same counters), which Tick reads
// into Interval.Sessions. A set whose Sessions was never called ticks
// intervals with zero counts.
func (s *Set) Sessions(groups int) *Sessions {
	if ss := s.sessions.Load(); ss != nil {
		return ss
	}
	ss := &Sessions{groups: make([]groupSessions, max(groups, 1))}
	if !s.sessions.CompareAndSwap(nil, ss) {
		return s.sessions.Load()
	}
	return ss
}

// txRecord is a Tx in 48 bytes.
type txRecord struct {
	response, service, lag int64 // µs
	end                    int64 // µs, engine clock
	tries                  uint32
	pid                    uint32
	script                 uint16
	outcome                Outcome
}

// cmdKind is what a command event says.
type cmdKind uint8

const (
	cmdDone    cmdKind = iota // completed, elapsed µs
	cmdRetried                // error, the transaction was retried
	cmdFailed                 // error, the transaction failed
)

// cmdRecord is a command event in 16 bytes.
type cmdRecord struct {
	elapsed int64 // µs, for cmdDone
	cmd     uint32
	script  uint16
	kind    cmdKind
}

// Recorder collects one client's transactions and command events between
// ticks. See the package comment for the design.
type Recorder struct {
	mu   sync.Mutex  // guards tx and cmds against Tick's swap
	tx   []txRecord  // current interval, appended by the client
	cmds []cmdRecord // current interval, appended by the client

	// Owned by Tick (under Set.tickMu): the emptied slices of the previous
	// interval, swapped in at the next tick.
	spareTx   []txRecord
	spareCmds []cmdRecord

	scripts  int
	commands []int // per script; nil = no command stats (read-only)

	// Recorders are allocated one after another: keep each one's hot mutex
	// and slice headers off its neighbour's cache line.
	_ [64]byte
}

// Record accounts one transaction (committed, failed, skipped or dropped).
// It is called by the client's goroutine after every transaction; it takes
// the recorder's mutex for an append and allocates nothing once the
// recorder's slices have reached the interval's size. A transaction with a
// script index outside the layout or an unknown outcome is ignored.
func (r *Recorder) Record(tx *Tx) {
	if uint(tx.Script) >= uint(r.scripts) || tx.Outcome >= NumOutcomes {
		return
	}
	rec := txRecord{
		response: tx.Response,
		service:  tx.Service,
		lag:      tx.Lag,
		end:      tx.End,
		tries:    tx.Tries,
		pid:      tx.PID,
		script:   uint16(tx.Script),
		outcome:  tx.Outcome,
	}
	r.mu.Lock()
	r.tx = append(r.tx, rec)
	r.mu.Unlock()
}

// CommandDone accounts a completed execution of command cmd of script
// script that took elapsed µs. Without command stats in the layout, or with
// indexes outside it, it does nothing.
func (r *Recorder) CommandDone(script, cmd int, elapsed int64) {
	r.command(script, cmd, cmdDone, elapsed)
}

// CommandError accounts a serialization or deadlock error (or, under
// continue-on-error, any SQL error) of command cmd of script script:
// retried = true when the transaction is going to be retried
// (CommandStats.Retries), false when it ends as a failure
// (CommandStats.Failures).
func (r *Recorder) CommandError(script, cmd int, retried bool) {
	kind := cmdFailed
	if retried {
		kind = cmdRetried
	}
	r.command(script, cmd, kind, 0)
}

func (r *Recorder) command(script, cmd int, kind cmdKind, elapsed int64) {
	if uint(script) >= uint(len(r.commands)) || uint(cmd) >= uint(r.commands[script]) {
		return
	}
	rec := cmdRecord{elapsed: elapsed, cmd: uint32(cmd), script: uint16(script), kind: kind}
	r.mu.Lock()
	r.cmds = append(r.cmds, rec)
	r.mu.Unlock()
}

// swap takes the current records and installs the spare slices; the caller
// holds Set.tickMu.
func (r *Recorder) swap() ([]txRecord, []cmdRecord) {
	r.mu.Lock()
	tx, cmds := r.tx, r.cmds
	r.tx, r.cmds = r.spareTx, r.spareCmds
	r.mu.Unlock()
	return tx, cmds
}

// Tick takes every recorder's records since the previous Tick and returns
// them merged as an Interval [start, end) that the caller owns. A client is
// blocked only while its slices are swapped. Tick may be called from one
// goroutine while clients record (concurrent Ticks and Drains are
// serialised).
//
// A record taken by one Tick is in exactly that Interval: nothing is lost or
// counted twice between ticks. Which interval a transaction that finishes
// during a Tick falls into depends on whether its recorder was swapped yet.
// Records taken earlier by Drain are in the Interval of the Tick that
// follows it.
func (s *Set) Tick(start, end time.Time) *Interval {
	s.tickMu.Lock()
	defer s.tickMu.Unlock()
	iv := s.replay()
	s.pending = nil
	iv.Start, iv.End = start, end
	if ss := s.sessions.Load(); ss != nil {
		iv.Sessions = ss.take()
	}
	// The total is the merge of the scripts.
	for i := range iv.Scripts {
		iv.Total.Merge(&iv.Scripts[i])
	}
	sortSlow(iv.Slow) // from heap order to slowest first
	return iv
}

// Drain replays every recorder's records into the Interval that the next
// Tick returns. Called between ticks (e.g. every tenth of the interval), it
// keeps the recorders' slices at a fraction of an interval's records: their
// memory then hardly depends on the rate.
func (s *Set) Drain() {
	s.tickMu.Lock()
	defer s.tickMu.Unlock()
	s.replay()
}

// replay moves every recorder's records into s.pending (taken from
// Recycle's interval or made) and returns it; the caller holds tickMu.
func (s *Set) replay() *Interval {
	iv := s.pending
	if iv == nil {
		iv, s.free = s.free, nil
		if iv != nil {
			iv.reset(time.Time{}, time.Time{})
		} else {
			iv = &Interval{Scripts: make([]Hists, s.layout.Scripts), Total: NewHists()}
			for i := range iv.Scripts {
				iv.Scripts[i] = NewHists()
			}
			iv.Commands = newCommandStats(s.layout.Commands)
			iv.Slow = make([]SlowTx, 0, s.layout.Slowest)
		}
		s.pending = iv
	}

	limit, slowest := s.layout.LatencyLimit, s.layout.Slowest
	slow := (*slowHeap)(&iv.Slow)
	for client, r := range s.recorders {
		txs, cmds := r.swap()
		for i := range txs {
			rec := &txs[i]
			tx := Tx{
				Script:   int(rec.script),
				Outcome:  rec.outcome,
				Tries:    rec.tries,
				Response: rec.response,
				Service:  rec.service,
				Lag:      rec.lag,
			}
			iv.Scripts[tx.Script].add(&tx, limit)
			// The slowest: a full heap rejects at once what is faster than
			// its least slow one.
			if slowest > 0 && slowCandidate(rec.outcome) && (len(*slow) < slowest || rec.response >= (*slow)[0].Response) {
				slow.offer(slowest, &SlowTx{Script: tx.Script, Outcome: rec.outcome, Client: client, PID: rec.pid,
					End: rec.end, Response: rec.response, Service: rec.service, Lag: rec.lag, Tries: rec.tries})
			}
		}
		for i := range cmds {
			rec := &cmds[i]
			cs := &iv.Commands[rec.script][rec.cmd]
			switch rec.kind {
			case cmdDone:
				cs.Elapsed.Add(float64(rec.elapsed))
			case cmdRetried:
				cs.Retries++
			case cmdFailed:
				cs.Failures++
			}
		}
		// Keep the replayed slices for reuse at the next swap (clear is not
		// needed: the records hold no pointers), grown here, off the
		// clients' path, to at least a quarter more than this interval's
		// count: a client's append then allocates only when its rate jumps
		// by more than that, and a steady run stops allocating after two
		// ticks (no garbage, no GC cycles, flat resident memory).
		r.spareTx, r.spareCmds = withRoom(txs), withRoom(cmds)
	}
	return iv
}

// withRoom empties s for reuse, with a capacity of at least 1.25 × len(s)
// (and minRoom records). When it must grow, it grows to 1.5 × len(s): a
// count that creeps up by a few per cent per interval then reallocates
// once per +20 %, not at every new maximum.
func withRoom[T any](s []T) []T {
	if cap(s) < max(len(s)+len(s)/4, minRoom) {
		return make([]T, 0, max(len(s)+len(s)/2, minRoom))
	}
	return s[:0]
}

// minRoom is the least capacity of a recorder's slices: a client with a
// think time records a transaction every few seconds, and 64 records
// (3 KiB of transactions, 1 KiB of commands, each twice: the slice being
// appended and the spare) were 8 KiB per client, 16 MB of a 2,000-client
// run's heap.
const minRoom = 8

// Recycle hands back an Interval returned by Tick that the caller no longer
// uses (nothing may keep a pointer into it): the next Tick refills it
// instead of allocating six new histograms (~1.1 MB per tick for one
// script), which keeps the heap, and so the resident memory of a long run,
// flat.
func (s *Set) Recycle(iv *Interval) {
	if iv == nil || len(iv.Scripts) != s.layout.Scripts || iv.Total.Response == nil {
		return
	}
	s.tickMu.Lock()
	s.free = iv
	s.tickMu.Unlock()
}
