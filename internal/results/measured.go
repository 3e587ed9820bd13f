package results

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// MergeLatency merges latency.hlog's intervals of the run directory dir by
// tag ("total/response", "tpcb-like/service", …), those of the tags want
// takes (every tag when want is nil) that lie in w: Window.Holds on each
// interval, (end − length, end], with w widened by one millisecond at each
// end, because the log keeps its times truncated to the millisecond (so
// that the last interval's end stays inside). A window that is not known
// (Window.Known false) takes every interval. A last line cut short by a
// crash is ignored, as ReadLatency ignores it; any other line that does not
// decode is an error, returned with the merges of the lines before it.
//
// It is ReadLatency and Histogram.Merge of the entries taken, with the same
// counts, in a fraction of the time and memory (metrics.MergeLog): an
// interval that is not taken is not decoded.
func MergeLatency(dir string, w Window, want func(tag string) bool) (map[string]*metrics.Merged, error) {
	path := filepath.Join(dir, LatencyFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read latency log: %w", err)
	}
	ww := Window{From: w.From.Add(-time.Millisecond), To: w.To.Add(time.Millisecond)}
	known := w.Known()
	merged, err := metrics.MergeLog(bytes.NewReader(completeLines(data)), func(tag string, start, end time.Time) bool {
		return (want == nil || want(tag)) && (!known || ww.Holds(end, end.Sub(start)))
	})
	if err != nil {
		return merged, fmt.Errorf("read %s: %w", path, err)
	}
	return merged, nil
}

// MeasuredWindow is run's measured phase as recorded in run.json (zero when
// it has none).
func MeasuredWindow(run *Run) Window {
	var w Window
	for _, p := range run.Phases {
		if p.Name == PhaseMeasure {
			w = Window{From: p.Start, To: p.End}
		}
	}
	return w
}

// MeasuredHistograms is MergeLatency over run's measured phase
// (MeasuredWindow; no interval spans both phases), an error when run.json
// has no measured phase.
func MeasuredHistograms(dir string, run *Run, want func(tag string) bool) (map[string]*metrics.Merged, error) {
	w := MeasuredWindow(run)
	if !w.Known() {
		return nil, fmt.Errorf("run.json of %s has no measured phase", dir)
	}
	return MergeLatency(dir, w, want)
}

// MeasuredResponse is the response-time histogram (µs) of all scripts over
// the measured phase of the run in dir: the merge of latency.hlog's
// "total/response" intervals that lie in run's measured phase
// (MeasuredHistograms). It is checked against run.json: the merged count
// must equal Summary.Total.Response.Count (when recorded), so a log cut
// short or from another run is an error, not a silently different figure.
func MeasuredResponse(dir string, run *Run) (*hdrhistogram.Histogram, error) {
	tag := metrics.TagTotal + "/" + metrics.KindResp
	hists, err := MeasuredHistograms(dir, run, func(t string) bool { return t == tag })
	if err != nil {
		return nil, err
	}
	m := hists[tag]
	if m == nil || m.Intervals == 0 {
		return nil, fmt.Errorf("%s/%s has no %s interval in the measured phase", dir, LatencyFile, tag)
	}
	if m.Dropped > 0 {
		return nil, fmt.Errorf("%s/%s: %d values of an interval outside the histogram's range", dir, LatencyFile, m.Dropped)
	}
	if run.Summary != nil {
		if want := run.Summary.Total.Response.Count; want > 0 && m.Hist.TotalCount() != want {
			return nil, fmt.Errorf("%s/%s: the measured phase's %d intervals hold %d responses, run.json's summary %d",
				dir, LatencyFile, m.Intervals, m.Hist.TotalCount(), want)
		}
	}
	return m.Hist, nil
}
