package metrics

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// oldMerge is the decode+merge MergeLog replaces: ReadLog, then every entry
// want takes merged into a NewHistogram per tag.
func oldMerge(data []byte, want func(tag string, start, end time.Time) bool) (map[string]*Merged, error) {
	entries, err := ReadLog(bytes.NewReader(data))
	out := map[string]*Merged{}
	for _, e := range entries {
		if !want(e.Tag, e.Start, e.End) {
			continue
		}
		m := out[e.Tag]
		if m == nil {
			m = &Merged{Hist: NewHistogram()}
			out[e.Tag] = m
		}
		m.Dropped = addSat(m.Dropped, m.Hist.Merge(e.Hist))
		m.Intervals++
		if m.From.IsZero() || e.Start.Before(m.From) {
			m.From = e.Start
		}
		if e.End.After(m.To) {
			m.To = e.End
		}
	}
	return out, err
}

var everyInterval = func(string, time.Time, time.Time) bool { return true }

// sameMerges fails t unless got and want hold the same tags with the same
// counts (bucket by bucket, so every percentile), totals, intervals, spans
// and drops.
func sameMerges(t testing.TB, got, want map[string]*Merged) {
	t.Helper()
	if g, w := slices.Sorted(mapKeys(got)), slices.Sorted(mapKeys(want)); !slices.Equal(g, w) {
		t.Fatalf("tags %q, want %q", g, w)
	}
	for tag, w := range want {
		g := got[tag]
		gs, ws := g.Hist.Export(), w.Hist.Export()
		if gs.LowestTrackableValue != ws.LowestTrackableValue || gs.HighestTrackableValue != ws.HighestTrackableValue ||
			gs.SignificantFigures != ws.SignificantFigures || !slices.Equal(gs.Counts, ws.Counts) {
			t.Errorf("%q: counts differ", tag)
		}
		if g.Hist.TotalCount() != w.Hist.TotalCount() || g.Hist.Max() != w.Hist.Max() || g.Hist.Min() != w.Hist.Min() {
			t.Errorf("%q: total %d max %d min %d, want %d %d %d", tag, g.Hist.TotalCount(), g.Hist.Max(), g.Hist.Min(),
				w.Hist.TotalCount(), w.Hist.Max(), w.Hist.Min())
		}
		for _, q := range []float64{0, 1, 10, 50, 90, 99, 99.9, 99.99, 100} {
			if gv, wv := g.Hist.ValueAtPercentile(q), w.Hist.ValueAtPercentile(q); gv != wv {
				t.Errorf("%q: p%v %d, want %d", tag, q, gv, wv)
			}
		}
		if g.Intervals != w.Intervals || !g.From.Equal(w.From) || !g.To.Equal(w.To) || g.Dropped != w.Dropped {
			t.Errorf("%q: %d intervals %v–%v dropped %d, want %d %v–%v %d", tag, g.Intervals, g.From, g.To, g.Dropped,
				w.Intervals, w.From, w.To, w.Dropped)
		}
	}
}

func mapKeys(m map[string]*Merged) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// randomLog writes n intervals of scripts scripts with random histograms
// (values over the whole range, the extremes included, and empty ones).
func randomLog(t testing.TB, seed uint64, scripts, n int) ([]byte, time.Time) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	start := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	var buf bytes.Buffer
	lw, err := NewLogWriter(&buf, start)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, scripts)
	for i := range names {
		names[i] = fmt.Sprintf("s %d", i)
	}
	random := func() *hdrhistogram.Histogram {
		h := NewHistogram()
		switch rng.IntN(5) {
		case 0: // empty
		case 1: // a few extremes
			RecordValue(h, 0)
			RecordValue(h, HistHighest)
			RecordValue(h, 1)
		default:
			scale := rng.Float64() * 20
			for range rng.IntN(3000) {
				RecordValue(h, int64(rng.ExpFloat64()*float64(int64(1)<<int(scale))))
			}
		}
		return h
	}
	for i := range n {
		from := start.Add(time.Duration(i)*time.Second + time.Duration(rng.IntN(1000))*time.Microsecond)
		iv := &Interval{Start: from, End: from.Add(time.Second), Total: Hists{Response: random(), Service: random(), Lag: random()}}
		for range scripts {
			iv.Scripts = append(iv.Scripts, Hists{Response: random(), Service: random(), Lag: random()})
		}
		if err := lw.Write(iv, names); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes(), start
}

// TestMergeLogEqualsReadLog: on random logs, MergeLog gives exactly the
// counts of ReadLog + Merge, whichever intervals and tags are wanted.
func TestMergeLogEqualsReadLog(t *testing.T) {
	for seed := range uint64(3) {
		data, start := randomLog(t, seed, 2, 40)
		wants := map[string]func(string, time.Time, time.Time) bool{
			"every interval": everyInterval,
			"a window": func(_ string, s, e time.Time) bool {
				return s.After(start.Add(10*time.Second)) && e.Before(start.Add(30*time.Second))
			},
			"total only":   func(tag string, _, _ time.Time) bool { return strings.HasPrefix(tag, TagTotal+"/") },
			"no interval":  func(string, time.Time, time.Time) bool { return false },
			"one response": func(tag string, _, _ time.Time) bool { return tag == "s_1/response" },
		}
		for name, want := range wants {
			t.Run(fmt.Sprintf("%d/%s", seed, name), func(t *testing.T) {
				got, err := MergeLog(bytes.NewReader(data), want)
				if err != nil {
					t.Fatal(err)
				}
				old, err := oldMerge(data, want)
				if err != nil {
					t.Fatal(err)
				}
				sameMerges(t, got, old)
			})
		}
	}
}

// otherGeometry is an interval line, tagged tag, of a histogram of another
// geometry than NewHistogram's.
func otherGeometry(t testing.TB, tag string, stamp float64, lowest, highest int64, sig int, values ...int64) string {
	t.Helper()
	h := hdrhistogram.New(lowest, highest, sig)
	for _, v := range values {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("Tag=%s,%.3f,1.000,0.0,%s\n", tag, stamp, enc)
}

// TestMergeLogOtherGeometry: a line of other parameters (fewer digits, a
// smaller or wider range, values past one hour) is merged as Merge does,
// values it cannot hold counted as dropped.
func TestMergeLogOtherGeometry(t *testing.T) {
	data, _ := randomLog(t, 9, 1, 5)
	text := string(data) +
		otherGeometry(t, "total/response", 1e9+6, 1, 1_000_000, 2, 5, 77, 12345, 999_999) +
		otherGeometry(t, "total/response", 1e9+7, 1, 10*HistHighest, 3, 3, HistHighest+1e9, 5*HistHighest) +
		otherGeometry(t, "other/kind", 1e9+8, 10, 1_000_000, 4, 10, 20, 30)
	got, err := MergeLog(strings.NewReader(text), everyInterval)
	if err != nil {
		t.Fatal(err)
	}
	old, err := oldMerge([]byte(text), everyInterval)
	if err != nil {
		t.Fatal(err)
	}
	sameMerges(t, got, old)
	if got["total/response"].Dropped != 2 {
		t.Errorf("dropped %d, want the 2 values past one hour", got["total/response"].Dropped)
	}
}

// TestMergeLogOtherWriters: untagged lines, relative timestamps after a
// StartTime line, a "Tag=" line without a comma, a last line without a
// newline.
func TestMergeLogOtherWriters(t *testing.T) {
	h := NewHistogram()
	for v := range int64(100) {
		RecordValue(h, v*10)
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	log := "#[Logged with jHiccup version 2.0.7]\n" +
		"#[StartTime: 1441812279.474 (seconds since epoch), Wed Sep 09 08:24:39 PDT 2015]\n" +
		`"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"` + "\n" +
		"0.127,1.007,2.769," + string(enc) + "\n" +
		"Tag=nocomma\n" +
		"Tag=A,not a line\n" +
		"1.134,0.999,0.442," + string(enc) + "\n" + // takes the pending tag A, as the library does
		"x,1.0,2.0,3.0," + string(enc) + "\n" + // matched after "x": an empty start, an error
		"Tag=B,2.134,0.999,0.442," + string(enc)
	for _, cut := range []int{len(log), strings.Index(log, "x,1.0")} {
		text := log[:cut]
		got, gerr := MergeLog(strings.NewReader(text), everyInterval)
		old, oerr := oldMerge([]byte(text), everyInterval)
		if (gerr == nil) != (oerr == nil) {
			t.Fatalf("cut %d: error %v, ReadLog's %v", cut, gerr, oerr)
		}
		sameMerges(t, got, old)
		if got["A"] == nil || got["A"].Intervals != 1 || got[""] == nil {
			t.Errorf("cut %d: tags %q", cut, slices.Sorted(mapKeys(got)))
		}
		if got, want := got[""].From.UnixMilli(), int64(1441812279474+127); got != want {
			t.Errorf("start %d ms, want %d", got, want)
		}
	}
}

// TestMergeLogErrors: a corrupt or truncated line ends the reading with an
// error, as ReadLog's; the lines before it are merged.
func TestMergeLogErrors(t *testing.T) {
	data, _ := randomLog(t, 4, 1, 3)
	lines := strings.SplitAfter(string(data), "\n")
	last := lines[len(lines)-2] // the last complete line
	bad := map[string]string{
		"truncated last line": strings.Join(lines[:len(lines)-2], "") + last[:len(last)/2],
		"garbage base64":      string(data) + "Tag=total/response,9.0,1.0,0.0,HISTFAAAAnotbase64!!\n",
		"bad zlib":            string(data) + "Tag=total/response,9.0,1.0,0.0," + encodeRaw(0x1c849314, []byte("not zlib at all")) + "\n",
		"short":               string(data) + "Tag=total/response,9.0,1.0,0.0,AAAA\n",
		"bad stamp":           string(data) + "Tag=total/response,9.0.1,1.0,0.0,AAAA\n",
		"more after it":       string(data) + "Tag=total/response,9.0,1.0,0.0,AAAA\n" + string(data[strings.Index(string(data), "Tag="):]),
	}
	for name, text := range bad {
		t.Run(name, func(t *testing.T) {
			got, gerr := MergeLog(strings.NewReader(text), everyInterval)
			old, oerr := oldMerge([]byte(text), everyInterval)
			if gerr == nil || oerr == nil {
				t.Fatalf("errors %v, ReadLog's %v: want both", gerr, oerr)
			}
			sameMerges(t, got, old)
		})
	}
}

// encodeRaw is the base64 of a V2 compressed encoding's outer header
// (cookie, length) and body.
func encodeRaw(cookie uint32, body []byte) string {
	b := binary.BigEndian.AppendUint32(nil, cookie)
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	return base64.StdEncoding.EncodeToString(append(b, body...))
}

// smallLog is a log of two intervals of one script with a few values: the
// fuzzer's seed (the fuzzer is slow on large inputs).
func smallLog(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	lw, err := NewLogWriter(&buf, time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		h := NewHistogram()
		for _, v := range []int64{0, 1, 999, 1000, 1001, 123_456, HistHighest} {
			RecordValue(h, v*int64(i+1))
		}
		from := time.Date(2026, 1, 2, 3, 4, 5+i, 6_000_000, time.UTC)
		iv := &Interval{Start: from, End: from.Add(time.Second), Total: Hists{Response: h},
			Scripts: []Hists{{Service: h}}}
		if err := lw.Write(iv, []string{"s"}); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// FuzzLogMerge: MergeLog never panics, and it fails where ReadLog fails
// with the same merges of the lines before. Run it with a short
// -fuzzminimizetime (e.g. 2s): minimizing a new input with the default 60 s
// stalls the fuzzer (ReadLog's Histogram per line is slow).
func FuzzLogMerge(f *testing.F) {
	data := smallLog(f)
	text := string(data)
	f.Add(data)
	f.Add(data[:len(data)-40])
	f.Add([]byte(text + "Tag=total/response,9.0,1.0,0.0,HISTFAAAAnotbase64!!\n"))
	f.Add([]byte(text + "Tag=total/response,9.0,1.0,0.0," + encodeRaw(0x1c849314, []byte("not zlib")) + "\n"))
	f.Add([]byte(text + otherGeometry(f, "x", 9, 1, 1000, 1, 5, 999)))
	f.Add([]byte("#[StartTime: 5.5 (seconds)]\n#[BaseTime: 1.0]\n0.5,1.0,2.0,AAAA\nTag=\n,,,\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, gerr := MergeLog(bytes.NewReader(in), everyInterval)
		old, oerr := oldMerge(in, everyInterval)
		if (gerr == nil) != (oerr == nil) {
			t.Fatalf("error %v, ReadLog's %v", gerr, oerr)
		}
		sameMerges(t, got, old)
	})
}

// BenchmarkMergeLog: an hour of one script's intervals (12 tags).
func BenchmarkMergeLog(b *testing.B) {
	data, _ := randomLog(b, 2, 1, 600)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := MergeLog(bytes.NewReader(data), everyInterval); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadLogMerge: the same with ReadLog + Merge.
func BenchmarkReadLogMerge(b *testing.B) {
	data, _ := randomLog(b, 2, 1, 600)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := oldMerge(data, everyInterval); err != nil {
			b.Fatal(err)
		}
	}
}
