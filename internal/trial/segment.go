package trial

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

// scriptDigest is run.json's sha256 of a script (results.ScriptWeight):
// the hex SHA-256 of its commands' texts, each followed by "\n", so that
// `pgtrial merge` refuses segments that ran different scripts under one
// name.
func scriptDigest(s *script.Script) string {
	if s == nil {
		return ""
	}
	h := sha256.New()
	for _, c := range s.Commands {
		h.Write([]byte(c.Text))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Segment makes a run one of Count generators that together produce one
// schedule (--segment i/n): the schedule of one generator with the whole
// load's Clients, Threads and Rate. That generator's thread t has its own
// seeded stream and slot gap 1e6/Rate·Threads µs (pgbench's per-thread
// throttle), and its clients are dealt to its threads in blocks
// (engine.GroupOf). Segment Index runs the threads [Index·T/n, (Index+1)·T/n)
// with their streams, the clients those threads have with theirs and their
// client ids, and a rate of Rate/n: its slot gap is 1e6/(Rate/n)·(T/n), the
// same. So the union of the segments' schedules is exactly the one
// generator's, in the open model (Poisson or uniform) and in the closed.
type Segment struct {
	Index, Count int     // 0 ≤ Index < Count; Index is JOB_COMPLETION_INDEX's
	Clients      int     // the whole load's
	Threads      int     // the whole load's (engine's groups: at most Clients)
	Rate         float64 // the whole load's, tx/s; 0 in the closed model

	// This segment's part: its first client and thread in the whole, and
	// how many of each it runs.
	FirstClient, FirstThread int
	SegClients, SegThreads   int

	// StartAt is the instant every segment's bench start (its warm-up's
	// start, the schedules' clock zero) was set to (--start-at); zero: none.
	StartAt time.Time
}

// ParseSegment parses "i/n": segment i (0-based, as a Kubernetes Indexed
// Job's JOB_COMPLETION_INDEX) of n.
func ParseSegment(s string) (index, count int, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	if ok {
		index, err = strconv.Atoi(a)
		if err == nil {
			count, err = strconv.Atoi(b)
		}
	}
	switch {
	case !ok || err != nil:
		return 0, 0, fmt.Errorf("--segment %q: want i/n, segment i (from 0) of n, e.g. 0/4", s)
	case count < 1 || count > 1000:
		return 0, 0, fmt.Errorf("--segment %q: n must be 1 to 1000", s)
	case index < 0 || index >= count:
		return 0, 0, fmt.Errorf("--segment %q: i must be 0 to n−1 = %d (segments count from 0)", s, count-1)
	}
	return index, count, nil
}

// NewSegment is segment index of count of a load of clients on threads at
// rate (0: closed). The threads (at most clients, as the engine caps them)
// must divide among the segments: each runs threads/count of them.
func NewSegment(index, count, clients, threads int, rate float64) (*Segment, error) {
	threads = min(threads, clients)
	if threads%count != 0 {
		return nil, fmt.Errorf("--segment %d/%d: the load's %d threads do not divide into %d segments; give -j a multiple of %d (each segment runs -j/%d threads and their clients)",
			index, count, threads, count, count, count)
	}
	s := &Segment{Index: index, Count: count, Clients: clients, Threads: threads, Rate: rate, SegThreads: threads / count}
	s.FirstThread = index * s.SegThreads
	for i := range clients {
		switch g := engine.GroupOf(i, clients, threads); {
		case g < s.FirstThread:
			s.FirstClient = i + 1
		case g < s.FirstThread+s.SegThreads:
			s.SegClients++
		}
	}
	return s, nil
}

// SegRate is the segment's rate, tx/s: Rate/Count (0 in the closed model).
func (s *Segment) SegRate() float64 { return s.Rate / float64(s.Count) }

// streams are the segment's streams: the whole load's (prng.Derive of all
// its clients and threads, in pgbench's order), cut to its clients and
// threads.
func (s *Segment) streams(seed uint64, defaultSeedGiven bool) prng.Streams {
	st := prng.Derive(seed, s.Clients, s.Threads, defaultSeedGiven)
	st.Clients = st.Clients[s.FirstClient : s.FirstClient+s.SegClients]
	st.Threads = st.Threads[s.FirstThread : s.FirstThread+s.SegThreads]
	return st
}

// checkSegment refuses a run whose load is not its segment's, and what a
// segment cannot do yet.
func (c *Config) checkSegment() error {
	s := c.Segment
	if s == nil {
		return nil
	}
	switch {
	case len(c.Scenarios) > 0:
		return errors.New("--segment with concurrent scenarios is not supported yet: run each scenario's segments apart")
	case c.Clients != s.SegClients || c.Threads != s.SegThreads || c.Rate != s.SegRate():
		return fmt.Errorf("trial: segment %d/%d: the run has %d clients, %d threads and rate %g; the segment's are %d, %d and %g",
			s.Index, s.Count, c.Clients, c.Threads, c.Rate, s.SegClients, s.SegThreads, s.SegRate())
	case c.Transactions > 0:
		return errors.New("--segment with -t/--transactions is not supported: segments share a schedule in time (-T)")
	}
	return nil
}

// firstClient is the segment's first client in the whole load; 0 without
// a segment.
func (s *Segment) firstClient() int {
	if s == nil {
		return 0
	}
	return s.FirstClient
}

// result is run.json's segment; nil without one.
func (s *Segment) result() *results.Segment {
	if s == nil {
		return nil
	}
	return &results.Segment{Index: s.Index, Count: s.Count, Clients: s.Clients, Threads: s.Threads, Rate: s.Rate,
		FirstClient: s.FirstClient, FirstThread: s.FirstThread, StartAt: s.StartAt}
}

// clockSamples is how many round trips a clock reading takes; the one with
// the shortest round trip is kept (its midpoint is the least uncertain).
const clockSamples = 5

// measureClock reads the server's clock against this host's: for each of
// clockSamples round trips of "SELECT clock_timestamp()", offset = server
// time − (t0 + t1)/2 with t0, t1 this host's clock before and after, and
// keeps the reading with the smallest round trip t1 − t0 (the offset is
// then within ± rtt/2). Segments record it at their start and end, so that
// a merge can align their intervals on one clock.
func measureClock(ctx context.Context, connString string) (results.ClockOffset, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgsession.Connect(ctx, connString, "pgtrial clock", 5*time.Second)
	if err != nil {
		return results.ClockOffset{}, err
	}
	defer conn.Close(context.Background())
	var best results.ClockOffset
	for i := range clockSamples {
		var server time.Time
		t0 := time.Now()
		if err := conn.QueryRow(ctx, "SELECT clock_timestamp()").Scan(&server); err != nil {
			return results.ClockOffset{}, fmt.Errorf("read the server's clock: %w", err)
		}
		t1 := time.Now()
		rtt := t1.Sub(t0)
		mid := t0.Add(rtt / 2)
		if i == 0 || float64(rtt)/1e6 < best.RTTMs {
			best = results.ClockOffset{At: mid.UTC(), OffsetMs: float64(server.Sub(mid)) / 1e6, RTTMs: float64(rtt) / 1e6}
		}
	}
	return best, nil
}

// isClosed says whether ch (nil: never) is closed: the second signal's
// Urgent, after which nothing more is asked of the server.
func isClosed(ch <-chan struct{}) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
