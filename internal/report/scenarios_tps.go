package report

import (
	"math"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/report/chart"
	"github.com/pgtrial/pgtrial/internal/results"
)

// scenarioTPS is the tps of each concurrent scenario (run.json's scenarios) per
// interval of timeline.csv, from latency.hlog: the values of its scripts'
// service-time histograms in the interval over the interval's seconds. A service
// histogram holds the committed transactions and, in the interval the window is cut
// at, those cut in flight (metrics.Hists), so only that interval can count a little
// more than timeline.csv's committed. x is the timeline's: a log line belongs to row i
// when its end is the row's Time to within a few milliseconds (the log keeps times to
// the millisecond); a row without a line is NaN (a gap). nil without scenarios; why
// says what is missing when the log cannot be read.
func (r *runReport) scenarioTPS(x chart.Values) (series []chart.Series, why string) {
	scen := r.run.Scenarios
	if len(scen) == 0 || len(r.timeline) == 0 {
		return nil, ""
	}
	entries, err := results.ReadLatency(r.dir)
	if len(entries) == 0 {
		if err != nil {
			return nil, err.Error()
		}
		return nil, results.LatencyFile + " holds no interval"
	}
	names := r.scriptNames()
	tags := metrics.ScriptTags(names, len(names))
	scenarioOf := map[string]int{} // "SCRIPT/service" → index into scen
	for si := range scen {
		for _, i := range scen[si].Scripts {
			if i >= 0 && i < len(tags) {
				scenarioOf[tags[i]+"/"+metrics.KindService] = si
			}
		}
	}
	ys := make([]chart.Values, len(scen))
	for si := range ys {
		ys[si] = make(chart.Values, len(r.timeline))
		for i := range ys[si] {
			ys[si][i] = math.NaN()
		}
	}
	// Log lines come in time order, as the rows: one pass matches them.
	const tolerance = 5 * time.Millisecond
	row := 0
	for _, e := range entries {
		si, ok := scenarioOf[e.Tag]
		sec := e.End.Sub(e.Start).Seconds()
		if !ok || sec <= 0 {
			continue
		}
		for row < len(r.timeline) && r.timeline[row].Time.Before(e.End.Add(-tolerance)) {
			row++
		}
		if row == len(r.timeline) {
			break
		}
		if r.timeline[row].Time.After(e.End.Add(tolerance)) {
			continue // a line without its row
		}
		y := &ys[si][row]
		if math.IsNaN(*y) {
			*y = 0
		}
		*y += float64(e.Hist.TotalCount()) / sec
	}
	for si := range scen {
		series = append(series, chart.Series{Name: "tps " + scen[si].Name, X: x, Y: ys[si], Dash: true})
	}
	return series, ""
}
