package metrics

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func TestScriptTags(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		n     int
		want  []string
	}{
		{"plain", []string{"tpcb-like"}, 1, []string{"tpcb-like"}},
		{"pgbench builtin name", []string{"<builtin: TPC-B (sort of)>"}, 1, []string{"<builtin:_TPC-B_(sort_of)>"}},
		{"commas, equals, tabs", []string{"a,b=c\td"}, 1, []string{"a_b_c_d"}},
		{"missing names", []string{"x"}, 3, []string{"x", "script2", "script3"}},
		{"empty name", []string{""}, 1, []string{"script1"}},
		{"duplicates", []string{"s", "s", "s"}, 3, []string{"s", "s_2", "s_3"}},
		{"total is reserved", []string{"total"}, 1, []string{"total_1"}},
		{"path kept", []string{"dir/x.sql"}, 1, []string{"dir/x.sql"}},
		{"collision after renaming", []string{"script2", ""}, 2, []string{"script2", "script2_2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScriptTags(tt.names, tt.n); !slices.Equal(got, tt.want) {
				t.Errorf("ScriptTags(%q, %d) = %q, want %q", tt.names, tt.n, got, tt.want)
			}
		})
	}
}

func TestSplitTag(t *testing.T) {
	tests := []struct {
		tag, script, kind string
		ok                bool
	}{
		{"total/lag", "total", "lag", true},
		{"dir/x.sql/response", "dir/x.sql", "response", true},
		{"untagged", "", "", false},
	}
	for _, tt := range tests {
		s, k, ok := SplitTag(tt.tag)
		if s != tt.script || k != tt.kind || ok != tt.ok {
			t.Errorf("SplitTag(%q) = %q, %q, %v", tt.tag, s, k, ok)
		}
	}
}

// TestLogRoundTrip writes intervals of a two-script set and reads them back:
// same tags in order, same times, same histograms.
func TestLogRoundTrip(t *testing.T) {
	start := time.Date(2025, 3, 1, 12, 0, 0, 437_000_000, time.UTC) // not on a whole second
	names := []string{"select only", "tpcb-like"}
	l := Layout{Scripts: 2}
	s := NewSet(2, l)

	const n = 5
	var ivs []*Interval
	for i := range n {
		for j := range i * 10 { // interval 0 is empty
			s.Recorder(j % 2).Record(&Tx{Script: j % 2, Outcome: Committed, Tries: 1,
				Response: int64(100 + j*37), Service: int64(90 + j*30), Lag: int64(10 + j*7)})
		}
		// Ticks at sub-millisecond offsets: the log keeps milliseconds.
		from := start.Add(time.Duration(i)*time.Second + 250*time.Microsecond)
		ivs = append(ivs, s.Tick(from, from.Add(time.Second)))
	}

	var buf bytes.Buffer
	lw, err := NewLogWriter(&buf, start)
	if err != nil {
		t.Fatal(err)
	}
	for _, iv := range ivs {
		if err := lw.Write(iv, names); err != nil {
			t.Fatal(err)
		}
	}
	text := buf.String()
	t.Logf("log:\n%s", text[:min(len(text), 1500)])

	// The header the standard tools expect.
	lines := strings.Split(text, "\n")
	wantHeader := []string{
		"#[Histogram log format version 1.3]",
		"#[StartTime: 1740830400.437 (seconds since epoch), 2025-03-01T12:00:00.437Z]",
		"#[BaseTime: 1740830400 (seconds since epoch)]",
		"#[pgtrial: values in microseconds; Interval_Max = max µs / 1e6, i.e. in seconds]",
		`"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"`,
	}
	if !slices.Equal(lines[:len(wantHeader)], wantHeader) {
		t.Errorf("header:\n%s\nwant:\n%s", strings.Join(lines[:len(wantHeader)], "\n"), strings.Join(wantHeader, "\n"))
	}
	// Interval lines: relative timestamps, 1 s long.
	if want := "Tag=select_only/response,0.437000,1.000000,"; !strings.HasPrefix(lines[len(wantHeader)], want) {
		t.Errorf("first interval line %q, want prefix %q (6 decimals)", lines[len(wantHeader)], want)
	}

	entries, err := ReadLog(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{"response", "service", "lag"}
	tags := []string{"select_only", "tpcb-like", "total"}
	if len(entries) != n*len(tags)*len(kinds) {
		t.Fatalf("read %d entries, want %d", len(entries), n*len(tags)*len(kinds))
	}
	k := 0
	for i, iv := range ivs {
		hists := append(slices.Clone(iv.Scripts), iv.Total)
		for j, tag := range tags {
			for _, kind := range kinds {
				e := entries[k]
				k++
				if want := tag + "/" + kind; e.Tag != want {
					t.Errorf("entry %d: tag %q, want %q", k, e.Tag, want)
				}
				if !e.Start.Equal(iv.Start.Truncate(time.Millisecond)) || !e.End.Equal(iv.End.Truncate(time.Millisecond)) {
					t.Errorf("%s interval %d: %v … %v, want %v … %v", e.Tag, i, e.Start, e.End, iv.Start, iv.End)
				}
				var h *hdrhistogram.Histogram
				switch kind {
				case "response":
					h = hists[j].Response
				case "service":
					h = hists[j].Service
				default:
					h = hists[j].Lag
				}
				if !sameCounts(e.Hist, h) {
					t.Errorf("%s interval %d: %d values, want %d", e.Tag, i, e.Hist.TotalCount(), h.TotalCount())
				}
				if e.Hist.LowestTrackableValue() != HistLowest || e.Hist.HighestTrackableValue() < HistHighest ||
					e.Hist.SignificantFigures() != HistSigFigs {
					t.Errorf("%s: geometry %d…%d/%d", e.Tag, e.Hist.LowestTrackableValue(), e.Hist.HighestTrackableValue(), e.Hist.SignificantFigures())
				}
			}
		}
	}
	// Write leaves the caller's histograms as they were.
	if tag := ivs[1].Total.Response.Tag(); tag != "" || ivs[1].Total.Response.StartTimeMs() != 0 {
		t.Errorf("Write left tag %q on the interval's histogram", tag)
	}
	if entries[0].Hist.TotalCount() != 0 {
		t.Errorf("first interval should be empty, has %d values", entries[0].Hist.TotalCount())
	}
}

func TestLogWriteNilHistogram(t *testing.T) {
	var buf bytes.Buffer
	lw, err := NewLogWriter(&buf, t0)
	if err != nil {
		t.Fatal(err)
	}
	iv := &Interval{Start: t0, End: t0.Add(time.Second), Scripts: []Hists{{}}}
	if err := lw.Write(iv, nil); err != nil {
		t.Fatal(err)
	}
	entries, err := ReadLog(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 6 || entries[0].Tag != "script1/response" || entries[5].Tag != "total/lag" {
		t.Fatalf("entries: %d, first %q", len(entries), entries[0].Tag)
	}
}

// TestReadLogOtherWriters reads logs as Java tools write them: untagged,
// relative timestamps without a BaseTime line.
func TestReadLogOtherWriters(t *testing.T) {
	h := NewHistogram()
	for v := range int64(100) {
		RecordValue(h, v*10)
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	log := "#[Logged with jHiccup version 2.0.7]\n" +
		"#[Histogram log format version 1.2]\n" +
		"#[StartTime: 1441812279.474 (seconds since epoch), Wed Sep 09 08:24:39 PDT 2015]\n" +
		`"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"` + "\n" +
		"0.127,1.007,2.769," + string(enc) + "\n" +
		"Tag=A,1.134,0.999,0.442," + string(enc) // no final newline
	entries, err := ReadLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Tag != "" || entries[1].Tag != "A" {
		t.Fatalf("%d entries %+v", len(entries), entries)
	}
	if got, want := entries[0].Start.UnixMilli(), int64(1441812279474+127); got != want {
		t.Errorf("start %d ms, want %d", got, want)
	}
	if entries[1].Hist.TotalCount() != 100 {
		t.Errorf("count %d", entries[1].Hist.TotalCount())
	}

	if _, err := ReadLog(strings.NewReader("0.0,1.0,0.0,HISTFAAAAnotbase64!!\n")); err == nil {
		t.Error("a corrupt histogram was read without error")
	}
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, errors.New("disk full")
	}
	w.after--
	return len(p), nil
}

func TestLogWriterErrors(t *testing.T) {
	if _, err := NewLogWriter(&failWriter{after: 2}, t0); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("header write error: %v", err)
	}
	w := &failWriter{after: 5}
	lw, err := NewLogWriter(w, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := lw.Write(NewInterval(Layout{Scripts: 1}), nil); err == nil || !strings.Contains(err.Error(), "script1/response") {
		t.Errorf("interval write error: %v", err)
	}
}

// TestLogWriterMatchesLibrary: Write's lines are those of hdrhistogram-go's
// HistogramLogWriter, byte for byte, with one script (a total equal to it,
// encoded once) and with three.
func TestLogWriterMatchesLibrary(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 437_000_000, time.UTC)
	for _, scripts := range []int{1, 3} {
		rnd := rand.New(rand.NewPCG(uint64(scripts), 9))
		var got, want bytes.Buffer
		lw, err := NewLogWriter(&got, start)
		if err != nil {
			t.Fatal(err)
		}
		ref := hdrhistogram.NewHistogramLogWriter(&want)
		ref.SetBaseTime(start.Unix() * 1000)
		for k := range 5 {
			iv := NewInterval(Layout{Scripts: scripts})
			iv.Start, iv.End = start.Add(time.Duration(k)*time.Second), start.Add(time.Duration(k+1)*time.Second+3*time.Millisecond)
			for range 500 * k {
				sc := rnd.IntN(scripts)
				v := int64(rnd.ExpFloat64() * 3000)
				for _, h := range []*Hists{&iv.Scripts[sc], &iv.Total} {
					RecordValue(h.Response, v)
					RecordValue(h.Service, v/2)
					RecordValue(h.Lag, v/3)
				}
			}
			if k == 4 {
				iv.Scripts[0].Lag = nil // written as an empty histogram
			}
			if err := lw.Write(iv, nil); err != nil {
				t.Fatal(err)
			}
			tags := ScriptTags(nil, scripts)
			all := append(append([]Hists(nil), iv.Scripts...), iv.Total)
			for i := range all {
				prefix := TagTotal
				if i < scripts {
					prefix = tags[i]
				}
				for _, kh := range []struct {
					kind string
					h    *hdrhistogram.Histogram
				}{{KindResp, all[i].Response}, {KindService, all[i].Service}, {KindLag, all[i].Lag}} {
					h := kh.h
					if h == nil {
						h = NewHistogram()
					}
					h.SetTag(prefix + "/" + kh.kind)
					h.SetStartTimeMs(iv.Start.UnixMilli())
					h.SetEndTimeMs(iv.End.UnixMilli())
					if err := ref.OutputIntervalHistogram(h); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		g := got.String()
		g = g[strings.Index(g, "Tag="):] // after the header
		if g != want.String() {
			t.Errorf("%d scripts: lines differ from the library's:\n%s\nwant\n%s", scripts, g[:min(len(g), 600)], want.String()[:min(want.Len(), 600)])
		}
	}
	if !badTag("a,b") || badTag(",ab") || badTag("a/b") {
		t.Error("badTag")
	}
}
