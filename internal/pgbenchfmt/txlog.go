package pgbenchfmt

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/prng"
)

// TxLog is one pgbench thread's -l log file (pgbench's thread->logfile with
// doLog). Without --aggregate-interval it has one line per transaction:
//
//	client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
//
// "%d %lld %.0f %d %lld %lld", where time is the latency in µs (from the
// scheduled start: Tx.Response), or the word skipped, failed, or with
// --failures-detailed serialization, deadlock or other; time_epoch and time_us
// are the time of writing the line (epoch seconds and the µs within);
// schedule_lag (" %.0f" µs) only under -R, 0 for skipped and failed
// transactions; retries (" %u", tries − 1) only when --max-tries is not 1.
// With --sampling-rate a line is written only when a draw from the thread's
// sample stream is at most the rate (the draw is made for every transaction).
//
// With --aggregate-interval=N it has one line per N seconds (PostgreSQL 15's
// fixed format, 15 columns; 16 with --continue-on-error, as PostgreSQL 19):
//
//	interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency
//	sum_lag sum_lag_2 min_lag max_lag skipped retried retries serialization_failures deadlock_failures [other_failures]
//
// "%lld %lld %.0f %.0f %.0f %.0f", " %.0f %.0f %.0f %.0f", " %lld", " %lld %lld",
// " %lld %lld" [" %lld"]. Intervals start at the epoch second of the thread's
// bench start (SetStart) and follow each other every N seconds; an interval is
// written when a transaction is logged after its end (empty intervals in
// between as zero rows). num_transactions and the latency columns cover
// successful transactions; columns without a meaning are 0: the lag columns
// without -R, skipped without -L, retried and retries when --max-tries is 1,
// the failure columns without --failures-detailed. Skipped transactions count
// only as skipped (their tries are not counted), failed ones as failures with
// their retries.
//
// As in pgbench, the interval in progress when the thread ends is not written
// (Close writes only the intervals that have ended); WritePartial writes it.
//
// A TxLog is safe for concurrent use by the clients of its thread. Lines are
// buffered; the buffer is written out within about a second and at Close.
type TxLog struct {
	mu      sync.Mutex
	path    string
	f       *os.File
	w       *bufio.Writer
	err     error // the first write error, returned by Close
	closed  bool
	pending *time.Timer // a flush is scheduled

	sample *prng.State // --sampling-rate draws

	// From the options.
	sampleRate       float64
	aggInterval      int64 // µs, 0: one line per transaction
	throttled        bool  // -R
	latencyLimit     bool  // -L
	maxTries         uint32
	failuresDetailed bool
	otherColumn      bool // --continue-on-error: the 16th aggregate column

	agg txAggregate
	buf []byte // line scratch, under mu
}

// txAggregate is the current interval of an aggregated log (pgbench's agg
// StatsData, filled by accumStats).
type txAggregate struct {
	started       bool
	start         int64 // epoch µs, a whole second
	cnt           int64
	latency, lag  metrics.Summary
	skipped       int64
	retried       int64
	retries       int64
	serialization int64
	deadlock      int64
	other         int64
}

// logFlushDelay bounds how long a written line may stay in the buffer.
const logFlushDelay = time.Second

// TxLogPath is the file name pgbench uses for a thread's log: PREFIX.PID for
// thread 0, PREFIX.PID.THREAD for the others.
func TxLogPath(prefix string, pid, thread int) string {
	if prefix == "" {
		prefix = DefaultLogPrefix
	}
	if thread == 0 {
		return fmt.Sprintf("%s.%d", prefix, pid)
	}
	return fmt.Sprintf("%s.%d.%d", prefix, pid, thread)
}

// OpenTxLog creates (or truncates) the log of thread number thread of process
// pid: TxLogPath(prefix, pid, thread), with prefix "" meaning "pgbench_log".
// opts gives -R, -L, --max-tries, --failures-detailed, --continue-on-error,
// --aggregate-interval and --sampling-rate; sample is the thread's sample
// stream (pgbench's ts_sample_rs), used only under --sampling-rate, and
// owned by the TxLog from then on. The error text is pgbench's:
// could not open logfile "PATH": <strerror>.
func OpenTxLog(prefix string, pid, thread int, opts *Options, sample *prng.State) (*TxLog, error) {
	path := TxLogPath(prefix, pid, thread)
	f, err := os.Create(path) // fopen(path, "w")
	if err != nil {
		return nil, fmt.Errorf("could not open logfile \"%s\": %s", path, strerror(err))
	}
	l := &TxLog{path: path, f: f, w: bufio.NewWriterSize(f, 64<<10), sample: sample}
	if opts != nil {
		l.sampleRate = opts.SamplingRate
		l.aggInterval = int64(opts.AggregateInterval) * 1000000
		l.throttled = opts.Rate > 0
		l.latencyLimit = opts.LatencyLimit > 0
		l.maxTries = opts.MaxTries
		l.failuresDetailed = opts.FailuresDetailed
		l.otherColumn = opts.ContinueOnError
	} else {
		l.maxTries = 1
	}
	if l.sampleRate != 0 && l.sample == nil {
		s := prng.NewState(0)
		l.sample = &s
	}
	return l, nil
}

// Path is the log file's name.
func (l *TxLog) Path() string { return l.path }

// SetStart sets the thread's bench start (pgbench's thread->bench_start, when
// its clients start): the first aggregation interval begins at its epoch
// second, rounded down. Without it, the first logged transaction's time is
// used. Call it before the first Log: once the first interval has begun, it
// has no effect (nothing logged is lost). It has no effect on a
// per-transaction log.
func (l *TxLog) SetStart(benchStart time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.agg.started {
		l.agg = txAggregate{started: true, start: floorSecondUS(benchStart.UnixMicro())}
	}
}

// floorSecondUS is pgbench's "t / 1000000 * 1000000" (C division truncates).
func floorSecondUS(us int64) int64 { return us / 1000000 * 1000000 }

// Log logs one finished transaction (committed, failed or skipped) of client
// (its pgbench client id), which was the client's txNo-th (1-based, counting
// skipped and failed ones, as pgbench's cnt after the increment). now is the
// time of logging. Dropped slots are not pgbench transactions and are not
// logged, nor are slots and transactions cut at the end of the window
// (unstarted, unfinished). Log never blocks on anything but the file.
func (l *TxLog) Log(client int, txNo int64, tx *metrics.Tx, now time.Time) {
	if tx == nil || tx.Outcome == metrics.Dropped || tx.Outcome.Cut() || tx.Outcome >= metrics.NumOutcomes {
		return
	}
	nowUS := now.UnixMicro()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	// --sampling-rate: pg_prng_double(&thread->ts_sample_rs) > sample_rate skips.
	if l.sampleRate != 0 && l.sample.Double() > l.sampleRate {
		return
	}
	if l.aggInterval > 0 {
		l.flushIntervals(nowUS)
		l.accum(tx)
	} else {
		l.writeTx(client, txNo, tx, nowUS)
	}
	l.scheduleFlush()
}

// writeTx writes a per-transaction line (doLog without aggregation).
func (l *TxLog) writeTx(client int, txNo int64, tx *metrics.Tx, nowUS int64) {
	b := l.buf[:0]
	b = strconv.AppendInt(b, int64(client), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, txNo, 10)
	b = append(b, ' ')
	if tx.Outcome == metrics.Committed {
		b = appendF0(b, float64(tx.Response))
	} else {
		b = append(b, l.resultString(tx.Outcome)...)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(tx.Script), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, nowUS/1000000, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, nowUS%1000000, 10)
	if l.throttled {
		lag := 0.0 // pgbench logs no lag for skipped and failed transactions
		if tx.Outcome == metrics.Committed {
			lag = float64(tx.Lag)
		}
		b = append(b, ' ')
		b = appendF0(b, lag)
	}
	if l.maxTries != 1 {
		retries := uint32(0) // a skipped transaction has tries 1 in pgbench
		if tx.Tries > 1 {
			retries = tx.Tries - 1
		}
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(retries), 10)
	}
	b = append(b, '\n')
	l.write(b)
	l.buf = b
}

// resultString is pgbench's getResultString for a transaction that did not
// succeed. Connection failures (pgtrial's native front end only) and
// statement timeouts are "other" failures.
func (l *TxLog) resultString(o metrics.Outcome) string {
	switch {
	case o == metrics.Skipped:
		return "skipped"
	case !l.failuresDetailed:
		return "failed"
	case o == metrics.FailedSerialization:
		return "serialization"
	case o == metrics.FailedDeadlock:
		return "deadlock"
	default:
		return "other"
	}
}

// flushIntervals writes every aggregation interval that ended at or before
// nowUS (pgbench's loop in doLog: "while (agg->start_time + agg_interval <=
// now)"), starting the first one at nowUS's second if SetStart was not called.
func (l *TxLog) flushIntervals(nowUS int64) {
	if !l.agg.started {
		l.agg = txAggregate{started: true, start: floorSecondUS(nowUS)}
	}
	for {
		next := l.agg.start + l.aggInterval
		if next > nowUS {
			return
		}
		l.writeInterval()
		l.agg = txAggregate{started: true, start: next}
	}
}

// writeInterval writes the current interval's line.
func (l *TxLog) writeInterval() {
	a := &l.agg
	b := l.buf[:0]
	b = strconv.AppendInt(b, a.start/1000000, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, a.cnt, 10)
	// An empty Summary has zero min and max, as pgbench's initSimpleStats.
	for _, v := range []float64{a.latency.Sum, a.latency.Sum2, a.latency.Min, a.latency.Max} {
		b = append(b, ' ')
		b = appendF0(b, v)
	}
	var lag metrics.Summary
	if l.throttled {
		lag = a.lag
	}
	for _, v := range []float64{lag.Sum, lag.Sum2, lag.Min, lag.Max} {
		b = append(b, ' ')
		b = appendF0(b, v)
	}
	var skippedN, retried, retries, ser, dl, other int64
	if l.latencyLimit {
		skippedN = a.skipped
	}
	if l.maxTries != 1 {
		retried, retries = a.retried, a.retries
	}
	if l.failuresDetailed {
		ser, dl, other = a.serialization, a.deadlock, a.other
	}
	cols := []int64{skippedN, retried, retries, ser, dl}
	if l.otherColumn {
		cols = append(cols, other)
	}
	for _, v := range cols {
		b = append(b, ' ')
		b = strconv.AppendInt(b, v, 10)
	}
	b = append(b, '\n')
	l.write(b)
	l.buf = b
}

// accum adds a transaction to the current interval (pgbench's accumStats).
func (l *TxLog) accum(tx *metrics.Tx) {
	a := &l.agg
	if tx.Outcome == metrics.Skipped {
		a.skipped++ // no latency, and its tries are not counted
		return
	}
	if tx.Tries > 1 {
		a.retries += int64(tx.Tries - 1)
		a.retried++
	}
	switch tx.Outcome {
	case metrics.Committed:
		a.cnt++
		a.latency.Add(float64(tx.Response))
		if l.throttled {
			a.lag.Add(float64(tx.Lag))
		}
	case metrics.FailedSerialization:
		a.serialization++
	case metrics.FailedDeadlock:
		a.deadlock++
	default:
		a.other++
	}
}

// WritePartial writes the aggregation interval in progress, which pgbench
// never writes, so that a log ends with the last transactions of the run. It
// is for callers that prefer completeness to pgbench's output; call it just
// before Close. It does nothing for a per-transaction log.
func (l *TxLog) WritePartial() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.aggInterval <= 0 || !l.agg.started {
		return
	}
	l.writeInterval()
	l.agg = txAggregate{started: true, start: l.agg.start + l.aggInterval}
}

// Close ends the log as pgbench does at the end of a thread, with now as the
// thread's end: the aggregation intervals that ended by now are written, the
// one in progress is not; then the file is flushed and closed. It returns the
// first write error.
func (l *TxLog) Close() error { return l.CloseAt(time.Now()) }

// CloseAt is Close with the thread's end time given.
func (l *TxLog) CloseAt(now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return l.err
	}
	if l.aggInterval > 0 {
		l.flushIntervals(now.UnixMicro())
	}
	l.closed = true
	if l.pending != nil {
		l.pending.Stop()
		l.pending = nil
	}
	if err := l.w.Flush(); err != nil && l.err == nil {
		l.err = err
	}
	if err := l.f.Close(); err != nil && l.err == nil {
		l.err = err
	}
	return l.err
}

// write buffers b; called with mu held.
func (l *TxLog) write(b []byte) {
	if _, err := l.w.Write(b); err != nil && l.err == nil {
		l.err = err
	}
}

// scheduleFlush arranges for the buffer to be written out within
// logFlushDelay; called with mu held.
func (l *TxLog) scheduleFlush() {
	if l.pending != nil || l.w.Buffered() == 0 {
		return
	}
	l.pending = time.AfterFunc(logFlushDelay, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.pending = nil
		if l.closed {
			return
		}
		if err := l.w.Flush(); err != nil && l.err == nil {
			l.err = err
		}
	})
}

// appendF0 is C's "%.0f".
func appendF0(b []byte, v float64) []byte {
	return append(b, cFloat(0, v)...)
}
