package pgbenchfmt

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
)

func readAllTx(t *testing.T, text string) []TxLine {
	t.Helper()
	r, err := NewLogReader(strings.NewReader(text), "log")
	if err != nil {
		t.Fatal(err)
	}
	var out []TxLine
	for {
		ok, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if r.Kind() != LogTransactions {
			t.Fatalf("kind %v", r.Kind())
		}
		out = append(out, r.Tx)
	}
	return out
}

func TestLogReaderTransactions(t *testing.T) {
	text := "0 1 2151 0 1796345400 733397\n" + // plain
		"0 2 skipped 1 1796345400 735463 0\n" + // -R -L: skipped with lag 0
		"1 3 648 0 1796006485 153240 73 2\n" + // -R and --max-tries
		"1 4 failed 0 1796006485 153241 0 9\n" +
		"1 5 serialization 0 1796006486 0\r\n" +
		"\n" +
		"1\t6  deadlock 0 1796006486 999999\n" +
		"2 7 other 3 1796006487 1 -5" // no final newline, a negative lag
	got := readAllTx(t, text)
	want := []TxLine{
		{Client: 0, TxNo: 1, Status: TxCommitted, Latency: 2151, Script: 0, Epoch: 1796345400, Micros: 733397, Cols: 6},
		{Client: 0, TxNo: 2, Status: TxSkipped, Script: 1, Epoch: 1796345400, Micros: 735463, Cols: 7},
		{Client: 1, TxNo: 3, Status: TxCommitted, Latency: 648, Epoch: 1796006485, Micros: 153240, Cols: 8, Col7: 73, Col8: 2},
		{Client: 1, TxNo: 4, Status: TxFailed, Epoch: 1796006485, Micros: 153241, Cols: 8, Col8: 9},
		{Client: 1, TxNo: 5, Status: TxSerialization, Epoch: 1796006486, Micros: 0, Cols: 6},
		{Client: 1, TxNo: 6, Status: TxDeadlock, Epoch: 1796006486, Micros: 999999, Cols: 6},
		{Client: 2, TxNo: 7, Status: TxOther, Script: 3, Epoch: 1796006487, Micros: 1, Cols: 7, Col7: -5},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if e := got[0].End(); e != 1796345400733397 {
		t.Errorf("End = %d", e)
	}
}

func TestLogReaderAggregate(t *testing.T) {
	tests := []struct {
		line string
		want AggLine
	}{
		{"1796345402 206 224918 391909462 320 5815", AggLine{Cols: 6, Start: 1796345402, Count: 206, SumLat: 224918, Sum2Lat: 391909462, MinLat: 320, MaxLat: 5815}},
		{"1796345402 206 224918 391909462 320 5815 100 2000 1 30", AggLine{Cols: 10, Start: 1796345402, Count: 206, SumLat: 224918, Sum2Lat: 391909462, MinLat: 320, MaxLat: 5815,
			SumLag: 100, Sum2Lag: 2000, MinLag: 1, MaxLag: 30}},
		{"1796345402 206 224918 391909462 320 5815 100 2000 1 30 7", AggLine{Cols: 11, Start: 1796345402, Count: 206, SumLat: 224918, Sum2Lat: 391909462, MinLat: 320, MaxLat: 5815,
			SumLag: 100, Sum2Lag: 2000, MinLag: 1, MaxLag: 30, Skipped: 7}},
		{"1796006483 884 160957 37145987 56 1690 77228 11931478 2 1599 3 4 5 6 7", AggLine{Cols: 15, Start: 1796006483, Count: 884, SumLat: 160957, Sum2Lat: 37145987, MinLat: 56, MaxLat: 1690,
			SumLag: 77228, Sum2Lag: 11931478, MinLag: 2, MaxLag: 1599, Skipped: 3, Retried: 4, Retries: 5, Serialization: 6, Deadlock: 7}},
		{"1796006483 1 1 1 1 1 0 0 0 0 0 0 0 0 0 9", AggLine{Cols: 16, Start: 1796006483, Count: 1, SumLat: 1, Sum2Lat: 1, MinLat: 1, MaxLat: 1, Other: 9}},
		// Σx² beyond int64.
		{"1796006483 9 1 99999999999999999999 1 1", AggLine{Cols: 6, Start: 1796006483, Count: 9, SumLat: 1, Sum2Lat: 1e20, MinLat: 1, MaxLat: 1}},
	}
	for _, tt := range tests {
		r, err := NewLogReader(strings.NewReader(tt.line+"\n"), "agg")
		if err != nil {
			t.Fatal(err)
		}
		ok, err := r.Next()
		if err != nil || !ok {
			t.Fatalf("%q: %v %v", tt.line, ok, err)
		}
		if r.Kind() != LogAggregate {
			t.Fatalf("%q: kind %v", tt.line, r.Kind())
		}
		if r.Agg != tt.want {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.line, r.Agg, tt.want)
		}
	}
}

func TestLogReaderGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("0 1 100 0 1796345400 1\n0 2 200 0 1796345400 2\n"))
	zw.Close()
	r, err := NewLogReader(&buf, "log.gz")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Compressed() {
		t.Error("not seen as compressed")
	}
	var sum int64
	for {
		ok, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		sum += r.Tx.Latency
	}
	if sum != 300 || r.Line() != 2 {
		t.Errorf("sum %d lines %d", sum, r.Line())
	}
}

func TestLogReaderErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"0 1 2151 0 1796345400\n", "f:1: 5 columns"},
		{"0 1 2151 0 1796345400 1\n0 1 x 0 1796345400 1\n", `f:2: time (a latency in µs, skipped, failed, serialization, deadlock or other) is "x"`},
		{"0 1 2151 0 1796345400 1000000\n", "f:1: time_us"},
		{"1796345402 206 224918 391909462 320 5815\n1796345402 206 224918\n", "f:2: 3 columns, an aggregate line"},
		{"1796345402 206 224918 391909462 320 5815\n1796345402 206 a 391909462 320 5815\n", `f:2: sum_latency is "a"`},
		{strings.Repeat("1 ", 3000) + "\n", "f:1: line longer than"},
		{"<html>\n", "f:1: 1 columns"},
	}
	for _, tt := range tests {
		r, err := NewLogReader(strings.NewReader(tt.text), "f")
		if err != nil {
			t.Fatal(err)
		}
		for {
			ok, err := r.Next()
			if err != nil {
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%q: error %q, want %q", tt.text, err, tt.want)
				}
				break
			}
			if !ok {
				t.Errorf("%q: no error, want %q", tt.text, tt.want)
				break
			}
		}
	}
}

func TestLogReaderBadGzip(t *testing.T) {
	if _, err := NewLogReader(strings.NewReader("\x1f\x8bxx"), "bad.gz"); err == nil || !strings.Contains(err.Error(), "bad.gz: not a readable gzip") {
		t.Errorf("err = %v", err)
	}
}

// FuzzLogLine: no input makes the reader panic, and every line it accepts
// has the column counts of its kind.
func FuzzLogLine(f *testing.F) {
	for _, s := range []string{
		"0 1 2151 0 1796345400 733397\n",
		"0 3 skipped 0 1796345400 735463 0\n",
		"1 3 648 0 1796006485 153240 73 2\n",
		"1796006483 884 160957 37145987 56 1690 77228 11931478 2 1599 0 0 0 0 0\n",
		"1796345402 206 224918 391909462 320 5815\n1796345402 1 2 3 4 5\n",
		"\x1f\x8b\x08\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewLogReader(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		for range 10000 {
			ok, err := r.Next()
			if err != nil || !ok {
				return
			}
			switch r.Kind() {
			case LogTransactions:
				if r.Tx.Cols < 6 || r.Tx.Cols > 8 || r.Tx.Micros >= 1e6 || r.Tx.Latency < 0 {
					t.Fatalf("accepted %+v", r.Tx)
				}
			case LogAggregate:
				if c := r.Agg.Cols; c != 6 && c != 10 && c != 11 && c != 15 && c != 16 {
					t.Fatalf("accepted %+v", r.Agg)
				}
			default:
				t.Fatalf("kind %v after a line", r.Kind())
			}
		}
	})
}

// FuzzFastTx: whatever line the one-pass parser accepts, the general one
// accepts too, with the same fields.
func FuzzFastTx(f *testing.F) {
	for _, s := range []string{"0 1 2151 0 1796345400 733397\n", "0 3 skipped 0 1796345400 735463 0\n", "1 3 648 0 1796006485 153240 -73 2\n",
		"1 4 failed 0 1796006485 1 0 9", "1 4 failedx 0 1796006485 1\n", "1 2 3 4 5 6 7 8 9\n",
		"12345678 123456789012345678 1234567890123456789 0 1796006485 1\n", "1234567 12345678 123456789 0 1796006485 999999 12345678901234567\n",
		"0 1 99999999 0 17960064851796006 1 00000000\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > MaxLogLine {
			return
		}
		var r LogReader
		if !r.fastTx(b) {
			return
		}
		fast := r.Tx
		n := splitCols(b, &r.cols)
		if n > len(r.cols) {
			t.Fatalf("fast path took %q with %d columns", b, n)
		}
		if err := r.parseTx(r.cols[:n]); err != nil {
			t.Fatalf("fast path took %q, the general parser says %v", b, err)
		}
		if r.Tx != fast {
			t.Fatalf("%q: fast %+v, general %+v", b, fast, r.Tx)
		}
	})
}

// BenchmarkLogReader: lines of a -R log read from memory (ns/op is per line).
func BenchmarkLogReader(b *testing.B) {
	var sb strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&sb, "%d %d %d 0 1796345400 %d %d\n", i%16, i/16+1, 200+i*7919%5000, i*37%1000000, i%97)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)) / 100000)
	b.ResetTimer()
	for n := 0; n < b.N; {
		r, _ := NewLogReader(bytes.NewReader(data), "bench")
		for n < b.N {
			ok, err := r.Next()
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
			n++
		}
	}
}
