package metrics

import "math"

// Outcome is what became of one scheduled transaction.
type Outcome uint8

const (
	// Committed: the script ran to its end (pgbench's successful transaction).
	Committed Outcome = iota
	// Skipped: under a rate limit with -L, the slot was already later than the
	// limit when a client took it, so it never started (pgbench's "skipped").
	Skipped
	// Dropped: open model with the drop policy, no client was free for the slot.
	Dropped
	// FailedSerialization: SQLSTATE 40001 on the last try.
	FailedSerialization
	// FailedDeadlock: SQLSTATE 40P01 on the last try.
	FailedDeadlock
	// FailedOther: another SQL error, counted only under --continue-on-error
	// (otherwise the client aborts and the transaction is not counted).
	FailedOther
	// FailedConnection: the connection was lost or could not be made; the
	// client goes on with a new connection (native front end only).
	FailedConnection
	// FailedTimeout: SQLSTATE 57014 (query_canceled) on the last try: a
	// statement_timeout expired, or another session cancelled the query
	// (pg_cancel_backend); counted, like FailedOther, only under
	// --continue-on-error. pgbench has no such class: its reports count it
	// with the "other" failures.
	FailedTimeout
	// Unstarted: a slot of the open model's schedule due before the end of
	// the measured window that no client had started by then (the run is
	// cut at its end: engine.Config.CutAtEnd). Its Response and Lag are
	// lower bounds, end of the window − intended start; no service time.
	Unstarted
	// Unfinished: a transaction in flight at the end of the window, cut
	// there (cancelled, or its socket closed). Its Response (end of the
	// window − intended start) and Service (end of the window − actual
	// start) are lower bounds, its Lag is exact.
	Unfinished

	NumOutcomes
)

var outcomeNames = [NumOutcomes]string{"committed", "skipped", "dropped", "serialization", "deadlock", "other", "connection", "timeout", "unstarted", "unfinished"}

// String is the outcome's name as used in files ("committed", "serialization", …).
func (o Outcome) String() string {
	if o < NumOutcomes {
		return outcomeNames[o]
	}
	return "unknown"
}

// Failed reports whether the outcome is one of the failure classes
// (serialization … timeout; not skipped, dropped, unstarted or unfinished).
func (o Outcome) Failed() bool { return o >= FailedSerialization && o <= FailedTimeout }

// Cut reports whether the outcome is a transaction cut at the end of the
// window (Unstarted, Unfinished): recorded with lower bounds of its
// latencies, and counted neither as committed nor as failed.
func (o Outcome) Cut() bool { return o == Unstarted || o == Unfinished }

// Tx is one finished (or skipped, or dropped) transaction as the engine reports
// it. Times are µs. For a committed transaction:
//
//	Response = end − intended start   (what a user of an open system waits)
//	Service  = end − actual start     (what the server took)
//	Lag      = actual start − intended start (queueing in the load generator)
//
// so Response = Service + Lag; in the closed model intended = actual start and
// Lag = 0. A failed transaction carries the same times, from its intended
// and actual start (of the first try) to its failure, but pgbench records
// no latency for it, and neither do Stats, the histograms or the
// transaction logs: they use a failed transaction's times only in
// Interval.Slow. Skipped and dropped slots carry none; their times are 0.
// Unstarted and Unfinished ones carry the lower bounds their outcomes
// describe, with "end" the end of the measured window.
type Tx struct {
	Script   int
	Outcome  Outcome
	Tries    uint32 // 1 for a transaction that was not retried; 0 for skipped/dropped
	Response int64
	Service  int64
	Lag      int64
	// End is when the transaction ended, µs on the engine's clock (from
	// engine.Result.Start), the clock of the other times: its intended
	// start is End − Response, its actual start End − Service. It is the
	// window's end for a cut transaction, 0 for skipped and dropped slots.
	End int64
	// PID is the backend pid of the client's connection that ran it (from
	// the connection's BackendKeyData); 0 when unknown: a slot that never
	// started (skipped, dropped, unstarted) or a connection that could not
	// be made.
	PID uint32
}

// Summary is pgbench's SimpleStats of a series of µs values: count, Σx, Σx²,
// min and max. Sums are float64 as in pgbench, so Σx² does not overflow.
type Summary struct {
	N         int64
	Sum, Sum2 float64
	Min, Max  float64
}

// Add adds one value.
func (s *Summary) Add(v float64) {
	if s.N == 0 || v < s.Min {
		s.Min = v
	}
	if s.N == 0 || v > s.Max {
		s.Max = v
	}
	s.N++
	s.Sum += v
	s.Sum2 += v * v
}

// Merge adds another summary (pgbench's mergeSimpleStats).
func (s *Summary) Merge(o *Summary) {
	if o.N == 0 {
		return
	}
	if s.N == 0 || o.Min < s.Min {
		s.Min = o.Min
	}
	if s.N == 0 || o.Max > s.Max {
		s.Max = o.Max
	}
	s.N += o.N
	s.Sum += o.Sum
	s.Sum2 += o.Sum2
}

// Mean is Σx/n (0 when empty).
func (s *Summary) Mean() float64 {
	if s.N == 0 {
		return 0
	}
	return s.Sum / float64(s.N)
}

// Stddev is pgbench's sqrt(Σx²/n − mean²) (0 when empty).
func (s *Summary) Stddev() float64 {
	if s.N == 0 {
		return 0
	}
	m := s.Mean()
	v := s.Sum2/float64(s.N) - m*m
	if v < 0 {
		v = 0
	}
	return math.Sqrt(v)
}

// Stats is pgbench's StatsData for one script, or for all, over some period,
// extended with the open model's outcomes.
type Stats struct {
	Count int64 // committed transactions (pgbench's cnt)
	// Outcome counts every outcome; the sums below (Latency, Service, Lag)
	// are of committed transactions only, while the histograms of Hists
	// also hold the lower bounds of unstarted and unfinished ones.
	Outcome [NumOutcomes]int64 // transactions by outcome; Outcome[Committed] == Count
	Retried int64              // transactions with more than one try, committed or failed
	Retries int64              // Σ(tries − 1)
	Late    int64              // committed transactions whose response time exceeded the latency limit
	Latency Summary            // response time of committed transactions, µs
	Service Summary            // service time of committed transactions, µs
	Lag     Summary            // schedule lag of committed transactions, µs
}

// Failed is the number of failed transactions of every class.
func (s *Stats) Failed() int64 {
	return s.Outcome[FailedSerialization] + s.Outcome[FailedDeadlock] + s.Outcome[FailedOther] + s.Outcome[FailedConnection] + s.Outcome[FailedTimeout]
}

// Unstarted is the number of slots due before the end of the window that
// never started.
func (s *Stats) Unstarted() int64 { return s.Outcome[Unstarted] }

// Unfinished is the number of transactions in flight at the end of the
// window.
func (s *Stats) Unfinished() int64 { return s.Outcome[Unfinished] }

// Skipped is the number of skipped transactions.
func (s *Stats) Skipped() int64 { return s.Outcome[Skipped] }

// Dropped is the number of dropped slots.
func (s *Stats) Dropped() int64 { return s.Outcome[Dropped] }

// Total is pgbench's total: committed + skipped + failed (dropped slots are
// not transactions a client took, and are not included; nor are unstarted
// and unfinished ones, which the window's end cut).
func (s *Stats) Total() int64 { return s.Count + s.Skipped() + s.Failed() }

// Add accounts one transaction; limit is the latency limit in µs (0: none).
func (s *Stats) Add(tx *Tx, limit int64) {
	if tx.Outcome >= NumOutcomes {
		return
	}
	s.Outcome[tx.Outcome]++
	if tx.Tries > 1 {
		s.Retried++
		s.Retries += int64(tx.Tries - 1)
	}
	if tx.Outcome != Committed {
		return
	}
	s.Count++
	s.Latency.Add(float64(tx.Response))
	s.Service.Add(float64(tx.Service))
	s.Lag.Add(float64(tx.Lag))
	if limit > 0 && tx.Response > limit {
		s.Late++
	}
}

// Merge adds another Stats.
func (s *Stats) Merge(o *Stats) {
	s.Count += o.Count
	for i := range s.Outcome {
		s.Outcome[i] += o.Outcome[i]
	}
	s.Retried += o.Retried
	s.Retries += o.Retries
	s.Late += o.Late
	s.Latency.Merge(&o.Latency)
	s.Service.Merge(&o.Service)
	s.Lag.Merge(&o.Lag)
}

// CommandStats are pgbench's per-command figures for -r: the elapsed time of
// completed executions (µs; for \sleep it includes the sleep), and the errors
// attributed to the command, split into those that were retried and those that
// ended the transaction as a failure.
type CommandStats struct {
	Elapsed  Summary
	Failures int64
	Retries  int64
}

// Merge adds another CommandStats.
func (c *CommandStats) Merge(o *CommandStats) {
	c.Elapsed.Merge(&o.Elapsed)
	c.Failures += o.Failures
	c.Retries += o.Retries
}
