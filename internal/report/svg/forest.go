package svg

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgtrial/pgtrial/internal/report/chart"
)

// Forest layout: the row labels' column on the left, the verdicts' on the
// right, the ratio axis between.
const (
	forestLabelMax   = 170
	forestVerdictCol = 250
)

var outcomes = []string{"differs", "equivalent", "inconclusive"}

// drawForest draws one row per chart.Row, top to bottom, the primary one
// bold on a shaded band; nil when there is no row.
func drawForest(c *chart.Chart) *frame {
	n := len(c.Rows)
	if n == 0 {
		return nil
	}
	// The X range: every positive estimate and bound, and the Refs.
	xr := newRng()
	for _, r := range c.Rows {
		for _, v := range []float64{r.Estimate, r.Lo, r.Hi} {
			if v > 0 {
				xr.add(v)
			}
		}
	}
	var refs []chart.Ref
	for _, r := range c.Refs {
		if finite(r.Value) && r.Value > 0 {
			refs = append(refs, r)
			xr.add(r.Value)
		}
	}
	if xr.empty() {
		xr = rng{1, 1}
	}
	// Pad by 8 % of the range in log space, at least ±2 % around a point.
	llo, lhi := math.Log10(xr.lo), math.Log10(xr.hi)
	pad := math.Max(0.08*(lhi-llo), math.Log10(1.02))
	xlo, xhi := math.Pow(10, llo-pad), math.Pow(10, lhi+pad)
	if c.X.Min != nil && *c.X.Min > 0 && finite(*c.X.Min) {
		xlo = *c.X.Min
	}
	if c.X.Max != nil && *c.X.Max > xlo && finite(*c.X.Max) {
		xhi = *c.X.Max
	}

	f := newFrame(c, vg.Length(110+rowHeight*n))
	for _, o := range outcomes {
		for _, r := range c.Rows {
			if outcomeOf(r.Outcome) == o {
				f.add(o, dotThumb(draw.GlyphStyle{Color: outcomeColor(o), Radius: 4, Shape: draw.CircleGlyph{}}))
				break
			}
		}
	}
	area := f.layout()

	labelSty := textStyle(sans, 11, black)
	labelSty.XAlign, labelSty.YAlign = draw.XRight, draw.YCenter
	boldSty := labelSty
	boldSty.Font.Typeface, boldSty.Font.Weight = bold.Typeface, bold.Weight
	labels := make([]string, n)
	labelW := vg.Length(0)
	for i, r := range c.Rows {
		sty := labelSty
		if r.Primary {
			sty = boldSty
		}
		labels[i] = fit(sty, clean(r.Label), forestLabelMax)
		labelW = max(labelW, textWidth(sty, labels[i]))
	}
	plotC := draw.Crop(area, labelW+8, -forestVerdictCol, 0, 0)

	p := plot.New()
	styleAxes(p)
	p.BackgroundColor = nil
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
	p.X.Min, p.X.Max = xlo, xhi
	p.X.Label.Text = axisLabel(c.X, "ratio")
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.HideY()
	p.Add(&forestRows{rows: c.Rows, refs: refs})
	p.Draw(plotC)

	// The labels left of the rows and the verdicts right of them, at the
	// rows' Y in the data area.
	dataC := p.DataCanvas(plotC)
	_, trY := p.Transforms(&dataC)
	verdictSty := textStyle(sans, 10, refGrey)
	verdictSty.YAlign = draw.YCenter
	vx := dataC.Max.X + 10
	vw := area.Max.X - vx
	for i, r := range c.Rows {
		y := trY(rowY(n, i))
		sty := labelSty
		if r.Primary {
			sty = boldSty
		}
		label(area, sty, vg.Point{X: dataC.Min.X - 8, Y: y}, labels[i])
		lines := wrap(verdictSty, clean(r.Verdict), vw, 2)
		lh := verdictSty.Height("Mg")
		y0 := y + lh*vg.Length(len(lines)-1)/2
		for k, l := range lines {
			vs := verdictSty
			vs.Color = outcomeColor(outcomeOf(r.Outcome))
			if k > 0 {
				vs.Color = refGrey
			}
			label(area, vs, vg.Point{X: vx, Y: y0 - lh*vg.Length(k)}, l)
		}
	}
	return f
}

// rowY is row i's Y: the first row at the top.
func rowY(n, i int) float64 { return float64(n - 1 - i) }

// outcomeOf is the outcome's name, "inconclusive" for anything unknown.
func outcomeOf(o string) string {
	switch o {
	case "differs", "equivalent":
		return o
	}
	return "inconclusive"
}

// forestRows draws the bands, the reference lines, the intervals and the
// estimates.
type forestRows struct {
	rows []chart.Row
	refs []chart.Ref
}

func (fr *forestRows) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(fr.rows)
	band := vg.Length(0)
	if n > 0 {
		band = (trY(0) - trY(-0.5)) // half a row
	}
	for i, r := range fr.rows {
		y := trY(rowY(n, i))
		var fill color.Color
		switch {
		case r.Primary:
			fill = lighter(outcomeColor(outcomeOf(r.Outcome)), 0.88)
		case i%2 == 1:
			fill = lighter(light, 0.6)
		}
		if fill != nil {
			c.FillPolygon(fill, []vg.Point{
				{X: c.Min.X, Y: y - band}, {X: c.Max.X, Y: y - band},
				{X: c.Max.X, Y: y + band}, {X: c.Min.X, Y: y + band},
			})
		}
	}
	sty := textStyle(sans, 9, refGrey)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
	for _, ref := range fr.refs {
		x := trX(ref.Value)
		if x < c.Min.X || x > c.Max.X {
			continue
		}
		c.StrokeLine2(draw.LineStyle{Color: refGrey, Width: 1, Dashes: []vg.Length{4, 3}}, x, c.Min.Y, x, c.Max.Y)
		label(c, sty, vg.Point{X: x, Y: c.Max.Y + 1}, fit(sty, clean(ref.Label), 120))
	}
	clampX := func(v float64) vg.Length {
		if !(v > 0) {
			return c.Min.X
		}
		return min(max(trX(v), c.Min.X), c.Max.X)
	}
	for i, r := range fr.rows {
		y := trY(rowY(n, i))
		clr := outcomeColor(outcomeOf(r.Outcome))
		w := vg.Length(1.75)
		if r.Primary {
			w = 2.5
		}
		if finite(r.Lo) && finite(r.Hi) {
			lo, hi := math.Min(r.Lo, r.Hi), math.Max(r.Lo, r.Hi)
			x0, x1 := clampX(lo), clampX(hi)
			ls := draw.LineStyle{Color: clr, Width: w}
			c.StrokeLine2(ls, x0, y, x1, y)
			capH := vg.Length(5)
			if lo > 0 && trX(lo) >= c.Min.X {
				c.StrokeLine2(ls, x0, y-capH, x0, y+capH)
			}
			if trX(hi) <= c.Max.X {
				c.StrokeLine2(ls, x1, y-capH, x1, y+capH)
			}
		}
		if r.Estimate > 0 && finite(r.Estimate) {
			g := draw.GlyphStyle{Color: clr, Radius: 4, Shape: draw.CircleGlyph{}}
			if r.Primary {
				g.Radius, g.Shape = 5.5, draw.BoxGlyph{}
			}
			c.DrawGlyph(g, vg.Point{X: trX(r.Estimate), Y: y})
		}
	}
}
