package metrics

import "sync/atomic"

// Sessions counts a run's client sessions as they change state, for the
// per-interval counts of Interval.Sessions (timeline.csv's connected, busy
// and idle columns). The engine updates it at state changes only — a
// connection made or closed, a client becoming busy or idle — with atomic
// adds, never allocating; Set.Tick reads it at the interval's end.
//
// A client is connected while it holds a connection to the server; a
// connected client is busy from when it sends an SQL statement until the
// ReadyForQuery that leaves its session idle (transaction status 'I'), i.e.
// while it waits for the server or has a transaction block open; it is idle
// otherwise (sleeping, thinking, waiting for its slot of the schedule, or
// running meta-commands between transactions).
//
// busy is counted per group (a pgbench thread, whose clients share one OS
// thread in the engine's group loop) on cache lines of their own, so that
// the groups' threads do not contend for one line twice per transaction.
// connected changes only when a connection is made or closed (a run's
// start, a reconnect, -C), so it is one counter with its high-water mark.
type Sessions struct {
	connected atomic.Int64
	peak      atomic.Int64 // max of connected since the last take
	groups    []groupSessions
	// frozen, once set (Freeze), is what every later take returns: the
	// counts at the end of the run's window, before the clients close
	// their connections.
	frozen atomic.Pointer[SessionCounts]
}

// groupSessions is one group's count of busy clients, padded to a cache
// line (64 bytes).
type groupSessions struct {
	busy atomic.Int64
	_    [56]byte
}

// SessionCounts are the counts of one interval: at its end, and the most
// connected at any instant during it.
type SessionCounts struct {
	Connected    int64 // sessions open at the interval's end
	ConnectedMax int64 // most sessions open at once during the interval
	Busy         int64 // connected and busy at the end
	Idle         int64 // connected and idle at the end: Connected − Busy
}

// Connect counts a connection made. The methods of a nil *Sessions count
// nothing.
func (s *Sessions) Connect() {
	if s == nil {
		return
	}
	n := s.connected.Add(1)
	for {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

// Disconnect counts a connection closed.
func (s *Sessions) Disconnect() {
	if s != nil {
		s.connected.Add(-1)
	}
}

// Busy counts a client of group g becoming busy; Idle one becoming idle
// again (each once per change: the caller keeps the client's state).
func (s *Sessions) Busy(g int) {
	if s != nil {
		s.groups[g].busy.Add(1)
	}
}

// Idle: see Busy.
func (s *Sessions) Idle(g int) {
	if s != nil {
		s.groups[g].busy.Add(-1)
	}
}

// Freeze keeps the counts of now for every later tick: the engine calls it
// at the end of the run (the window's end, an interruption), so that the
// last interval, ticked after the clients have closed their connections,
// shows the sessions as they were at its end. Only the first call counts.
func (s *Sessions) Freeze() {
	if s == nil || s.frozen.Load() != nil {
		return
	}
	c := s.count()
	s.frozen.CompareAndSwap(nil, &c)
}

// take returns the counts now (or those frozen) and starts a new
// high-water mark at the current number of connections.
func (s *Sessions) take() SessionCounts {
	if f := s.frozen.Load(); f != nil {
		return *f
	}
	c := s.count()
	s.peak.Store(c.Connected)
	return c
}

// count reads the counters.
func (s *Sessions) count() SessionCounts {
	var busy int64
	for i := range s.groups {
		busy += s.groups[i].busy.Load()
	}
	conn := s.connected.Load()
	peak := s.peak.Load()
	// The loads are not one snapshot: a client that connected, or became
	// busy, between them could make busy exceed connected by a few.
	busy = min(max(busy, 0), conn)
	return SessionCounts{Connected: conn, ConnectedMax: max(peak, conn), Busy: busy, Idle: conn - busy}
}

// merge combines the counts of two intervals of one phase: the later end's
// counts (o's when later is set) and the larger high-water mark.
func (c *SessionCounts) merge(o *SessionCounts, later bool) {
	peak := max(c.ConnectedMax, o.ConnectedMax)
	if later {
		*c = *o
	}
	c.ConnectedMax = peak
}
