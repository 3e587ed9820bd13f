package svg

import (
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgtrial/pgtrial/internal/report/chart"
)

// drawDots draws one column per DotGroup: its values as dots, jittered
// across the column, the range (min–max) as a vertical line and the
// median as a short bar; nil when no group has a value.
func drawDots(c *chart.Chart, d dims) *frame {
	type col struct {
		vals   []float64 // drawable, in the group's order
		sorted []float64
	}
	cols := make([]col, len(c.Groups))
	yr := newRng()
	hasData := false
	for i, g := range c.Groups {
		for _, v := range g.Values {
			if finite(v) && !(c.Y.Log && v <= 0) {
				cols[i].vals = append(cols[i].vals, v)
				yr.add(v)
				hasData = true
			}
		}
		cols[i].sorted = append([]float64(nil), cols[i].vals...)
		sort.Float64s(cols[i].sorted)
	}
	if !hasData {
		return nil
	}
	var refs []chart.Ref
	for _, r := range c.Refs {
		if finite(r.Value) && !(c.Y.Log && r.Value <= 0) {
			refs = append(refs, r)
			yr.add(r.Value)
		}
	}
	// Y: the values' range with 10 % margins (not from 0: the spread
	// between runs is what this chart shows), but never below 0 when no
	// value is (a share, a count: all 0 is drawn on 0…1, not −1…1).
	lo, hi := yr.lo, yr.hi
	nonNeg := lo >= 0
	if c.Y.Log {
		if lo == hi {
			lo, hi = lo/2, hi*2
		} else {
			r := hi / lo
			lo, hi = lo/math.Pow(r, 0.1), hi*math.Pow(r, 0.1)
		}
	} else {
		if lo == hi {
			m := math.Max(math.Abs(lo)*0.1, 1)
			lo, hi = lo-m, hi+m
		} else {
			m := 0.1 * (hi - lo)
			lo, hi = lo-m, hi+m
		}
		if nonNeg && lo < 0 {
			lo = 0
		}
	}
	lo, hi = fixRange(lo, hi, chart.Axis{Min: c.Y.Min, Max: c.Y.Max}, false, c.Y.Log)

	f := newFrame(c, d.w, d.height(height))
	f.add("median", lineThumb(medianStyle))
	f.add("min–max", thumbFunc(func(c *draw.Canvas) {
		x := c.Center().X
		c.StrokeLine2(rangeStyle(grey), x, c.Min.Y, x, c.Max.Y)
	}))
	area := f.layout()
	p := plot.New()
	styleAxes(p)
	p.BackgroundColor = nil
	n := len(c.Groups)
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	colW := (area.Size().X - 60) / vg.Length(max(n, 1))
	names := make([]string, n)
	for i, g := range c.Groups {
		names[i] = fit(p.X.Tick.Label, clean(g.Label), colW-6)
	}
	p.X.Tick.Marker = nominal(names)
	p.X.Label.Text = axisLabel(c.X, "")
	p.Y.Label.Text = axisLabel(c.Y, "")
	p.Y.Min, p.Y.Max = lo, hi
	p.Y.Tick.Marker = linTicks{}
	if c.Y.Log {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	p.Add(grid)
	p.Add(&refLines{refs: refs})
	for i, cl := range cols {
		if len(cl.vals) == 0 {
			continue
		}
		clr := seriesColor(i)
		s := cl.sorted
		med := s[len(s)/2]
		if len(s)%2 == 0 {
			med = (s[len(s)/2-1] + s[len(s)/2]) / 2
		}
		x := float64(i)
		rangeLine(p, x, s[0], s[len(s)-1], lighter(clr, 0.35))
		pts := make(plotter.XYs, len(cl.vals))
		for k, v := range cl.vals {
			pts[k] = plotter.XY{X: x + jitter(k, len(cl.vals)), Y: v}
		}
		if sc, err := plotter.NewScatter(pts); err == nil {
			sc.GlyphStyle = draw.GlyphStyle{Color: alpha(clr, 0.8), Radius: 3.5, Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
		if ln, err := plotter.NewLine(plotter.XYs{{X: x - medianHalf, Y: med}, {X: x + medianHalf, Y: med}}); err == nil {
			ln.LineStyle = medianStyle
			p.Add(ln)
		}
	}
	fitYLabel(p, area.Size().Y-xAxisRoom)
	p.Draw(area)
	return f
}

// The median's bar: black, ±medianHalf columns wide.
var medianStyle = draw.LineStyle{Color: black, Width: 2.5}

const medianHalf = 0.14

func rangeStyle(clr color.Color) draw.LineStyle { return draw.LineStyle{Color: clr, Width: 2} }

// jitter is dot k of n's offset from its column's centre: the golden
// ratio sequence over ±0.15 columns (deterministic, evenly spread).
func jitter(k, n int) float64 {
	if n <= 1 {
		return 0
	}
	const phi = 0.6180339887498949
	v := math.Mod(float64(k)*phi, 1)
	return (v - 0.5) * 0.3
}

// rangeLine is a vertical line from lo to hi at x.
func rangeLine(p *plot.Plot, x, lo, hi float64, clr color.Color) {
	if ln, err := plotter.NewLine(plotter.XYs{{X: x, Y: lo}, {X: x, Y: hi}}); err == nil {
		ln.LineStyle = rangeStyle(clr)
		p.Add(ln)
	}
}

// nominal labels the integer ticks 0…n−1 with names.
type nominal []string

func (n nominal) Ticks(lo, hi float64) []plot.Tick {
	ts := make([]plot.Tick, 0, len(n))
	for i, s := range n {
		ts = append(ts, plot.Tick{Value: float64(i), Label: s})
	}
	return ts
}
