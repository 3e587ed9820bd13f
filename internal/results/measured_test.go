package results_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
)

// oldMeasured is the decode+merge MergeLatency replaces: ReadLatency, then
// the entries of the tags taken whose interval lies in w widened by a
// millisecond (every one when w is not known) merged per tag.
func oldMeasured(t *testing.T, dir string, w results.Window, want func(string) bool) map[string]*hdrhistogram.Histogram {
	t.Helper()
	entries, err := results.ReadLatency(dir)
	if err != nil {
		t.Fatal(err)
	}
	ww := results.Window{From: w.From.Add(-time.Millisecond), To: w.To.Add(time.Millisecond)}
	out := map[string]*hdrhistogram.Histogram{}
	for _, e := range entries {
		if !want(e.Tag) || (w.Known() && !ww.Holds(e.End, e.End.Sub(e.Start))) {
			continue
		}
		if out[e.Tag] == nil {
			out[e.Tag] = metrics.NewHistogram()
		}
		out[e.Tag].Merge(e.Hist)
	}
	return out
}

// sameHists fails t unless got holds exactly want's tags with equal counts
// (so equal percentiles and totals).
func sameHists(t *testing.T, got map[string]*metrics.Merged, want map[string]*hdrhistogram.Histogram) {
	t.Helper()
	var gk, wk []string
	for k := range got {
		gk = append(gk, k)
	}
	for k := range want {
		wk = append(wk, k)
	}
	slices.Sort(gk)
	slices.Sort(wk)
	if !slices.Equal(gk, wk) {
		t.Fatalf("tags %q, want %q", gk, wk)
	}
	for tag, w := range want {
		g := got[tag].Hist
		if !slices.Equal(g.Export().Counts, w.Export().Counts) || g.TotalCount() != w.TotalCount() {
			t.Errorf("%s: counts differ (total %d, want %d)", tag, g.TotalCount(), w.TotalCount())
		}
		for _, q := range []float64{50, 90, 99, 99.9, 100} {
			if g.ValueAtPercentile(q) != w.ValueAtPercentile(q) {
				t.Errorf("%s: p%v %d, want %d", tag, q, g.ValueAtPercentile(q), w.ValueAtPercentile(q))
			}
		}
	}
}

// TestMeasuredHistogramsEqualsOldMerge: on synthetic run directories, the
// measured window's merges by tag equal ReadLatency + Merge's, for every
// tag and for some; MeasuredResponse matches run.json's count.
func TestMeasuredHistogramsEqualsOldMerge(t *testing.T) {
	every := func(string) bool { return true }
	resp := func(tag string) bool { return strings.HasSuffix(tag, "/"+metrics.KindResp) }
	for _, o := range []resultstest.Options{
		{Scripts: 3, Duration: 40 * time.Second},
		{Scripts: 1, Duration: 30 * time.Second, Rate: -1, Warmup: -1},
		{Scripts: 2, Duration: 30 * time.Second, Interval: 500 * time.Millisecond, Seed: 3},
	} {
		t.Run(fmt.Sprintf("%d scripts, %v", o.Scripts, o.Interval), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			run, err := resultstest.WriteRun(dir, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []func(string) bool{every, resp} {
				got, err := results.MeasuredHistograms(dir, run, want)
				if err != nil {
					t.Fatal(err)
				}
				sameHists(t, got, oldMeasured(t, dir, results.MeasuredWindow(run), want))
				// A window not known takes every interval.
				all, err := results.MergeLatency(dir, results.Window{}, want)
				if err != nil {
					t.Fatal(err)
				}
				sameHists(t, all, oldMeasured(t, dir, results.Window{}, want))
			}
			h, err := results.MeasuredResponse(dir, run)
			if err != nil {
				t.Fatal(err)
			}
			if h.TotalCount() != run.Summary.Total.Response.Count {
				t.Errorf("measured %d responses, run.json %d", h.TotalCount(), run.Summary.Total.Response.Count)
			}
		})
	}
}

// TestMeasuredHistogramsTruncated: a last line cut short by a crash is
// ignored; a corrupt line before the end is an error, with the merges of
// the lines before it; a line of another geometry is merged.
func TestMeasuredHistogramsTruncated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run, err := resultstest.WriteRun(dir, resultstest.Options{Scripts: 2, Duration: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, results.LatencyFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	every := func(string) bool { return true }
	w := results.MeasuredWindow(run)
	before := oldMeasured(t, dir, w, every)

	// Cut short: half of a last line appended.
	lines := strings.SplitAfter(string(data), "\n")
	last := lines[len(lines)-2]
	if err := os.WriteFile(path, []byte(string(data)+last[:len(last)/2]), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := results.MeasuredHistograms(dir, run, every)
	if err != nil {
		t.Fatalf("a last line cut short: %v", err)
	}
	sameHists(t, got, before)

	// A line of another geometry (2 digits, up to 1 s) with the times of
	// a total/response line of the window's middle: merged as Merge merges it.
	h := hdrhistogram.New(1, 1_000_000, 2)
	for _, v := range []int64{7, 700, 70_000} {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	mid := len(lines) / 2
	for !strings.HasPrefix(lines[mid], "Tag=total/response,") {
		mid++
	}
	f := strings.SplitN(lines[mid], ",", 5)
	other := strings.Join([]string{f[0], f[1], f[2], f[3], string(enc)}, ",") + "\n"
	if err := os.WriteFile(path, []byte(string(data)+other), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = results.MergeLatency(dir, results.Window{}, every)
	if err != nil {
		t.Fatal(err)
	}
	sameHists(t, got, oldMeasured(t, dir, results.Window{}, every))

	// A corrupt line in the middle: an error, and what was read before.
	corrupt := strings.Join(lines[:mid], "") + strings.Join(f[:4], ",") + ",HISTnot-base64!!\n" + strings.Join(lines[mid:], "")
	if err := os.WriteFile(path, []byte(corrupt), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := results.MeasuredResponse(dir, run); err == nil || !strings.Contains(err.Error(), results.LatencyFile) {
		t.Errorf("a corrupt line: %v", err)
	}
	partial, err := results.MergeLatency(dir, results.Window{}, every)
	if err == nil || len(partial) == 0 {
		t.Errorf("a corrupt line: %d tags, %v", len(partial), err)
	}
}

// TestMeasuredResponseAllocations: merging a run's log allocates about the
// file and the tag's counts, not a histogram per interval line (the old
// decode+merge allocated ~190 KB per line: ~15 GB for the report of an
// hour with 5 scripts).
func TestMeasuredResponseAllocations(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run, err := resultstest.WriteRun(dir, resultstest.Options{Scripts: 5, Duration: 2 * time.Minute, StallFor: -1})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, results.LatencyFile))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := results.MeasuredResponse(dir, run); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// The file, its bufio copy and one accumulator + its histogram: under
	// 2 × the file + 2 MB.
	if got, limit := after.TotalAlloc-before.TotalAlloc, 2*uint64(fi.Size())+2<<20; got > limit {
		t.Errorf("MeasuredResponse allocated %d bytes for a %d-byte log; limit %d", got, fi.Size(), limit)
	}
}

// BenchmarkMeasuredHour: the measured window's merges of an hour at 1 s
// with 5 scripts (the run report's tags: the total's three kinds and each
// script's response), with MeasuredHistograms and with the ReadLatency +
// Merge it replaces. The directory is written once, outside the timer.
func BenchmarkMeasuredHour(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "run")
	run, err := resultstest.WriteRun(dir, resultstest.Options{Scripts: 5, Duration: time.Hour, Warmup: 10 * time.Second,
		StallAt: 20 * time.Minute, StallFor: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	want := func(tag string) bool {
		return strings.HasPrefix(tag, metrics.TagTotal+"/") || strings.HasSuffix(tag, "/"+metrics.KindResp)
	}
	b.Run("MeasuredHistograms", func(b *testing.B) {
		for b.Loop() {
			if _, err := results.MeasuredHistograms(dir, run, want); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ReadLatency+Merge", func(b *testing.B) {
		w := results.MeasuredWindow(run)
		ww := results.Window{From: w.From.Add(-time.Millisecond), To: w.To.Add(time.Millisecond)}
		for b.Loop() {
			entries, err := results.ReadLatency(dir)
			if err != nil {
				b.Fatal(err)
			}
			out := map[string]*hdrhistogram.Histogram{}
			for _, e := range entries {
				if want(e.Tag) && ww.Holds(e.End, e.End.Sub(e.Start)) {
					if out[e.Tag] == nil {
						out[e.Tag] = metrics.NewHistogram()
					}
					out[e.Tag].Merge(e.Hist)
				}
			}
		}
	})
}
