package explain

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// The figures of one run that the ramp and the variants' comparison are
// made of: each a number over the run's measured window, or missing with
// the reason (never 0 for "not measured").

// Figure names (Stat.Name, Change.Figure, Trend.Figure). Wait types are
// "wait TYPE %" and "wait TYPE sessions"; wait events "event TYPE:EVENT %".
const (
	FigCalls     = "calls/s" // pg_stat_statements calls over the window / its seconds
	FigRows      = "rows/s"  // pg_stat_statements rows over the window / its seconds
	FigTPS       = "tps"
	FigP50       = "p50"
	FigP95       = "p95"
	FigP99       = "p99"
	FigDiskUtil  = "disk util %"
	FigDiskAwait = "disk await"
)

// osFigures are the vmstat columns of os.csv kept per level: the mean over
// the rows of the measured window (results.Window.Holds).
var osFigures = []osFigure{
	{"r", "tasks", func(r *results.OSRow) float64 { return r.R }},
	{"b", "tasks", func(r *results.OSRow) float64 { return r.B }},
	{"us", "%", func(r *results.OSRow) float64 { return r.US }},
	{"sy", "%", func(r *results.OSRow) float64 { return r.SY }},
	{"wa", "%", func(r *results.OSRow) float64 { return r.WA }},
	{"id", "%", func(r *results.OSRow) float64 { return r.ID }},
	{"st", "%", func(r *results.OSRow) float64 { return r.ST }},
	{"free", "kB", func(r *results.OSRow) float64 { return r.Free }},
	{"si", "kB/s", func(r *results.OSRow) float64 { return r.SI }},
	{"so", "kB/s", func(r *results.OSRow) float64 { return r.SO }},
}

// osFigure is one vmstat column: its name, unit and field.
type osFigure struct {
	name, unit string
	get        func(*results.OSRow) float64
}

// waitEventsCut is how many wait events Evidence.Waits lists at most
// (collect.EvidenceTopWaits): an event absent from a full list is below the
// cut, unknown, not 0.
const waitEventsCut = 5

// figureKind says how a figure is compared and what it means.
type figureKind struct {
	unit string
	// points: a share in per cent compared as a difference in percentage
	// points (wait shares), never as a ratio of shares.
	points         bool
	higherIsBetter bool
	neutral        bool // no better side (waits, OS figures)
}

// runFigures is one run's figures: values and why the others are missing.
type runFigures struct {
	label   string // the run directory's name
	level   float64
	repeat  int
	values  map[string]float64
	missing map[string]string
	kinds   map[string]figureKind
	order   []string // the figures in the order they were measured
	stmts   []results.StatementCost
	secs    float64 // the evidence window's length, s
}

func (f *runFigures) set(name string, k figureKind, v float64) {
	if _, ok := f.kinds[name]; !ok {
		f.order = append(f.order, name)
	}
	f.kinds[name] = k
	if math.IsNaN(v) || math.IsInf(v, 0) {
		f.missing[name] = "no value in the window"
		return
	}
	f.values[name] = v
	delete(f.missing, name)
}

func (f *runFigures) miss(name string, k figureKind, why string) {
	if _, ok := f.kinds[name]; !ok {
		f.order = append(f.order, name)
	}
	f.kinds[name] = k
	f.missing[name] = why
}

// value is the figure's value, NaN when the run has none.
func (f *runFigures) value(name string) float64 {
	if v, ok := f.values[name]; ok {
		return v
	}
	return math.NaN()
}

// measureRun reads one run's figures: the summary's tps and latency, the
// evidence's statements, waits and disk, and os.csv's vmstat columns.
func measureRun(r ExpRun) *runFigures {
	f := &runFigures{label: filepath.Base(r.Dir), level: r.Level, repeat: r.Repeat,
		values: map[string]float64{}, missing: map[string]string{}, kinds: map[string]figureKind{}}
	rate := figureKind{unit: "/s", higherIsBetter: true}
	lat := figureKind{unit: "ms"}
	if s := r.Run.Summary; s != nil {
		f.set(FigTPS, figureKind{unit: "tx/s", higherIsBetter: true}, s.Total.TPS)
		f.set(FigP50, lat, s.Total.Response.P50)
		f.set(FigP95, lat, s.Total.Response.P95)
		f.set(FigP99, lat, s.Total.Response.P99)
	}
	ev := r.Run.Evidence
	noEvidence := "no evidence in run.json (the collectors were off)"
	stmtWhy := ""
	switch reason, ok := ev.MissingReason(results.EvidenceStatements); {
	case ev == nil:
		stmtWhy = noEvidence
	case ok:
		stmtWhy = reason
	case ev.Calls <= 0:
		stmtWhy = "pg_stat_statements recorded no statements in the window"
	}
	if ev != nil {
		f.secs = ev.To.Sub(ev.From).Seconds()
	}
	if stmtWhy == "" && f.secs > 0 {
		f.set(FigCalls, rate, float64(ev.Calls)/f.secs)
		f.set(FigRows, rate, float64(ev.Rows)/f.secs)
		f.stmts = ev.Statements
	} else {
		if stmtWhy == "" {
			stmtWhy = "the evidence's window has no length"
		}
		f.miss(FigCalls, rate, stmtWhy)
		f.miss(FigRows, rate, stmtWhy)
	}
	f.waits(ev, noEvidence)
	f.disk(ev, noEvidence)
	f.os(r, ev, noEvidence)
	return f
}

// waits are the shares (per cent of the samples of active client backends)
// and average active sessions by wait type and by event. Average sessions
// by type = share × (AvgSessions/Share of any listed event: samples/ticks
// over samples/all samples = all samples/ticks).
func (f *runFigures) waits(ev *results.Evidence, noEvidence string) {
	share := figureKind{unit: "%", points: true, neutral: true}
	sessions := figureKind{unit: "sessions", neutral: true}
	why := noEvidence
	if ev != nil {
		why = ""
		if reason, ok := ev.MissingReason(results.EvidenceWaits); ok {
			why = reason
		} else if len(ev.WaitTypes) == 0 {
			why = "no wait samples by type in the window"
		}
	}
	if why != "" {
		f.miss("wait CPU %", share, why)
		return
	}
	active := math.NaN() // all samples / ticks
	for _, w := range ev.Waits {
		if w.Share > 0 {
			active = w.AvgSessions / w.Share
			break
		}
	}
	types := make([]string, 0, len(ev.WaitTypes))
	for t := range ev.WaitTypes {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool {
		if ev.WaitTypes[types[i]] != ev.WaitTypes[types[j]] {
			return ev.WaitTypes[types[i]] > ev.WaitTypes[types[j]]
		}
		return types[i] < types[j]
	})
	for _, t := range types {
		f.set("wait "+t+" %", share, 100*ev.WaitTypes[t])
		f.set("wait "+t+" sessions", sessions, ev.WaitTypes[t]*active)
	}
	for _, w := range ev.Waits {
		f.set("event "+w.Type+":"+w.Event+" %", share, 100*w.Share)
		f.set("event "+w.Type+":"+w.Event+" sessions", sessions, w.AvgSessions)
	}
	if len(ev.Waits) < waitEventsCut {
		f.values[completeWaits] = 1 // every event of the run is listed: an absent one is 0
	}
}

// completeWaits marks a run whose Evidence.Waits lists every event.
const completeWaits = "\x00waits complete"

// waitShare is the run's share of a wait type or event ("wait Lock %",
// "event Lock:tuple %"): 0 when the run has wait samples and none of it
// (a type: WaitTypes is complete; an event: only when the run's list of
// events is complete), NaN when unknown.
func (f *runFigures) waitShare(name string) float64 {
	if v, ok := f.values[name]; ok {
		return v
	}
	if _, ok := f.values["wait CPU %"]; !ok && f.missing["wait CPU %"] != "" {
		return math.NaN()
	}
	hasTypes := false
	for k := range f.values {
		if strings.HasPrefix(k, "wait ") {
			hasTypes = true
			break
		}
	}
	switch {
	case !hasTypes:
		return math.NaN()
	case strings.HasPrefix(name, "wait "):
		return 0
	case f.values[completeWaits] == 1:
		return 0
	}
	return math.NaN()
}

// disk is the busiest disk's utilisation (per cent) and await (ms).
func (f *runFigures) disk(ev *results.Evidence, noEvidence string) {
	util := figureKind{unit: "%", neutral: true}
	await := figureKind{unit: "ms", neutral: true}
	why := ""
	switch reason, ok := ev.MissingReason(results.EvidenceOS); {
	case ev == nil:
		why = noEvidence
	case ok:
		why = reason
	case ev.BusiestDisk == nil:
		why = "no disk statistics in the window"
	}
	if why != "" {
		f.miss(FigDiskUtil, util, why)
		f.miss(FigDiskAwait, await, why)
		return
	}
	f.set(FigDiskUtil, util, 100*ev.BusiestDisk.Util)
	f.set(FigDiskAwait, await, ev.BusiestDisk.AwaitMs)
}

// os is the mean of each vmstat column over the os.csv rows of the
// measured window (results.Window.Holds with the rows' interval, the median
// gap between rows); a cell missing in a row leaves the row out of that
// column's mean.
func (f *runFigures) os(r ExpRun, ev *results.Evidence, noEvidence string) {
	fail := func(why string) {
		for _, c := range osFigures {
			f.miss(c.name, figureKind{unit: c.unit, neutral: true}, why)
		}
	}
	if reason, ok := ev.MissingReason(results.EvidenceOS); ok {
		fail(reason)
		return
	}
	w := results.MeasuredWindow(r.Run)
	if !w.Known() && ev != nil {
		w = results.Window{From: ev.From, To: ev.To}
	}
	if !w.Known() {
		fail("run.json has no measured window")
		return
	}
	rows, err := results.ReadOS(r.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fail("no " + results.OSFile + " (the os collector did not run)")
		return
	case err != nil:
		fail(fmt.Sprintf("%s unreadable: %v", results.OSFile, err))
		return
	}
	length := rowLength(rows)
	var in []*results.OSRow
	for i := range rows {
		if w.Holds(rows[i].Time, length) {
			in = append(in, &rows[i])
		}
	}
	if len(in) == 0 {
		fail("no " + results.OSFile + " rows in the measured window")
		return
	}
	for _, c := range osFigures {
		var s float64
		n := 0
		for _, row := range in {
			if v := c.get(row); !math.IsNaN(v) {
				s += v
				n++
			}
		}
		k := figureKind{unit: c.unit, neutral: true}
		if n == 0 {
			f.miss(c.name, k, "not measured in the window (empty cells)")
			continue
		}
		f.set(c.name, k, s/float64(n))
	}
}

// rowLength is the collectors' interval as the median gap between rows
// (1 s when fewer than two rows).
func rowLength(rows []results.OSRow) time.Duration {
	var gaps []float64
	for i := 1; i < len(rows); i++ {
		if d := rows[i].Time.Sub(rows[i-1].Time); d > 0 {
			gaps = append(gaps, float64(d))
		}
	}
	if len(gaps) == 0 {
		return time.Second
	}
	slices.Sort(gaps)
	return time.Duration(gaps[len(gaps)/2])
}
