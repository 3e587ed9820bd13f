package workload

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

func gen(t *testing.T, table string, f CopyFormat, first, end int64, big bool) []byte {
	t.Helper()
	r, err := NewRows(table, f, first, end, big)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	buf := make([]byte, 0, 4*MaxRowBytes) // small, to exercise the refill path
	for r.Remaining() > 0 {
		var n int
		buf, n = r.Fill(buf[:0])
		if n == 0 {
			t.Fatal("Fill made no progress")
		}
		out = append(out, buf...)
	}
	return out
}

func TestTextRowsArePgbenchs(t *testing.T) {
	tests := []struct {
		table       string
		first, end  int64
		want        string
		description string
	}{
		{Branches, 0, 2, "1\t0\t\\N\n2\t0\t\\N\n", "bid, bbalance 0, filler NULL"},
		{Tellers, 8, 12, "9\t1\t0\t\\N\n10\t1\t0\t\\N\n11\t2\t0\t\\N\n12\t2\t0\t\\N\n", "10 tellers per branch"},
		{Accounts, 0, 2, "1\t1\t0\t\n2\t1\t0\t\n", "filler is an empty string, not NULL"},
		{Accounts, 99999, 100001, "100000\t1\t0\t\n100001\t2\t0\t\n", "bid changes every 100000 accounts"},
	}
	for _, tt := range tests {
		got := string(gen(t, tt.table, CopyText, tt.first, tt.end, false))
		if got != tt.want {
			t.Errorf("%s [%d,%d) (%s):\n got %q\nwant %q", tt.table, tt.first, tt.end, tt.description, got, tt.want)
		}
	}
}

func TestTextAccountsAtLargeKeys(t *testing.T) {
	// Scale 30000: aid beyond int4, bid 30000.
	k := int64(2999999999)
	got := string(gen(t, Accounts, CopyText, k, k+1, true))
	if want := "3000000000\t30000\t0\t\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestBinaryRows(t *testing.T) {
	be32 := func(v uint32) string {
		return string([]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	}
	field := func(v uint32) string { return be32(4) + be32(v) }
	null := be32(0xffffffff)
	tests := []struct {
		table string
		k     int64
		big   bool
		want  string
	}{
		{Branches, 4, false, "\x00\x03" + field(5) + field(0) + null},
		{Tellers, 10, false, "\x00\x04" + field(11) + field(2) + field(0) + null},
		{Accounts, 100000, false, "\x00\x04" + field(100001) + field(2) + field(0) + be32(0)},
		{Accounts, 100000, true, "\x00\x04" + be32(8) + be32(0) + be32(100001) + field(2) + field(0) + be32(0)},
	}
	for _, tt := range tests {
		got := string(gen(t, tt.table, CopyBinary, tt.k, tt.k+1, tt.big))
		if got != tt.want {
			t.Errorf("%s k=%d big=%v:\n got %x\nwant %x", tt.table, tt.k, tt.big, got, tt.want)
		}
	}
	if len(BinaryHeader) != 19 || !bytes.HasPrefix(BinaryHeader, []byte("PGCOPY\n\xff\r\n\x00")) {
		t.Errorf("bad binary header %x", BinaryHeader)
	}
}

func TestAppendUint(t *testing.T) {
	for _, v := range []uint64{0, 1, 9, 10, 99, 100, 101, 999, 1000, 12345, 100000, 2147483647, 18446744073709551615} {
		if got := string(appendUint(nil, v)); got != strconv.FormatUint(v, 10) {
			t.Errorf("appendUint(%d) = %q", v, got)
		}
	}
}

func TestFillDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 256<<10)
	r, _ := NewRows(Accounts, CopyText, 0, 1<<62, false)
	rb, _ := NewRows(Accounts, CopyBinary, 0, 1<<62, false)
	allocs := testing.AllocsPerRun(100, func() {
		buf, _ = r.Fill(buf[:0])
		buf, _ = rb.Fill(buf[:0])
	})
	if allocs != 0 {
		t.Errorf("Fill allocates %.1f times per call, want 0", allocs)
	}
}

func TestFillNeverGrowsBuffer(t *testing.T) {
	buf := make([]byte, 0, 1000)
	r, _ := NewRows(Accounts, CopyText, 0, 1000, false)
	out, n := r.Fill(buf)
	if cap(out) != 1000 || &out[:1][0] != &buf[:1][0] {
		t.Error("Fill reallocated the buffer")
	}
	if n != 1000/MaxRowBytes {
		t.Errorf("Fill wrote %d rows, want %d", n, 1000/MaxRowBytes)
	}
	if strings.Count(string(out), "\n") != n {
		t.Errorf("Fill wrote partial rows")
	}
}

func BenchmarkAccountsText(b *testing.B) {
	benchmarkRows(b, CopyText)
}

func BenchmarkAccountsBinary(b *testing.B) {
	benchmarkRows(b, CopyBinary)
}

// benchmarkRows reports ns per row (b.N rows) and bytes per row.
func benchmarkRows(b *testing.B, f CopyFormat) {
	buf := make([]byte, 0, 256<<10)
	r, _ := NewRows(Accounts, f, 0, int64(b.N), false)
	b.ReportAllocs()
	var total int
	for r.Remaining() > 0 {
		buf, _ = r.Fill(buf[:0])
		total += len(buf)
	}
	b.SetBytes(int64(total) / int64(max(b.N, 1)))
}
