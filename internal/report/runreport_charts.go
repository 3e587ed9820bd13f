package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/report/chart"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// timelineGroup links the timeline's panels (shared time axis, cursor, zoom).
const timelineGroup = "timeline"

// timelineFigure is the Figure of linked Time panels: tps and latency; waits by
// type; WAL per transaction and FPI share; OS CPU and run queue; the
// busiest disk. A panel whose evidence was not collected is left out with a
// note giving the reason. Every panel carries the same markers and spans.
func (r *runReport) timelineFigure() *Figure {
	f := &Figure{Title: "timeline (seconds since the bench start; markers: phases, checkpoints, autovacuum, injected stalls, first errors, change points)"}
	markers, spans := r.markers()
	markers = append(markers, r.changeMarkers()...)
	slices.SortStableFunc(markers, func(a, b chart.Marker) int { return cmp.Compare(a.X, b.X) })
	add := func(c *chart.Chart, missing string, what string) {
		if c == nil {
			f.Notes = append(f.Notes, what+": "+format.Missing+" "+missing)
			return
		}
		c.Group = timelineGroup
		c.Kind = chart.Time
		c.X = chart.Axis{Label: "time since the bench start", Unit: "s"}
		c.Markers = slices.Clone(markers)
		c.Spans = slices.Clone(spans)
		f.Charts = append(f.Charts, c)
	}
	c, why := r.tpsPanel()
	add(c, why, "tps and latency")
	if c := r.sessionsPanel(); c != nil {
		add(c, "", "client sessions")
	}
	c, why = r.waitsPanel()
	add(c, why, "waits by type")
	c, why = r.walPanel()
	add(c, why, "WAL per transaction")
	c, why = r.cpuPanel()
	add(c, why, "OS CPU")
	c, why = r.diskPanel()
	add(c, why, "busiest disk")
	return f
}

// tpsPanel is tps (left) with response p50 and p99 and lag p99 in ms
// (right), per interval of timeline.csv.
func (r *runReport) tpsPanel() (*chart.Chart, string) {
	if len(r.timeline) == 0 {
		return nil, r.missingFile(results.TimelineFile)
	}
	n := len(r.timeline)
	x := make(chart.Values, n)
	tps, p50, p99, lag := make(chart.Values, n), make(chart.Values, n), make(chart.Values, n), make(chart.Values, n)
	for i, row := range r.timeline {
		x[i], tps[i], p50[i], p99[i], lag[i] = row.Elapsed, row.TPS, row.ResponseP50, row.ResponseP99, row.LagP99
	}
	c := &chart.Chart{ID: "timeline-tps", Title: "throughput and latency per interval",
		Y:  chart.Axis{Label: "tps", Unit: "tx/s", Min: bound(0)},
		Y2: &chart.Axis{Label: "latency", Unit: "ms", Min: bound(0)},
		Series: []chart.Series{
			{Name: "tps", X: x, Y: tps},
			{Name: "response p50", X: x, Y: p50, Right: true},
			{Name: "response p99", X: x, Y: p99, Right: true},
		}}
	scen, why := r.scenarioTPS(x) // scenarios_tps.go
	c.Series = append(c.Series, scen...)
	if r.run.Model.Kind == results.ModelOpen {
		c.Series = append(c.Series, chart.Series{Name: "lag p99", X: x, Y: lag, Right: true, Dash: true})
	} else {
		c.Note = "closed model: response counts from the actual start, so a stall shows as lower tps, not as latency"
	}
	if why != "" {
		c.Note = strings.TrimPrefix(c.Note+"; tps per scenario: "+format.Missing+" ("+why+")", "; ")
	}
	return c, ""
}

// sessionsPanel is the client sessions at each interval's end, connected
// and idle (left) and busy (right: a few among thousands of idle ones), per
// interval of timeline.csv; nil when the timeline has no counts (written
// before them, or from pgbench's logs).
func (r *runReport) sessionsPanel() *chart.Chart {
	n := len(r.timeline)
	x := make(chart.Values, n)
	conn, busy, idle := make(chart.Values, n), make(chart.Values, n), make(chart.Values, n)
	counted := false
	for i, row := range r.timeline {
		x[i], conn[i], busy[i], idle[i] = row.Elapsed, float64(row.Connected), float64(row.Busy), float64(row.Idle)
		counted = counted || row.ConnectedMax > 0
	}
	if !counted {
		return nil
	}
	return &chart.Chart{ID: "timeline-sessions", Title: "client sessions at each interval's end",
		Y:  chart.Axis{Label: "connected, idle", Unit: "sessions", Min: bound(0)},
		Y2: &chart.Axis{Label: "busy", Unit: "sessions", Min: bound(0)},
		Series: []chart.Series{
			{Name: "connected", X: x, Y: conn},
			{Name: "idle", X: x, Y: idle, Dash: true},
			{Name: "busy (waiting for the server or in a transaction)", X: x, Y: busy, Right: true},
		},
		Note: "busy: between sending a statement and the ReadyForQuery that leaves the session idle; idle: sleeping, thinking or waiting for a slot"}
}

// missingFile is why a file's rows are absent: its read error, or that it
// has none.
func (r *runReport) missingFile(file string) string {
	if why := r.fileReason("", file); why != "" {
		return "(" + why + ")"
	}
	return "(" + file + " has no rows)"
}

// missingGroup is why a collector's panel is absent, "" when its rows are
// there (n > 0).
func (r *runReport) missingGroup(group, file string, n int) string {
	if why := r.fileReason(group, file); why != "" {
		return "(not collected: " + why + ")"
	}
	if n == 0 {
		return "(" + file + " has no rows)"
	}
	return ""
}

// waitsPanel is the client sessions' waits by wait_event_type as stacked
// areas of average active sessions (samples / ticks, summed over the type's
// events), per interval of waits.csv. CPU (active without a wait) is at the
// bottom, then the types by their total, largest first.
func (r *runReport) waitsPanel() (*chart.Chart, string) {
	if why := r.missingGroup(results.EvidenceWaits, results.WaitsFile, len(r.waits)); why != "" {
		return nil, why
	}
	// The client class, or "all" when the source could not classify; one
	// source (a run has one).
	class, source := "all", ""
	for _, w := range r.waits {
		if w.Class == "client" {
			class = "client"
		}
		if source == "" && w.Source != "" {
			source = w.Source
		}
	}
	var xs []float64
	idx := map[float64]int{}
	byType := map[string]map[int]float64{}
	totals := map[string]float64{}
	for _, w := range r.waits {
		if w.Source != source {
			continue
		}
		i, ok := idx[w.Elapsed]
		if !ok {
			i = len(xs)
			idx[w.Elapsed] = i
			xs = append(xs, w.Elapsed)
		}
		if w.Class != class || w.Type == "" {
			continue
		}
		m := byType[w.Type]
		if m == nil {
			m = map[int]float64{}
			byType[w.Type] = m
		}
		v := w.AvgSessions()
		m[i] += v
		totals[w.Type] += v
	}
	if len(byType) == 0 {
		return nil, "(" + results.WaitsFile + " has no active client session)"
	}
	// xs in time order; map the rows' indexes to their sorted place.
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(xs[a], xs[b]) })
	place := make([]int, len(xs))
	x := make(chart.Values, len(xs))
	for p, i := range order {
		place[i] = p
		x[p] = xs[i]
	}
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	slices.SortFunc(types, func(a, b string) int {
		if (a == "CPU") != (b == "CPU") {
			if a == "CPU" {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(totals[b], totals[a]), cmp.Compare(a, b))
	})
	c := &chart.Chart{ID: "timeline-waits", Title: "waits of active client sessions by type (" + source + ")",
		Y: chart.Axis{Label: "average active sessions", Unit: "sessions"}}
	for _, t := range types {
		y := make(chart.Values, len(xs)) // a type not seen in an interval: 0 sessions
		for i, v := range byType[t] {
			y[place[i]] = v
		}
		c.Series = append(c.Series, chart.Series{Name: t, X: x, Y: y, Stack: "waits"})
	}
	return c, ""
}

// walPanel is WAL bytes per transaction (server.csv's WAL bytes of the
// interval / committed transactions of timeline.csv's interval ending
// nearest) and the full-page images' share of WAL records (right, %).
func (r *runReport) walPanel() (*chart.Chart, string) {
	if why := r.missingGroup(results.EvidenceServer, results.ServerFile, len(r.server)); why != "" {
		return nil, why
	}
	n := len(r.server)
	x, perTx, fpi := make(chart.Values, n), make(chart.Values, n), make(chart.Values, n)
	has := false
	for i, s := range r.server {
		x[i], perTx[i], fpi[i] = s.ElapsedS, math.NaN(), math.NaN()
		wal := s.WALBytes
		if wal == nil {
			wal = s.WALLSNBytes
		}
		if tx, ok := r.committedAt(s.ElapsedS); ok && tx > 0 && wal != nil {
			perTx[i] = float64(*wal) / float64(tx)
			has = true
		}
		if s.WALFPI != nil && s.WALRecords != nil && *s.WALRecords > 0 {
			fpi[i] = 100 * float64(*s.WALFPI) / float64(*s.WALRecords)
			has = true
		}
	}
	if !has {
		return nil, "(" + results.ServerFile + " has no WAL counters, or " + results.TimelineFile + " no transactions, in any interval)"
	}
	return &chart.Chart{ID: "timeline-wal", Title: "WAL per transaction and full-page images",
		Y:  chart.Axis{Label: "WAL per tx", Unit: "B", Min: bound(0)},
		Y2: &chart.Axis{Label: "FPI share", Unit: "%", Min: bound(0), Max: bound(100)},
		Series: []chart.Series{
			{Name: "WAL bytes per transaction", X: x, Y: perTx},
			{Name: "FPI share", X: x, Y: fpi, Right: true, Dash: true},
		}}, ""
}

// bound is an axis' fixed end (chart.Axis.Min, Max): shares and counts
// start at 0, shares end at 100 %.
func bound(v float64) *float64 { return &v }

// committedAt is the committed transactions of timeline.csv's interval
// whose end is nearest to elapsed, within half an interval.
func (r *runReport) committedAt(elapsed float64) (int64, bool) {
	i, _ := slices.BinarySearchFunc(r.timeline, elapsed, func(row results.TimelineRow, e float64) int { return cmp.Compare(row.Elapsed, e) })
	best, bestD := -1, math.Inf(1)
	for _, j := range []int{i - 1, i} {
		if j >= 0 && j < len(r.timeline) {
			if d := math.Abs(r.timeline[j].Elapsed - elapsed); d < bestD {
				best, bestD = j, d
			}
		}
	}
	if best < 0 || bestD > r.interval/2 {
		return 0, false
	}
	return r.timeline[best].Committed, true
}

// cpuPanel is the machine's CPU time as stacked us, sy, wa, st (% of all
// CPUs) and the run queue (right), per interval of os.csv.
func (r *runReport) cpuPanel() (*chart.Chart, string) {
	if why := r.missingGroup(results.EvidenceOS, results.OSFile, len(r.osRows)); why != "" {
		return nil, why
	}
	n := len(r.osRows)
	x := make(chart.Values, n)
	us, sy, wa, st, rq := make(chart.Values, n), make(chart.Values, n), make(chart.Values, n), make(chart.Values, n), make(chart.Values, n)
	for i, o := range r.osRows {
		x[i], us[i], sy[i], wa[i], st[i], rq[i] = o.ElapsedS, o.US, o.SY, o.WA, o.ST, o.R
	}
	return &chart.Chart{ID: "timeline-cpu", Title: "CPU of the server's machine and run queue",
		Y:  chart.Axis{Label: "CPU", Unit: "%", Min: bound(0), Max: bound(100)},
		Y2: &chart.Axis{Label: "run queue", Unit: "tasks"},
		Series: []chart.Series{
			{Name: "us", X: x, Y: us, Stack: "cpu"},
			{Name: "sy", X: x, Y: sy, Stack: "cpu"},
			{Name: "wa", X: x, Y: wa, Stack: "cpu"},
			{Name: "st", X: x, Y: st, Stack: "cpu"},
			{Name: "run queue", X: x, Y: rq, Right: true},
		}}, ""
}

// diskPanel is the busiest disk's (highest mean util over the run) util %
// and await ms (right), per interval of os.csv.
func (r *runReport) diskPanel() (*chart.Chart, string) {
	if why := r.missingGroup(results.EvidenceOS, results.OSFile, len(r.osRows)); why != "" {
		return nil, why
	}
	sum, cnt := map[string]float64{}, map[string]int{}
	var names []string
	for _, o := range r.osRows {
		for _, d := range o.Disks {
			if _, ok := cnt[d.Name]; !ok {
				names = append(names, d.Name)
				cnt[d.Name] = 0
			}
			if !math.IsNaN(d.Util) {
				sum[d.Name] += d.Util
				cnt[d.Name]++
			}
		}
	}
	busiest, best := "", -1.0
	for _, name := range names {
		if cnt[name] == 0 {
			continue
		}
		if m := sum[name] / float64(cnt[name]); m > best {
			busiest, best = name, m
		}
	}
	if busiest == "" {
		return nil, "(" + results.OSFile + " has no disk with a utilisation)"
	}
	n := len(r.osRows)
	x, util, await := make(chart.Values, n), make(chart.Values, n), make(chart.Values, n)
	for i, o := range r.osRows {
		x[i], util[i], await[i] = o.ElapsedS, math.NaN(), math.NaN()
		for _, d := range o.Disks {
			if d.Name == busiest {
				util[i], await[i] = d.Util, d.AwaitMs
			}
		}
	}
	return &chart.Chart{ID: "timeline-disk", Title: "busiest disk: " + busiest + fmt.Sprintf(" (mean util %s)", format.Pct(best/100)),
		Y:  chart.Axis{Label: "utilisation", Unit: "%"},
		Y2: &chart.Axis{Label: "await", Unit: "ms"},
		Series: []chart.Series{
			{Name: busiest + " util", X: x, Y: util},
			{Name: busiest + " await", X: x, Y: await, Right: true, Dash: true},
		}}, ""
}

// markers are the timeline's markers and spans, in time order: the phase
// boundaries, checkpoints (start, end, span), autovacuum and autoanalyze
// per table, injected stalls (marker at the start, span to the end), the
// first error of each class (a lost connection as a connection marker),
// the interruption and the abort.
func (r *runReport) markers() ([]chart.Marker, []chart.Span) {
	var ms []chart.Marker
	var sp []chart.Span
	mark := func(t time.Time, kind chart.MarkerKind, label string) {
		ms = append(ms, chart.Marker{X: r.x(t), Kind: kind, Label: label})
	}
	if !r.warmStart.IsZero() {
		mark(r.warmStart, chart.MarkPhase, "warm-up starts")
	}
	if !r.measure.IsZero() {
		label := "measured window starts"
		if !r.warmStart.IsZero() {
			label = "warm-up → measured window"
		}
		mark(r.measure, chart.MarkPhase, label)
	}
	if !r.end.IsZero() {
		label := "end of the measured window"
		switch {
		case r.unfinished:
			label = "last interval (the run did not finish)"
		case r.run.Interrupted:
			label = "end of the measured window (interrupted)"
		}
		mark(r.end, chart.MarkPhase, label)
	}
	lastX, _ := r.lastX()
	firstX := 0.0
	if len(r.timeline) > 0 {
		firstX = r.timeline[0].Elapsed - r.interval
	}
	for _, o := range results.Occurrences(r.events) {
		switch o.Kind {
		case results.OccurCheckpoint:
			from, to := firstX, lastX
			if !o.Start.IsZero() {
				from = r.x(o.Start)
				mark(o.Start, chart.MarkCheckpoint, o.Label+" started")
			}
			if !o.End.IsZero() {
				to = r.x(o.End)
				mark(o.End, chart.MarkCheckpoint, o.Label+" completed")
			}
			if to >= from {
				sp = append(sp, chart.Span{From: from, To: to, Kind: chart.MarkCheckpoint, Label: o.Label})
			}
		case results.OccurAutovacuum:
			mark(o.Start, chart.MarkAutovacuum, o.Label)
		case results.OccurStall:
			mark(o.Start, chart.MarkStall, o.Label)
			if o.End.After(o.Start) {
				sp = append(sp, chart.Span{From: r.x(o.Start), To: r.x(o.End), Kind: chart.MarkStall, Label: o.Label})
			}
		case results.OccurError:
			mark(o.Start, chart.MarkError, o.Label)
		case results.OccurConnection:
			mark(o.Start, chart.MarkConnection, o.Label)
		case results.OccurInterrupt, results.OccurAbort:
			mark(o.Start, chart.MarkOther, o.Label)
		}
	}
	if !r.hasEvent(results.EventError) {
		// No first-error events (a pgtrial that did not write them): the
		// first interval with failures, class unknown.
		for _, row := range r.timeline {
			if row.Failed > 0 {
				ms = append(ms, chart.Marker{X: row.Elapsed, Kind: chart.MarkError, Label: fmt.Sprintf("first failures (%d in the interval)", row.Failed)})
				break
			}
		}
	}
	slices.SortStableFunc(ms, func(a, b chart.Marker) int { return cmp.Compare(a.X, b.X) })
	slices.SortStableFunc(sp, func(a, b chart.Span) int { return cmp.Compare(a.From, b.From) })
	return ms, sp
}

func (r *runReport) hasEvent(kind string) bool {
	return slices.ContainsFunc(r.events, func(e results.Event) bool { return e.Kind == kind })
}

// Spectrum grid: quantiles q_k = 1 − 10^(−k/spectrumTicks), k = 0, 1, …,
// up to 1 − 1/n (the last quantile a value rests beyond) and at most
// 1 − 10^(−spectrumDecades): ten points per decade of 1/(1−q).
const (
	spectrumTicks   = 10
	spectrumDecades = 6
)

// spectrumPoints is the percentile spectrum of h: X the quantile q, Y the
// nearest-rank q-quantile in ms (metrics.Quantile, as the summary's
// percentiles); a value below the histogram's 1 µs is NaN (the log axis
// has no 0). dropped says whether one was.
func spectrumPoints(h *hdrhistogram.Histogram) (x, y chart.Values, dropped bool) {
	n := h.TotalCount()
	if n == 0 {
		return nil, nil, false
	}
	kmax := min(spectrumTicks*spectrumDecades, int(math.Floor(spectrumTicks*math.Log10(float64(n)))))
	for k := 0; k <= kmax; k++ {
		q := 1 - math.Pow(10, -float64(k)/spectrumTicks)
		v := float64(metrics.Quantile(h, q)) / 1000
		if v <= 0 {
			v, dropped = math.NaN(), true
		}
		x, y = append(x, q), append(y, v)
	}
	return x, y, dropped
}

// spectrumFigure is the Figure of the measured window's percentile spectrum:
// total response and service time (and lag in the open model), then, with
// several scripts, each script's response time in one chart.
func (r *runReport) spectrumFigure() *Figure {
	f := &Figure{Title: "latency distribution (percentile spectrum of the measured window)"}
	hists, _, _, n, ok := r.measuredHists()
	if !ok {
		why := r.fileReason("", results.LatencyFile)
		if why == "" {
			why = results.LatencyFile + " holds no interval of the measured window"
		}
		f.Notes = append(f.Notes, "spectrum: "+format.Missing+" ("+why+")")
		return f
	}
	open := r.run.Model.Kind == results.ModelOpen
	kinds := []string{metrics.KindResp, metrics.KindService}
	if open {
		kinds = append(kinds, metrics.KindLag)
	}
	y := chart.Axis{Label: "latency", Unit: "ms", Log: true}
	title := "all scripts: response and service time"
	if open {
		title = "all scripts: response, service and lag"
	}
	total := &chart.Chart{ID: "spectrum-total", Title: fmt.Sprintf("%s (%d intervals)", title, n),
		Kind: chart.Spectrum, X: chart.Axis{Label: "percentile"}, Y: y}
	anyDropped := false
	for _, k := range kinds {
		h := hists[metrics.TagTotal+"/"+k]
		if h == nil {
			continue
		}
		xs, ys, dropped := spectrumPoints(h)
		anyDropped = anyDropped || dropped
		total.Series = append(total.Series, chart.Series{Name: k, X: xs, Y: ys, Dash: k == metrics.KindLag})
	}
	f.Charts = append(f.Charts, total)
	names := r.scriptNames()
	if len(names) > 1 {
		per := &chart.Chart{ID: "spectrum-scripts", Title: "response time per script", Kind: chart.Spectrum, X: chart.Axis{Label: "percentile"}, Y: y}
		for i, tag := range metrics.ScriptTags(names, len(names)) {
			if h := hists[tag+"/"+metrics.KindResp]; h != nil && h.TotalCount() > 0 {
				xs, ys, dropped := spectrumPoints(h)
				anyDropped = anyDropped || dropped
				per.Series = append(per.Series, chart.Series{Name: names[i], X: xs, Y: ys})
			}
		}
		f.Charts = append(f.Charts, per)
	}
	if open {
		f.Notes = append(f.Notes, "open model: response time counts from each transaction's intended start, service time from its actual start; "+
			"the gap between the two curves is the queueing in front of the server (lag), which coordinated omission would hide "+
			"(a closed-loop tool measures only the service curve).")
	} else {
		f.Notes = append(f.Notes, "closed model: each client waits for its last transaction, so response equals service time and a stall lowers the load "+
			"instead of showing here: this spectrum understates what users of an open system would see.")
	}
	if anyDropped {
		f.Notes = append(f.Notes, "values below 1 µs (the histograms' resolution) are not drawn on the log axis.")
	}
	return f
}
