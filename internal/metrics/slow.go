package metrics

import (
	"cmp"
	"slices"
)

// SlowTx is one of the slowest transactions of an interval (Interval.Slow):
// enough to place it in time and join it to what the server did then.
// Times are µs; End is on the engine's clock (µs from the engine's start,
// engine.Result.Start), as the other times of Tx:
//
//	intended start = End − Response
//	actual start   = End − Service
//	Lag            = actual − intended start
type SlowTx struct {
	Script  int
	Outcome Outcome // committed, a failure class, unstarted or unfinished
	Client  int     // the client's number (0-based)
	PID     uint32  // backend pid of the client's connection; 0 unknown (unstarted, no connection)
	End     int64   // µs, engine clock; the window's end for a cut transaction
	// Response, Service and Lag as in Tx: lower bounds for a cut one.
	Response, Service, Lag int64
	Tries                  uint32
}

// slowCandidate reports whether a transaction of outcome o competes for
// Interval.Slow: committed, failed and cut (unstarted, unfinished) ones do;
// skipped and dropped slots never ran and do not.
func slowCandidate(o Outcome) bool { return o != Skipped && o != Dropped }

// compareSlow orders slow transactions slowest first: by Response,
// descending; ties by the earlier End, then the lower client, script,
// outcome, the longer service, fewer tries, the lower pid. It is a total
// order on what a SlowTx holds (two that compare equal are identical), so
// the N slowest of an interval do not depend on the order in which they
// were recorded or drained.
func compareSlow(a, b *SlowTx) int {
	if c := cmp.Compare(b.Response, a.Response); c != 0 {
		return c
	}
	if c := cmp.Compare(a.End, b.End); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Client, b.Client); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Script, b.Script); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Outcome, b.Outcome); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Service, a.Service); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Lag, b.Lag); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Tries, b.Tries); c != 0 {
		return c
	}
	return cmp.Compare(a.PID, b.PID)
}

// slowHeap is a bounded heap of at most n slow transactions whose root,
// h[0], is the least slow of them (the last in compareSlow's order), so a
// new transaction is kept exactly when it is slower than the root: the n
// slowest of everything offered, in O(log n) per kept one and O(1) per
// rejected one. It lives in Interval.Slow between ticks (heap order) and is
// sorted slowest first by Tick.
type slowHeap []SlowTx

// above reports whether h[i] belongs above h[j] in the heap: it is less
// slow.
func (h slowHeap) above(i, j int) bool { return compareSlow(&h[i], &h[j]) > 0 }

// offer keeps tx if fewer than n are kept or tx is slower than the least
// slow kept one (which it then replaces). It allocates only while the
// slice grows to n.
func (h *slowHeap) offer(n int, tx *SlowTx) {
	s := *h
	if len(s) < n {
		s = append(s, *tx)
		// Sift up.
		for i := len(s) - 1; i > 0; {
			p := (i - 1) / 2
			if !s.above(i, p) {
				break
			}
			s[i], s[p] = s[p], s[i]
			i = p
		}
		*h = s
		return
	}
	if len(s) == 0 || compareSlow(tx, &s[0]) >= 0 {
		return // not slower than the least slow kept (or n = 0)
	}
	s[0] = *tx
	// Sift down.
	for i := 0; ; {
		l, r, top := 2*i+1, 2*i+2, i
		if l < len(s) && s.above(l, top) {
			top = l
		}
		if r < len(s) && s.above(r, top) {
			top = r
		}
		if top == i {
			break
		}
		s[i], s[top] = s[top], s[i]
		i = top
	}
}

// sortSlow sorts s slowest first (compareSlow).
func sortSlow(s []SlowTx) {
	slices.SortFunc(s, func(a, b SlowTx) int { return compareSlow(&a, &b) })
}
