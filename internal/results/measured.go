package results

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// MeasuredResponse is the response-time histogram (µs) of all scripts over
// the measured phase of the run in dir: the merge of latency.hlog's
// "total/response" intervals that lie in run's measured phase
// (Window.Holds on each interval, whose times the log keeps to the
// millisecond; no interval spans both phases). It is checked against
// run.json: the merged count must equal Summary.Total.Response.Count (when
// recorded), so a log cut short or from another run is an error, not a
// silently different figure.
func MeasuredResponse(dir string, run *Run) (*hdrhistogram.Histogram, error) {
	var w Window
	for _, p := range run.Phases {
		if p.Name == PhaseMeasure {
			// The log's times are truncated to the millisecond: widen the
			// window by one so that the last interval's end stays inside.
			w = Window{From: p.Start.Add(-time.Millisecond), To: p.End.Add(time.Millisecond)}
		}
	}
	if !w.Known() {
		return nil, fmt.Errorf("run.json of %s has no measured phase", dir)
	}
	entries, err := ReadLatency(dir)
	if err != nil {
		return nil, err
	}
	tag := metrics.TagTotal + "/" + metrics.KindResp
	merged := metrics.NewHistogram()
	intervals := 0
	for _, e := range entries {
		if e.Tag != tag || e.Hist == nil || !w.Holds(e.End, e.End.Sub(e.Start)) {
			continue
		}
		if dropped := merged.Merge(e.Hist); dropped > 0 {
			return nil, fmt.Errorf("%s/%s: %d values of an interval outside the histogram's range", dir, LatencyFile, dropped)
		}
		intervals++
	}
	if intervals == 0 {
		return nil, fmt.Errorf("%s/%s has no %s interval in the measured phase", dir, LatencyFile, tag)
	}
	if run.Summary != nil {
		if want := run.Summary.Total.Response.Count; want > 0 && merged.TotalCount() != want {
			return nil, fmt.Errorf("%s/%s: the measured phase's %d intervals hold %d responses, run.json's summary %d",
				dir, LatencyFile, intervals, merged.TotalCount(), want)
		}
	}
	return merged, nil
}
