package pgbenchfmt

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// LogReader reads a pgbench -l log (the formats TxLog writes, of pgbench 9.6
// to 19), one line at a time, without allocating per line. A file is one of
// two kinds, told by its first line:
//
//   - a per-transaction log, one line per transaction (LogTransactions):
//     client_id transaction_no time script_no time_epoch time_us [col7 [col8]]
//     where time is the latency in µs or skipped, failed, serialization,
//     deadlock, other; col7 and col8 are schedule_lag (-R) and retries
//     (--max-tries ≠ 1): with 8 columns both, with 7 one of them, which the
//     line cannot tell (TxLine.Col7);
//   - an aggregate log, one line per --aggregate-interval (LogAggregate):
//     interval_start num_transactions sum_latency sum_latency_2 min_latency
//     max_latency, then before PostgreSQL 15 [sum_lag sum_lag_2 min_lag
//     max_lag [skipped]] (6, 10 or 11 columns), from 15 on always
//     sum_lag sum_lag_2 min_lag max_lag skipped retried retries
//     serialization_failures deadlock_failures (15 columns), and 19's
//     other_failures with --continue-on-error (16).
//
// The first line is an aggregate line when its first column is an epoch
// second (≥ 10⁸: a client id is never that large) and it has 6, 10, 11, 15
// or 16 columns; otherwise a per-transaction line. Columns are separated by
// spaces or tabs; a line may end in \r\n. A gzip file (its magic bytes, not
// its name) is decompressed on the way. Errors name the file and the line.
type LogReader struct {
	name string
	br   *bufio.Reader
	gz   *gzip.Reader
	line int64 // number of the last line read, 1-based
	kind LogKind

	// Tx is the last per-transaction line read, Agg the last aggregate line.
	Tx  TxLine
	Agg AggLine

	cols [maxLogCols][]byte
}

// LogKind is the kind of a log file.
type LogKind uint8

const (
	LogUnknown      LogKind = iota // no line read yet, or an empty file
	LogTransactions                // one line per transaction (-l)
	LogAggregate                   // one line per interval (--aggregate-interval)
)

func (k LogKind) String() string {
	switch k {
	case LogTransactions:
		return "transactions"
	case LogAggregate:
		return "aggregate"
	}
	return "unknown"
}

// TxStatus is what the time column of a per-transaction line says.
type TxStatus uint8

const (
	TxCommitted     TxStatus = iota // a latency in µs
	TxSkipped                       // "skipped": later than -L when its turn came
	TxFailed                        // "failed": without --failures-detailed, of an unknown class
	TxSerialization                 // "serialization" (--failures-detailed)
	TxDeadlock                      // "deadlock" (--failures-detailed)
	TxOther                         // "other" (--failures-detailed with --continue-on-error, 19)
)

var txStatusNames = [...]string{"committed", "skipped", "failed", "serialization", "deadlock", "other"}

func (s TxStatus) String() string {
	if int(s) < len(txStatusNames) {
		return txStatusNames[s]
	}
	return "unknown"
}

// TxLine is one per-transaction line. Times are µs.
type TxLine struct {
	Client  int64
	TxNo    int64
	Status  TxStatus
	Latency int64 // µs from the scheduled start (under -R) or the start; 0 unless Committed
	Script  int64
	Epoch   int64 // time of writing the line: epoch seconds …
	Micros  int64 // … and the µs within
	// Cols is the number of columns, 6, 7 or 8; Col7 and Col8 are the
	// seventh and eighth (0 when absent). With 8 columns, Col7 is the
	// schedule lag and Col8 the retries; with 7, Col7 is the one of them
	// pgbench was asked for (-R: lag; --max-tries ≠ 1 without -R: retries).
	Cols       int
	Col7, Col8 int64
}

// End is the time of writing the line, epoch µs (pgbench writes it when the
// transaction ends).
func (t *TxLine) End() int64 { return t.Epoch*1_000_000 + t.Micros }

// AggLine is one aggregate line. The latency and lag figures are pgbench's
// "%.0f" of its double sums (µs, µs²). Columns absent from the line are 0.
type AggLine struct {
	Cols                            int   // 6, 10, 11, 15 or 16
	Start                           int64 // interval start, epoch seconds
	Count                           int64 // successful transactions
	SumLat, Sum2Lat, MinLat, MaxLat float64
	SumLag, Sum2Lag, MinLag, MaxLag float64
	Skipped                         int64
	Retried, Retries                int64
	Serialization, Deadlock, Other  int64
}

// maxLogCols bounds the columns a line may have (one more than the widest
// format, so that a wider line is recognised as such).
const maxLogCols = 17

// MaxLogLine is the longest line a LogReader accepts, in bytes.
const MaxLogLine = 4096

// NewLogReader reads the log r, named name in errors (its path). A gzip
// stream is recognised by its first two bytes (1f 8b) and decompressed.
func NewLogReader(r io.Reader, name string) (*LogReader, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	lr := &LogReader{name: name, br: br}
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: not a readable gzip file: %w", name, err)
		}
		gz.Multistream(true)
		lr.gz = gz
		lr.br = bufio.NewReaderSize(gz, 256<<10)
	}
	return lr, nil
}

// Compressed reports whether the log is gzip-compressed.
func (r *LogReader) Compressed() bool { return r.gz != nil }

// Kind is the kind of the log, known after the first line.
func (r *LogReader) Kind() LogKind { return r.kind }

// Line is the number of the last line read (1-based).
func (r *LogReader) Line() int64 { return r.line }

// Next reads the next line into r.Tx or r.Agg (by Kind). It returns false
// and nil at the end of the log, false and an error that names the file and
// line for a line that is not one of pgbench's (or of a kind other than the
// file's first line). Empty lines are skipped.
func (r *LogReader) Next() (bool, error) {
	for {
		b, err := r.br.ReadSlice('\n')
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return false, nil
			}
			return false, r.readErr(err)
		}
		if errors.Is(err, bufio.ErrBufferFull) || len(b) > MaxLogLine {
			r.line++
			return false, fmt.Errorf("%s:%d: line longer than %d bytes: not a pgbench log", r.name, r.line, MaxLogLine)
		}
		if err != nil && err != io.EOF {
			return false, r.readErr(err)
		}
		r.line++
		if r.kind == LogTransactions && r.fastTx(b) {
			return true, nil
		}
		n := splitCols(b, &r.cols)
		if n == 0 {
			continue // an empty line
		}
		if n > len(r.cols) {
			return false, fmt.Errorf("%s:%d: more than %d columns: not a pgbench log line", r.name, r.line, len(r.cols))
		}
		if r.kind == LogUnknown {
			r.kind = detectKind(r.cols[:n])
		}
		if r.kind == LogAggregate {
			err = r.parseAgg(r.cols[:n])
		} else {
			err = r.parseTx(r.cols[:n])
		}
		if err != nil {
			return false, fmt.Errorf("%s:%d: %w", r.name, r.line, err)
		}
		return true, nil
	}
}

func (r *LogReader) readErr(err error) error {
	return fmt.Errorf("%s: after line %d: %w", r.name, r.line, err)
}

// Close releases the gzip reader, if any (not the underlying reader).
func (r *LogReader) Close() error {
	if r.gz != nil {
		return r.gz.Close()
	}
	return nil
}

// splitCols splits b on spaces, tabs, \r and \n into cols and returns their
// number; a line with more than len(cols) columns returns len(cols)+1.
func splitCols(b []byte, cols *[maxLogCols][]byte) int {
	n := 0
	i := 0
	for i < len(b) {
		for i < len(b) && isSep(b[i]) {
			i++
		}
		if i == len(b) {
			break
		}
		j := i
		for j < len(b) && !isSep(b[j]) {
			j++
		}
		if n == len(cols) {
			return n + 1
		}
		cols[n] = b[i:j]
		n++
		i = j
	}
	return n
}

func isSep(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// detectKind tells the kind of a file from its first line's columns.
func detectKind(cols [][]byte) LogKind {
	switch len(cols) {
	case 6, 10, 11, 15, 16:
		if v, ok := parseUint(cols[0]); ok && v >= 100_000_000 {
			return LogAggregate
		}
	}
	return LogTransactions
}

// parseUint parses a non-empty string of ASCII digits (at most 18, so that
// it cannot overflow).
func parseUint(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		v = v*10 + int64(d)
	}
	return v, true
}

// parseInt is parseUint with an optional leading '-' (pgbench's "%.0f" of
// a negative lag after a clock step).
func parseInt(b []byte) (int64, bool) {
	if len(b) > 1 && b[0] == '-' {
		v, ok := parseUint(b[1:])
		return -v, ok
	}
	return parseUint(b)
}

var (
	wordSkipped       = []byte("skipped")
	wordFailed        = []byte("failed")
	wordSerialization = []byte("serialization")
	wordDeadlock      = []byte("deadlock")
	wordOther         = []byte("other")
)

// fastTx parses b as the per-transaction line pgbench writes (columns
// separated by one space, a committed, skipped or failed line, ending in
// \n or at the end of the input) in one pass, and reports whether it
// could; anything else (tabs, \r, other words, errors) is left to the
// general parser, which gives the same result or the error.
func (r *LogReader) fastTx(b []byte) bool {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	var f [8]int64
	k, i := 0, 0
	status := TxCommitted
	for k < len(f) {
		j := i
		if k == 2 && i < len(b) && b[i] > '9' {
			switch {
			case bytes.HasPrefix(b[i:], wordSkipped):
				status, i = TxSkipped, i+len(wordSkipped)
			case bytes.HasPrefix(b[i:], wordFailed):
				status, i = TxFailed, i+len(wordFailed)
			default:
				return false
			}
		} else {
			var v int64
			for i < len(b) {
				d := b[i] - '0'
				if d > 9 {
					break
				}
				v = v*10 + int64(d)
				i++
			}
			if i == j || i-j > 18 {
				return false
			}
			f[k] = v
		}
		k++
		if i == len(b) {
			break
		}
		if b[i] != ' ' {
			return false
		}
		i++
	}
	if i != len(b) || k < 6 || f[5] >= 1_000_000 {
		return false
	}
	r.Tx = TxLine{Client: f[0], TxNo: f[1], Status: status, Latency: f[2], Script: f[3], Epoch: f[4], Micros: f[5],
		Cols: k, Col7: f[6], Col8: f[7]}
	return true
}

func (r *LogReader) parseTx(cols [][]byte) error {
	if len(cols) < 6 || len(cols) > 8 {
		return fmt.Errorf("%d columns, a per-transaction line has 6 to 8 (client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries])", len(cols))
	}
	t := &r.Tx
	var ok bool
	if t.Client, ok = parseUint(cols[0]); !ok {
		return colErr("client_id", cols[0])
	}
	if t.TxNo, ok = parseUint(cols[1]); !ok {
		return colErr("transaction_no", cols[1])
	}
	t.Latency = 0
	if lat, ok := parseUint(cols[2]); ok {
		t.Status, t.Latency = TxCommitted, lat
	} else {
		switch c := cols[2]; {
		case bytes.Equal(c, wordSkipped):
			t.Status = TxSkipped
		case bytes.Equal(c, wordFailed):
			t.Status = TxFailed
		case bytes.Equal(c, wordSerialization):
			t.Status = TxSerialization
		case bytes.Equal(c, wordDeadlock):
			t.Status = TxDeadlock
		case bytes.Equal(c, wordOther):
			t.Status = TxOther
		default:
			return colErr("time (a latency in µs, skipped, failed, serialization, deadlock or other)", c)
		}
	}
	if t.Script, ok = parseUint(cols[3]); !ok {
		return colErr("script_no", cols[3])
	}
	if t.Epoch, ok = parseUint(cols[4]); !ok {
		return colErr("time_epoch", cols[4])
	}
	if t.Micros, ok = parseUint(cols[5]); !ok || t.Micros >= 1_000_000 {
		return colErr("time_us", cols[5])
	}
	t.Cols, t.Col7, t.Col8 = len(cols), 0, 0
	if len(cols) > 6 {
		if t.Col7, ok = parseInt(cols[6]); !ok {
			return colErr("the 7th column (schedule_lag or retries)", cols[6])
		}
	}
	if len(cols) > 7 {
		if t.Col8, ok = parseUint(cols[7]); !ok {
			return colErr("retries", cols[7])
		}
	}
	return nil
}

// aggNames are the aggregate columns in order (15+; before 15 the first 11).
var aggNames = [...]string{"interval_start", "num_transactions", "sum_latency", "sum_latency_2", "min_latency", "max_latency",
	"sum_lag", "sum_lag_2", "min_lag", "max_lag", "skipped", "retried", "retries",
	"serialization_failures", "deadlock_failures", "other_failures"}

func (r *LogReader) parseAgg(cols [][]byte) error {
	switch len(cols) {
	case 6, 10, 11, 15, 16:
	default:
		return fmt.Errorf("%d columns, an aggregate line has 6, 10 or 11 (before PostgreSQL 15), 15 or 16 (15 and later)", len(cols))
	}
	var ints [16]int64
	var floats [16]float64
	for i, c := range cols {
		switch i {
		case 2, 3, 4, 5, 6, 7, 8, 9: // "%.0f" of doubles: may exceed int64 (Σx²)
			v, err := strconv.ParseFloat(string(c), 64)
			if err != nil || v < 0 && i != 8 && i != 9 {
				return colErr(aggNames[i], c)
			}
			floats[i] = v
		default:
			v, ok := parseUint(c)
			if !ok {
				return colErr(aggNames[i], c)
			}
			ints[i] = v
		}
	}
	a := &r.Agg
	*a = AggLine{Cols: len(cols), Start: ints[0], Count: ints[1],
		SumLat: floats[2], Sum2Lat: floats[3], MinLat: floats[4], MaxLat: floats[5],
		SumLag: floats[6], Sum2Lag: floats[7], MinLag: floats[8], MaxLag: floats[9],
		Skipped: ints[10], Retried: ints[11], Retries: ints[12], Serialization: ints[13], Deadlock: ints[14], Other: ints[15]}
	return nil
}

func colErr(what string, got []byte) error {
	if len(got) > 40 {
		got = append(got[:40:40], "…"...)
	}
	return fmt.Errorf("%s is %q: not a pgbench log line", what, got)
}
