// Package chart is the model of a chart in a report: what is drawn, not how.
// The report builders (internal/report) fill it from a run or experiment
// directory; two renderers draw it: internal/report/svg (static SVG, for the
// Markdown report and the HTML report's non-interactive charts) and the HTML
// report's script (uPlot, interactive: cursor, zoom, linked panels).
//
// A Chart is plain data and encodes to JSON as the HTML report's script reads
// it: a missing value (NaN) is null, numbers keep 6 significant digits.
package chart

import (
	"encoding/json"
	"math"
	"strconv"
)

// Kind is what a chart draws.
type Kind string

const (
	// Time: series over time, X in seconds since the run's clock zero
	// (run.json's bench_start). Charts of one Group share the time axis,
	// the cursor and the zoom (linked panels).
	Time Kind = "time"
	// XY: series over a numeric X (a ramp's level, a rate).
	XY Kind = "xy"
	// Spectrum: the percentile spectrum, HdrHistogram style. X of every
	// series is the quantile q in [0, 1), drawn on a log axis of 1/(1−q)
	// labelled 0 %, 90 %, 99 %, 99.9 %, …; Y is the latency at q.
	Spectrum Kind = "spectrum"
	// Forest: one Row per metric, an estimate with its interval on the X
	// axis (a ratio B/A, log scale), a reference line at Refs (1 for a
	// ratio); Y is the rows top to bottom.
	Forest Kind = "forest"
	// Dots: one DotGroup per category (variant), its runs as dots with
	// their median and range; Y is the value.
	Dots Kind = "dots"
)

// A Chart is one panel.
type Chart struct {
	// ID is unique in a report, made of [a-z0-9-]: the element's id in the
	// HTML and the SVG file's name (charts/ID.svg) beside the Markdown.
	ID    string `json:"id"`
	Title string `json:"title"`
	Kind  Kind   `json:"kind"`
	// Group links Time charts: the same non-empty Group shares the time
	// axis, the cursor and the zoom.
	Group string `json:"group,omitempty"`
	X     Axis   `json:"x"`
	Y     Axis   `json:"y"`
	// Y2 is the right axis of the series with Right set; nil: none.
	Y2      *Axis    `json:"y2,omitempty"`
	Series  []Series `json:"series,omitempty"`
	Markers []Marker `json:"markers,omitempty"` // vertical lines at an X (events)
	Spans   []Span   `json:"spans,omitempty"`   // shaded X ranges (a checkpoint, a bracket)
	// Refs are reference lines: horizontal at Y (an SLO) in Time, XY,
	// Spectrum and Dots charts; vertical at X (ratio 1) in a Forest.
	Refs   []Ref      `json:"refs,omitempty"`
	Rows   []Row      `json:"rows,omitempty"`   // Forest
	Groups []DotGroup `json:"groups,omitempty"` // Dots
	Note   string     `json:"note,omitempty"`   // a line under the chart
}

// Axis is an axis' label, unit and scale.
type Axis struct {
	Label string `json:"label,omitempty"` // "response", "tps"
	Unit  string `json:"unit,omitempty"`  // "ms", "tx/s", "%", "sessions", "B", "s"
	Log   bool   `json:"log,omitempty"`   // log10 scale (not for Spectrum's X: it is always 1/(1−q))
	// Min and Max fix the range; nil: from the data.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
}

// A Series is one line (or stacked area, or set of points): Y[i] at X[i].
// X and Y have the same length; NaN in Y is a gap (missing, not zero).
type Series struct {
	Name string `json:"name"`
	X    Values `json:"x"`
	Y    Values `json:"y"`
	// Right draws the series against the chart's Y2.
	Right bool `json:"right,omitempty"`
	// Stack: series with the same non-empty Stack are stacked areas, in
	// their order, bottom first (waits by type, CPU us/sy/wa/st).
	Stack string `json:"stack,omitempty"`
	// Points draws markers at the values and no line (probes of a search).
	Points bool `json:"points,omitempty"`
	// Dash draws a dashed line (a lower bound, a secondary measure).
	Dash bool `json:"dash,omitempty"`
	// Tone is the series' colour, a 1-based index into the renderers'
	// palette, for series that are one thing drawn two ways (a percentile's
	// repeats as points and its median as a line); 0: by its position.
	Tone int `json:"tone,omitempty"`
}

// MarkerKind says what a marker marks; renderers give each kind its colour
// and legend entry.
type MarkerKind string

const (
	MarkPhase      MarkerKind = "phase"      // warm-up → measured window, a ramp's level
	MarkCheckpoint MarkerKind = "checkpoint" // a checkpoint started or ended
	MarkAutovacuum MarkerKind = "autovacuum" // autovacuum or autoanalyze of a table
	MarkStall      MarkerKind = "stall"      // an injected stall (lock, CHECKPOINT, VACUUM)
	MarkError      MarkerKind = "error"      // the first error of a class
	MarkConnection MarkerKind = "connection" // a connection lost
	MarkChange     MarkerKind = "change"     // a level shift found in a series (the findings' change points)
	MarkOther      MarkerKind = "other"
)

// A Marker is a vertical line at X with a label ("checkpoint (timed)
// started", "lock on pgbench_branches 5 s", "first serialization failure").
type Marker struct {
	X     float64    `json:"x"`
	Label string     `json:"label"`
	Kind  MarkerKind `json:"kind"`
}

// A Span is a shaded range of X: a checkpoint from start to end, an
// injected stall, a capacity search's bracket.
type Span struct {
	From  float64    `json:"from"`
	To    float64    `json:"to"`
	Label string     `json:"label"`
	Kind  MarkerKind `json:"kind"`
}

// A Ref is a reference line at a value: Y in Time, XY, Spectrum and Dots
// charts (against Y2 when Right), X in a Forest.
type Ref struct {
	Value float64 `json:"value"`
	Label string  `json:"label"`
	Right bool    `json:"right,omitempty"`
}

// A Row is one line of a Forest: an estimate and its interval on the X
// axis, with the verdict in words. Lo and Hi are NaN when there is no
// interval (the estimate is drawn alone).
type Row struct {
	Label    string  `json:"label"` // "tps", "response p99"
	Estimate float64 `json:"estimate"`
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	// Outcome is the verdict's outcome: "differs", "equivalent" or
	// "inconclusive" (stats.Outcome's names); renderers colour by it.
	Outcome string `json:"outcome"`
	Verdict string `json:"verdict"` // the verdict in words, as the text report says it
	Primary bool   `json:"primary,omitempty"`
}

// A DotGroup is one category of a Dots chart: its runs' values, drawn as
// dots, with their median and range.
type DotGroup struct {
	Label  string `json:"label"`
	Values Values `json:"values"`
}

// Values are numbers that encode to JSON with NaN and ±Inf as null and 6
// significant digits, so a chart of an hour at 1 s stays small.
type Values []float64

// MarshalJSON writes v as a JSON array.
func (v Values) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+8*len(v))
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendNumber(b, x)
	}
	return append(b, ']'), nil
}

// AppendNumber appends x as JSON: null for NaN and ±Inf, else the shortest
// form of x rounded to 6 significant digits.
func AppendNumber(b []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, x, 'g', 6, 64)
}

// UnmarshalJSON reads an array of numbers and nulls (null becomes NaN).
func (v *Values) UnmarshalJSON(b []byte) error {
	var raw []*float64
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(Values, len(raw))
	for i, p := range raw {
		if p == nil {
			out[i] = math.NaN()
		} else {
			out[i] = *p
		}
	}
	*v = out
	return nil
}
