package pgbenchfmt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/prng"
)

// epochUS is a time from epoch µs.
func epochMicros(us int64) time.Time { return time.UnixMicro(us) }

func readLogFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTxLogPath(t *testing.T) {
	if got := TxLogPath("", 123, 0); got != "pgbench_log.123" {
		t.Errorf("got %q", got)
	}
	if got := TxLogPath("dir/p", 123, 2); got != "dir/p.123.2" {
		t.Errorf("got %q", got)
	}
}

func TestTxLogPerTransaction(t *testing.T) {
	type entry struct {
		client int
		txNo   int64
		tx     metrics.Tx
		at     int64 // epoch µs
	}
	entries := []entry{
		{0, 1, txOK(0, 648, 73, 1), 1796006485153240},
		{1, 1, txSkipped(1), 1796006485200000},
		{0, 2, txFailed(0, metrics.FailedSerialization, 2), 1796006486000001},
		{0, 3, txFailed(1, metrics.FailedDeadlock, 1), 1796006486999999},
		{1, 2, txFailed(0, metrics.FailedOther, 1), 1796006487000000},
		{1, 3, txOK(1, 1500, 0, 3), 1796006487000000},
		{1, 4, metrics.Tx{Outcome: metrics.Dropped}, 1796006488000000}, // not a pgbench transaction
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{
			name: "plain",
			args: nil,
			want: `0 1 648 0 1796006485 153240
1 1 skipped 1 1796006485 200000
0 2 failed 0 1796006486 1
0 3 failed 1 1796006486 999999
1 2 failed 0 1796006487 0
1 3 1500 1 1796006487 0
`,
		},
		{
			// pgbench 15.18 printed "0 1 648 0 1796006485 153240 73 0" for -R 500 -L 1 --max-tries 2.
			name: "rate, limit, max tries, failures detailed",
			args: []string{"-R", "500", "-L", "1", "--max-tries", "2", "--failures-detailed"},
			want: `0 1 648 0 1796006485 153240 73 0
1 1 skipped 1 1796006485 200000 0 0
0 2 serialization 0 1796006486 1 0 1
0 3 deadlock 1 1796006486 999999 0 0
1 2 other 0 1796006487 0 0 0
1 3 1500 1 1796006487 0 0 2
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			o := parseTestOptions(t, nil, append([]string{"-n", "-T", "10", "-l"}, tc.args...)...)
			l, err := OpenTxLog(filepath.Join(dir, "pl"), 4242, 0, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			if l.Path() != filepath.Join(dir, "pl.4242") {
				t.Errorf("Path() = %q", l.Path())
			}
			for _, e := range entries {
				l.Log(e.client, e.txNo, &e.tx, epochMicros(e.at))
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if got := readLogFile(t, l.Path()); got != tc.want {
				t.Errorf("log:\n%s\nwant:\n%s", got, tc.want)
			}
			// Logging after Close is ignored; a second Close is harmless.
			l.Log(0, 9, &entries[0].tx, epochMicros(entries[0].at))
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTxLogSampling checks --sampling-rate: one draw from the thread's sample
// stream per transaction, a line when the draw is at most the rate.
func TestTxLogSampling(t *testing.T) {
	o := parseTestOptions(t, nil, "-n", "-t", "100", "-l", "--sampling-rate", "0.25")
	seed := prng.NewState(5432)
	sample := seed // the log's own copy, advanced by Log
	l, err := OpenTxLog(filepath.Join(t.TempDir(), "s"), 1, 3, o, &sample)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(l.Path(), "s.1.3") {
		t.Errorf("Path() = %q", l.Path())
	}
	var want strings.Builder
	draws := seed
	for i := int64(1); i <= 200; i++ {
		tx := txOK(0, i, 0, 1)
		if i%7 == 0 {
			tx = txSkipped(0) // skipped transactions are sampled too
		}
		at := 1700000000000000 + i
		if draws.Double() <= 0.25 {
			if tx.Outcome == metrics.Skipped {
				fmt.Fprintf(&want, "2 %d skipped 0 1700000000 %d\n", i, i)
			} else {
				fmt.Fprintf(&want, "2 %d %d 0 1700000000 %d\n", i, i, i)
			}
		}
		l.Log(2, i, &tx, epochMicros(at))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got := readLogFile(t, l.Path())
	if got != want.String() {
		t.Errorf("sampled log differs:\n%s\nwant:\n%s", got, want.String())
	}
	if n := strings.Count(got, "\n"); n < 25 || n > 80 {
		t.Errorf("%d of 200 lines sampled at 0.25", n)
	}
}

func TestTxLogAggregate(t *testing.T) {
	const s = int64(1000000)
	base := int64(1796006483) * s
	type entry struct {
		tx metrics.Tx
		at int64
	}
	entries := []entry{
		{txOK(0, 100, 10, 1), base + 900000},
		{txOK(1, 300, 30, 2), base + 1500000},
		{txFailed(0, metrics.FailedSerialization, 3), base + 1600000},
		{txFailed(0, metrics.FailedDeadlock, 2), base + 1700000},
		{txFailed(0, metrics.FailedOther, 1), base + 1800000},
		{txSkipped(0), base + 1900000},
		// [base+2, base+4) and [base+4, base+6) are empty
		{txOK(0, 200, 0, 1), base + 6*s + 100000},
		// [base+8, base+10) is in progress at the end: not written
		{txOK(0, 999, 0, 1), base + 8*s + 1},
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{
			name: "no optional columns",
			want: `1796006483 2 400 100000 100 300 0 0 0 0 0 0 0 0 0
1796006485 0 0 0 0 0 0 0 0 0 0 0 0 0 0
1796006487 0 0 0 0 0 0 0 0 0 0 0 0 0 0
1796006489 1 200 40000 200 200 0 0 0 0 0 0 0 0 0
`,
		},
		{
			name: "every column",
			args: []string{"-R", "100", "-L", "5", "--max-tries", "3", "--failures-detailed"},
			want: `1796006483 2 400 100000 100 300 40 1000 10 30 1 3 4 1 1
1796006485 0 0 0 0 0 0 0 0 0 0 0 0 0 0
1796006487 0 0 0 0 0 0 0 0 0 0 0 0 0 0
1796006489 1 200 40000 200 200 0 0 0 0 0 0 0 0 0
`,
		},
		{
			name: "continue on error: 16 columns",
			args: []string{"--failures-detailed", "--continue-on-error", "--max-tries", "3"},
			want: `1796006483 2 400 100000 100 300 0 0 0 0 0 3 4 1 1 1
1796006485 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
1796006487 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
1796006489 1 200 40000 200 200 0 0 0 0 0 0 0 0 0 0
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := parseTestOptions(t, nil, append([]string{"-n", "-T", "10", "-l", "--aggregate-interval", "2"}, tc.args...)...)
			l, err := OpenTxLog(filepath.Join(t.TempDir(), "a"), 7, 0, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			l.SetStart(epochMicros(base + 700000)) // the interval starts at the second
			for _, e := range entries {
				l.Log(0, 1, &e.tx, epochMicros(e.at))
			}
			if err := l.CloseAt(epochMicros(base + 9*s)); err != nil {
				t.Fatal(err)
			}
			if got := readLogFile(t, l.Path()); got != tc.want {
				t.Errorf("log:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestTxLogAggregateEnds covers how an aggregated log starts and ends: without
// SetStart the first transaction's second starts it; a run shorter than an
// interval writes nothing (as pgbench -t 50 --aggregate-interval 1 does);
// Close writes the intervals that ended, empty ones included; WritePartial
// writes the one in progress.
func TestTxLogAggregateEnds(t *testing.T) {
	o := parseTestOptions(t, nil, "-n", "-t", "10", "-l", "--aggregate-interval", "1")
	dir := t.TempDir()
	open := func(name string) *TxLog {
		l, err := OpenTxLog(filepath.Join(dir, name), 1, 0, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	tx := txOK(0, 5, 0, 1)

	l := open("short")
	l.Log(0, 1, &tx, epochMicros(5_400_000))
	l.Log(0, 2, &tx, epochMicros(5_900_000))
	if err := l.CloseAt(epochMicros(5_999_999)); err != nil {
		t.Fatal(err)
	}
	if got := readLogFile(t, l.Path()); got != "" {
		t.Errorf("short run: %q, want nothing", got)
	}

	l = open("close")
	l.Log(0, 1, &tx, epochMicros(5_400_000))
	if err := l.CloseAt(epochMicros(7_000_000)); err != nil {
		t.Fatal(err)
	}
	if got, want := readLogFile(t, l.Path()), "5 1 5 25 5 5 0 0 0 0 0 0 0 0 0\n6 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"; got != want {
		t.Errorf("close: %q, want %q", got, want)
	}

	l = open("late start")
	l.Log(0, 1, &tx, epochMicros(5_400_000))
	l.SetStart(epochMicros(3_000_000)) // too late: ignored
	if err := l.CloseAt(epochMicros(6_000_000)); err != nil {
		t.Fatal(err)
	}
	if got, want := readLogFile(t, l.Path()), "5 1 5 25 5 5 0 0 0 0 0 0 0 0 0\n"; got != want {
		t.Errorf("late start: %q, want %q", got, want)
	}

	l = open("partial")
	l.Log(0, 1, &tx, epochMicros(5_400_000))
	l.WritePartial()
	if err := l.CloseAt(epochMicros(5_500_000)); err != nil {
		t.Fatal(err)
	}
	if got, want := readLogFile(t, l.Path()), "5 1 5 25 5 5 0 0 0 0 0 0 0 0 0\n"; got != want {
		t.Errorf("partial: %q, want %q", got, want)
	}
}

func TestTxLogOpenError(t *testing.T) {
	dir := t.TempDir()
	_, err := OpenTxLog(filepath.Join(dir, "no", "such"), 99, 1, nil, nil)
	want := fmt.Sprintf("could not open logfile \"%s\": No such file or directory", filepath.Join(dir, "no", "such.99.1"))
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// TestTxLogConcurrent logs from many goroutines (run with -race): every
// line arrives whole.
func TestTxLogConcurrent(t *testing.T) {
	o := parseTestOptions(t, nil, "-n", "-T", "10", "-l", "-c", "8", "--max-tries", "2")
	l, err := OpenTxLog(filepath.Join(t.TempDir(), "c"), 5, 0, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	const clients, per = 8, 500
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := int64(1); i <= per; i++ {
				tx := txOK(0, 100+i, 0, 1)
				l.Log(c, i, &tx, time.Unix(1700000000, 0))
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(readLogFile(t, l.Path()), "\n"), "\n")
	if len(lines) != clients*per {
		t.Fatalf("%d lines, want %d", len(lines), clients*per)
	}
	for _, line := range lines {
		var c, n, lat, script, sec, us, retries int64
		if k, err := fmt.Sscanf(line, "%d %d %d %d %d %d %d", &c, &n, &lat, &script, &sec, &us, &retries); k != 7 || err != nil || lat != 100+n {
			t.Fatalf("bad line %q", line)
		}
	}
}

// TestTxLogFlushesWithinASecond: a line does not wait for Close to reach the
// file (on a fake clock).
func TestTxLogFlushesWithinASecond(t *testing.T) {
	dir := t.TempDir()
	o := parseTestOptions(t, nil, "-n", "-T", "10", "-l")
	synctest.Test(t, func(t *testing.T) {
		l, err := OpenTxLog(filepath.Join(dir, "f"), 1, 0, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		tx := txOK(0, 42, 0, 1)
		l.Log(0, 1, &tx, time.Unix(1700000000, 5))
		if got := readLogFile(t, l.Path()); got != "" {
			t.Errorf("written at once: %q", got)
		}
		time.Sleep(logFlushDelay)
		synctest.Wait()
		if got, want := readLogFile(t, l.Path()), "0 1 42 0 1700000000 0\n"; got != want {
			t.Errorf("after %v: %q, want %q", logFlushDelay, got, want)
		}
	})
}
