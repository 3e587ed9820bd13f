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

// rng is a range of values seen; empty while lo > hi.
type rng struct{ lo, hi float64 }

func newRng() rng { return rng{math.Inf(1), math.Inf(-1)} }

func (r *rng) add(v float64) {
	if finite(v) {
		r.lo = math.Min(r.lo, v)
		r.hi = math.Max(r.hi, v)
	}
}

func (r rng) empty() bool { return r.lo > r.hi }

// xyPanel is what one panel draws: the left axis' series, or the right's.
type xyPanel struct {
	axis   chart.Axis
	lines  []line
	layers []layer
	refs   []chart.Ref
	yr     rng
}

// A line is a series' runs of drawable points (a NaN ends a run).
type line struct {
	idx    int // the series' index in the chart (its colour)
	runs   []plotter.XYs
	points bool
	dash   bool
}

// A layer is a stacked series: its runs, each from bottom to top.
type layer struct {
	idx  int
	runs []stackRun
}

type stackRun struct{ x, lo, hi []float64 }

// drawXY draws a Time, XY or Spectrum chart; nil when there is no data.
// An XY chart (a ramp's few levels, a capacity search's probes) has a
// point at every value as well as the lines between them, so a series of
// one value shows.
func drawXY(c *chart.Chart, d dims) *frame {
	spectrum := c.Kind == chart.Spectrum
	// tx is the X drawn for a data X: the Spectrum's log10(1/(1−q)); on a
	// log axis only positive X.
	tx := func(x float64) (float64, bool) {
		switch {
		case !finite(x):
			return 0, false
		case spectrum:
			if x < 0 || x >= 1 {
				return 0, false
			}
			return -math.Log10(1 - x), true
		case c.X.Log && x <= 0:
			return 0, false
		}
		return x, true
	}
	split := c.Y2 != nil
	left := &xyPanel{axis: c.Y, yr: newRng()}
	var right *xyPanel
	if split {
		right = &xyPanel{axis: *c.Y2, yr: newRng()}
	}
	panelOf := func(r bool) *xyPanel {
		if r && split {
			return right
		}
		return left
	}
	xr := newRng()

	// Stacks: series with the same Stack, in order, bottom first, on the
	// X of the group's first series; an index where any is NaN is a gap.
	stacks := map[string][]int{}
	var stackOrder []string
	for i, s := range c.Series {
		if s.Stack == "" {
			continue
		}
		if _, ok := stacks[s.Stack]; !ok {
			stackOrder = append(stackOrder, s.Stack)
		}
		stacks[s.Stack] = append(stacks[s.Stack], i)
	}
	for _, name := range stackOrder {
		idxs := stacks[name]
		first := c.Series[idxs[0]]
		pn := panelOf(first.Right)
		n := len(first.X)
		for _, i := range idxs {
			n = min(n, len(c.Series[i].Y), len(c.Series[i].X))
		}
		ls := make([]layer, len(idxs))
		for k, i := range idxs {
			ls[k].idx = i
		}
		var cur []int // the indices of the current run
		flush := func() {
			if len(cur) == 0 {
				return
			}
			base := make([]float64, len(cur))
			xs := make([]float64, len(cur))
			for j, t := range cur {
				xs[j], _ = tx(first.X[t])
			}
			for k, i := range idxs {
				lo := append([]float64(nil), base...)
				hi := make([]float64, len(cur))
				for j, t := range cur {
					hi[j] = base[j] + c.Series[i].Y[t]
					pn.yr.add(hi[j])
					pn.yr.add(lo[j])
				}
				base = hi
				ls[k].runs = append(ls[k].runs, stackRun{x: xs, lo: lo, hi: hi})
			}
			cur = nil
		}
		for t := range n {
			ok := true
			if _, okx := tx(first.X[t]); !okx {
				ok = false
			}
			for _, i := range idxs {
				if !finite(c.Series[i].Y[t]) {
					ok = false
				}
			}
			if !ok {
				flush()
				continue
			}
			x, _ := tx(first.X[t])
			xr.add(x)
			cur = append(cur, t)
		}
		flush()
		pn.layers = append(pn.layers, ls...)
	}

	for i, s := range c.Series {
		if s.Stack != "" {
			continue
		}
		pn := panelOf(s.Right)
		l := line{idx: i, points: s.Points, dash: s.Dash}
		var run plotter.XYs
		n := min(len(s.X), len(s.Y))
		for t := range n {
			x, okx := tx(s.X[t])
			y := s.Y[t]
			if !okx || !finite(y) || (pn.axis.Log && y <= 0) {
				if len(run) > 0 {
					l.runs = append(l.runs, run)
				}
				run = nil
				continue
			}
			run = append(run, plotter.XY{X: x, Y: y})
			xr.add(x)
			pn.yr.add(y)
		}
		if len(run) > 0 {
			l.runs = append(l.runs, run)
		}
		pn.lines = append(pn.lines, l)
	}
	if xr.empty() {
		return nil
	}
	for _, r := range c.Refs {
		pn := panelOf(r.Right)
		if finite(r.Value) && !(pn.axis.Log && r.Value <= 0) {
			pn.refs = append(pn.refs, r)
			pn.yr.add(r.Value)
		}
	}
	var markers []chart.Marker
	for _, m := range c.Markers {
		if x, ok := tx(m.X); ok {
			m.X = x
			markers = append(markers, m)
			xr.add(x)
		}
	}
	var spans []chart.Span
	for _, s := range c.Spans {
		a, oka := tx(s.From)
		b, okb := tx(s.To)
		if oka && okb {
			s.From, s.To = math.Min(a, b), math.Max(a, b)
			spans = append(spans, s)
			xr.add(s.From)
			xr.add(s.To)
		}
	}

	// The X range: the data's (a Spectrum's from 0 % to the decade the
	// data reaches); the axis' Min and Max when set.
	xlo, xhi := xr.lo, xr.hi
	if spectrum {
		xlo, xhi = 0, math.Max(1, math.Ceil(xr.hi-1e-6))
	} else {
		if c.Kind != chart.Time && xhi > xlo { // XY: room for the end points
			if c.X.Log {
				r := math.Pow(xhi/xlo, 0.03)
				xlo, xhi = xlo/r, xhi*r
			} else {
				d := 0.03 * (xhi - xlo)
				xlo, xhi = xlo-d, xhi+d
			}
		}
		xlo, xhi = fixRange(xlo, xhi, c.X, false, c.X.Log)
	}

	h := vg.Length(height)
	if split {
		h += panelExtra
	}
	f := newFrame(c, d.w, d.height(h))
	xyPoints := c.Kind == chart.XY
	// The legend: every series, then the marker kinds present.
	for _, pn := range []*xyPanel{left, right} {
		if pn == nil {
			continue
		}
		for _, l := range pn.layers {
			fill, edge := layerStyle(toneOf(c, l.idx))
			f.add(c.Series[l.idx].Name, boxThumb(fill, edge))
		}
	}
	for _, pn := range []*xyPanel{left, right} {
		if pn == nil {
			continue
		}
		for _, l := range pn.lines {
			if l.points {
				f.add(c.Series[l.idx].Name, dotThumb(pointStyle(toneOf(c, l.idx))))
			} else {
				f.add(c.Series[l.idx].Name, lineThumb(lineStyle(toneOf(c, l.idx), l.dash)))
			}
		}
	}
	addKindLegend(f, markers, spans)

	xlabel := axisLabel(c.X, "")
	if c.Kind == chart.Time && c.X.Label == "" {
		xa := c.X
		xa.Label = "time"
		if xa.Unit == "" {
			xa.Unit = "s"
		}
		xlabel = axisLabel(xa, "")
	}
	if spectrum {
		xlabel = "percentile"
		if l := axisLabel(c.X, ""); l != "" {
			xlabel = l
		}
	}
	plotArea := f.layout()
	panels := []*xyPanel{left}
	if split {
		panels = append(panels, right)
	}
	plots := make([]*plot.Plot, len(panels))
	for k, pn := range panels {
		p := plot.New()
		styleAxes(p)
		p.BackgroundColor = nil
		p.X.Min, p.X.Max = xlo, xhi
		p.X.Tick.Marker = linTicks{}
		switch {
		case spectrum:
			p.X.Tick.Marker = quantileTicks{}
		case c.X.Log:
			p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		}
		if k == len(panels)-1 {
			p.X.Label.Text = xlabel
		} else {
			p.X.Tick.Marker = unlabelled{p.X.Tick.Marker}
		}
		p.Y.Label.Text = axisLabel(pn.axis, "")
		ylo, yhi := fixRange(pn.yr.lo, pn.yr.hi, pn.axis, true, pn.axis.Log)
		p.Y.Min, p.Y.Max = ylo, yhi
		p.Y.Tick.Marker = linTicks{}
		if pn.axis.Log {
			p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
		}
		p.Add(plotter.NewGrid())
		p.Add(&events{markers: markers, spans: spans})
		for _, l := range pn.layers {
			fill, edge := layerStyle(toneOf(c, l.idx))
			for _, r := range l.runs {
				lo := r.lo
				if pn.axis.Log {
					lo = make([]float64, len(r.lo))
					for j, v := range r.lo {
						lo[j] = math.Max(v, ylo)
					}
				}
				top := make(plotter.XYs, len(r.x))
				bot := make(plotter.XYs, len(r.x))
				for j := range r.x {
					top[j] = plotter.XY{X: r.x[j], Y: math.Max(r.hi[j], ylo)}
					bot[j] = plotter.XY{X: r.x[j], Y: lo[j]}
				}
				p.Add(&area{top: top, bottom: bot, fill: fill.Color})
				p.Add(&polyline{xys: top, sty: edge})
				if xyPoints || len(top) == 1 {
					// a layer's top at each value: one value has no area
					if sc, err := plotter.NewScatter(top); err == nil {
						sc.GlyphStyle = pointStyle(toneOf(c, l.idx))
						if !xyPoints {
							sc.GlyphStyle.Radius = 1.5
						}
						p.Add(sc)
					}
				}
			}
		}
		for _, l := range pn.lines {
			for _, r := range l.runs {
				if !l.points && len(r) > 1 {
					p.Add(&polyline{xys: r, sty: lineStyle(toneOf(c, l.idx), l.dash)})
				}
				if l.points || xyPoints || len(r) == 1 {
					if sc, err := plotter.NewScatter(r); err == nil {
						sc.GlyphStyle = pointStyle(toneOf(c, l.idx))
						if !l.points && !xyPoints {
							sc.GlyphStyle.Radius = 1.5
						}
						p.Add(sc)
					}
				}
			}
		}
		p.Add(&refLines{refs: pn.refs})
		if k == 0 {
			p.Add(&eventLabels{markers: markers, spans: spans})
		}
		plots[k] = p
	}
	if len(plots) == 1 {
		fitYLabel(plots[0], plotArea.Size().Y-xAxisRoom)
		plots[0].Draw(plotArea)
		return f
	}
	// Two panels: the upper 60 % of the height, the lower the rest; their
	// data areas start at the same X (the wider Y axis' width).
	gap := vg.Length(8)
	h0 := (plotArea.Size().Y - gap) * 0.6
	cs := []draw.Canvas{
		draw.Crop(plotArea, 0, 0, plotArea.Size().Y-h0, 0),
		draw.Crop(plotArea, 0, 0, 0, -(h0 + gap)),
	}
	left0 := plots[0].DataCanvas(cs[0]).Min.X
	left1 := plots[1].DataCanvas(cs[1]).Min.X
	if left0 < left1 {
		cs[0] = draw.Crop(cs[0], left1-left0, 0, 0, 0)
	} else {
		cs[1] = draw.Crop(cs[1], left0-left1, 0, 0, 0)
	}
	for k, p := range plots {
		room := cs[k].Size().Y
		if k == len(plots)-1 {
			room -= xAxisRoom
		}
		fitYLabel(p, room)
		p.Draw(cs[k])
	}
	return f
}

// xAxisRoom is about the height of an X axis with its ticks and label.
const xAxisRoom = 36

// fitYLabel shortens the rotated Y axis label to fit the panel's height
// h (a long label on a short lower panel would run past it).
func fitYLabel(p *plot.Plot, h vg.Length) {
	if p.Y.Label.Text != "" {
		p.Y.Label.Text = fit(p.Y.Label.TextStyle, p.Y.Label.Text, max(h, 20))
	}
}

// fixRange pads a data range and applies the axis' Min and Max: a linear
// Y axis includes 0 (the quantities drawn are counts, rates, times), gets
// 5 % headroom and, when every value is 0, is 0…1; a log axis keeps to positive numbers.
func fixRange(lo, hi float64, a chart.Axis, isY, log bool) (float64, float64) {
	if lo > hi { // nothing seen (a panel without data)
		lo, hi = 0, 1
		if log {
			lo, hi = 1, 10
		}
	}
	if log {
		if lo == hi {
			lo, hi = lo/2, hi*2
		} else if isY {
			lo, hi = lo/1.1, hi*1.1
		}
	} else {
		if isY {
			lo, hi = math.Min(lo, 0), math.Max(hi, 0)
			if hi > lo {
				hi += 0.05 * (hi - lo)
			}
		}
		switch {
		case lo == hi && isY && lo == 0: // all 0: 0…1, not −1…1
			hi = 1
		case lo == hi:
			lo, hi = lo-1, hi+1
		}
	}
	if a.Min != nil && finite(*a.Min) && !(log && *a.Min <= 0) {
		lo = *a.Min
	}
	if a.Max != nil && finite(*a.Max) && !(log && *a.Max <= 0) {
		hi = *a.Max
	}
	if !(hi > lo) {
		if log {
			hi = lo * 10
		} else {
			hi = lo + 1
		}
	}
	return lo, hi
}

func lineStyle(idx int, dash bool) draw.LineStyle {
	sty := draw.LineStyle{Color: seriesColor(idx), Width: 1.25}
	if dash {
		sty.Dashes = []vg.Length{5, 3}
	}
	return sty
}

func pointStyle(idx int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: seriesColor(idx), Radius: 3, Shape: draw.CircleGlyph{}}
}

// layerStyle is a stacked area's fill and the line along its top.
func layerStyle(idx int) (fill, edge draw.LineStyle) {
	c := seriesColor(idx)
	return draw.LineStyle{Color: lighter(c, 0.3)}, draw.LineStyle{Color: c, Width: 0.75}
}

// addKindLegend adds one entry per marker kind present, in markerKinds'
// order: a dashed line for markers, a shaded box for spans only.
func addKindLegend(f *frame, markers []chart.Marker, spans []chart.Span) {
	for _, mk := range markerKinds {
		hasMarker, hasSpan := false, false
		for _, m := range markers {
			hasMarker = hasMarker || markerColor(m.Kind) == mk.clr
		}
		for _, s := range spans {
			hasSpan = hasSpan || markerColor(s.Kind) == mk.clr
		}
		switch {
		case hasMarker:
			f.add(string(mk.kind), lineThumb(markerLine(mk.clr)))
		case hasSpan:
			f.add(string(mk.kind), boxThumb(draw.LineStyle{Color: alpha(mk.clr, 0.25)}, draw.LineStyle{}))
		}
	}
}

func markerLine(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: 1, Dashes: []vg.Length{3, 2}}
}

// unlabelled drops the labels of a ticker's ticks (the upper panel of two
// sharing X: the lower one labels it).
type unlabelled struct{ plot.Ticker }

func (u unlabelled) Ticks(lo, hi float64) []plot.Tick {
	ts := u.Ticker.Ticks(lo, hi)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

// events draws the spans (shaded) and the markers (dashed vertical lines)
// behind the data.
type events struct {
	markers []chart.Marker
	spans   []chart.Span
}

func (e *events) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, s := range e.spans {
		x0 := max(trX(s.From), c.Min.X)
		x1 := min(trX(s.To), c.Max.X)
		if x1 < x0 {
			continue
		}
		if x1-x0 < 1 {
			x1 = x0 + 1
		}
		c.FillPolygon(alpha(markerColor(s.Kind), 0.14), []vg.Point{
			{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y},
		})
	}
	for _, m := range e.markers {
		x := trX(m.X)
		if x < c.Min.X || x > c.Max.X {
			continue
		}
		c.StrokeLine2(markerLine(markerColor(m.Kind)), x, c.Min.Y, x, c.Max.Y)
	}
}

// maxEventLabels: with more events than this, only the legend tells them
// apart (their labels would cover the chart).
const maxEventLabels = 12

// eventLabels writes the markers' and spans' labels, short and rotated
// along their line, skipping one that would overlap the previous.
type eventLabels struct {
	markers []chart.Marker
	spans   []chart.Span
}

func (e *eventLabels) Plot(c draw.Canvas, p *plot.Plot) {
	if len(e.markers)+len(e.spans) > maxEventLabels {
		return
	}
	type ev struct {
		x     float64
		label string
		kind  chart.MarkerKind
	}
	var evs []ev
	for _, m := range e.markers {
		evs = append(evs, ev{m.X, m.Label, m.Kind})
	}
	for _, s := range e.spans {
		evs = append(evs, ev{s.From, s.Label, s.Kind})
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].x < evs[j].x })
	trX, _ := p.Transforms(&c)
	sty := textStyle(sans, 9, nil)
	sty.Rotation = math.Pi / 2
	sty.XAlign, sty.YAlign = draw.XRight, draw.YBottom
	last := vg.Length(math.Inf(-1))
	for _, v := range evs {
		x := trX(v.x)
		s := clean(v.label)
		if s == "" || x < c.Min.X || x > c.Max.X || x-last < 11 {
			continue
		}
		last = x
		sty.Color = markerColor(v.kind)
		s = fit(sty, s, min(c.Size().Y-6, 170))
		pt := vg.Point{X: x - 1.5, Y: c.Max.Y - 3}
		if x-c.Min.X < 11 { // at the left edge: the label right of the line
			pt.X = x + 10
		}
		label(c, sty, pt, s)
	}
}

// refLines draws the reference lines with their label at the right end.
type refLines struct{ refs []chart.Ref }

func (r *refLines) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	sty := textStyle(sans, 9, refGrey)
	sty.XAlign = draw.XRight
	ls := draw.LineStyle{Color: refGrey, Width: 1, Dashes: []vg.Length{6, 3}}
	for _, ref := range r.refs {
		y := trY(ref.Value)
		if y < c.Min.Y || y > c.Max.Y {
			continue
		}
		c.StrokeLine2(ls, c.Min.X, y, c.Max.X, y)
		s := fit(sty, clean(ref.Label), c.Size().X/2)
		label(c, sty, vg.Point{X: c.Max.X - 2, Y: y + 2}, s)
	}
}

// toneOf is the palette index of series i of c: its Tone when set (series
// drawn alike share a colour), else its position.
func toneOf(c *chart.Chart, i int) int {
	if i >= 0 && i < len(c.Series) && c.Series[i].Tone > 0 {
		return c.Series[i].Tone - 1
	}
	return i
}
