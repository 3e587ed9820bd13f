package svg

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgtrial/pgtrial/internal/report/chart"
)

// Forest layout: the row labels' column on the left, at most
// forestLabelMax wide; the ratio axis; a short column on the right, the
// ratio with its interval and the outcome (the verdict in words is each
// row's tooltip, and in the report's text).
const forestLabelMax = 170

var outcomes = []string{"differs", "equivalent", "inconclusive"}

// drawForest draws one row per chart.Row, top to bottom, the primary one
// bold on a shaded band; nil when there is no row. The reference lines
// are named in the legend (their labels over the lines would collide:
// 0.95, 1 and 1.05 are a few px apart).
func drawForest(c *chart.Chart, d dims) *frame {
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

	f := newFrame(c, d.w, vg.Length(110+rowHeight*n))
	for _, o := range outcomes {
		for _, r := range c.Rows {
			if outcomeOf(r.Outcome) == o {
				f.add(o, dotThumb(draw.GlyphStyle{Color: outcomeColor(o), Radius: 4, Shape: draw.CircleGlyph{}}))
				break
			}
		}
	}
	for _, r := range refs {
		name := fmtRatio(r.Value)
		if l := clean(r.Label); l != "" {
			name = l + " (" + name + ")"
		}
		f.add(name, lineThumb(refStyle))
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
	// The right column: "ratio 0.95 [0.80, 1.12]" and the outcome word.
	colSty := textStyle(sans, 11, refGrey)
	colSty.YAlign = draw.YCenter
	outSty := colSty
	outSty.Font.Typeface, outSty.Font.Weight = bold.Typeface, bold.Weight
	ratios := make([]string, n)
	ratioW, outW := vg.Length(0), vg.Length(0)
	for i, r := range c.Rows {
		ratios[i] = ratioText(r)
		ratioW = max(ratioW, textWidth(colSty, ratios[i]))
		outW = max(outW, textWidth(outSty, outcomeOf(r.Outcome)))
	}
	const colGap = 10
	ratioW = min(ratioW, area.Size().X/3)
	plotC := draw.Crop(area, labelW+8, -(colGap + ratioW + colGap + outW), 0, 0)

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

	// The labels left of the rows and the right column, at the rows' Y in
	// the data area; each row's verdict in words is its tooltip.
	dataC := p.DataCanvas(plotC)
	_, trY := p.Transforms(&dataC)
	half := dataC.Size().Y / vg.Length(2*n)
	vx := dataC.Max.X + colGap
	for i, r := range c.Rows {
		y := trY(rowY(n, i))
		sty := labelSty
		if r.Primary {
			sty = boldSty
		}
		label(area, sty, vg.Point{X: dataC.Min.X - 8, Y: y}, labels[i])
		label(area, colSty, vg.Point{X: vx, Y: y}, fit(colSty, ratios[i], ratioW))
		ws := outSty
		ws.Color = outcomeColor(outcomeOf(r.Outcome))
		label(area, ws, vg.Point{X: vx + ratioW + colGap, Y: y}, outcomeOf(r.Outcome))
		if v := clean(r.Verdict); v != "" {
			f.tips = append(f.tips, tip{
				r:    vg.Rectangle{Min: vg.Point{X: area.Min.X, Y: y - half}, Max: vg.Point{X: area.Max.X, Y: y + half}},
				text: clean(r.Label) + ": " + v,
			})
		}
	}
	return f
}

// refStyle is a Forest's reference line.
var refStyle = draw.LineStyle{Color: refGrey, Width: 1, Dashes: []vg.Length{4, 3}}

// ratioText is a row's right column: "ratio 0.95 [0.80, 1.12]", "ratio
// 0.95, no interval", or "no ratio".
func ratioText(r chart.Row) string {
	if !(r.Estimate > 0) || !finite(r.Estimate) {
		return "no ratio"
	}
	s := "ratio " + fmtRatio(r.Estimate)
	if finite(r.Lo) && finite(r.Hi) {
		lo, hi := math.Min(r.Lo, r.Hi), math.Max(r.Lo, r.Hi)
		return s + " [" + fmtRatio(lo) + ", " + fmtRatio(hi) + "]"
	}
	return s + ", no interval"
}

// fmtRatio writes a ratio with 2 decimals from 0.1 to 100 (0.95, 1.12,
// 12.50), else with 3 significant digits (0.0123, 1.5e+03).
func fmtRatio(v float64) string {
	if a := math.Abs(v); a >= 0.1 && a < 100 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
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
	for _, ref := range fr.refs {
		x := trX(ref.Value)
		if x < c.Min.X || x > c.Max.X {
			continue
		}
		c.StrokeLine2(refStyle, x, c.Min.Y, x, c.Max.Y)
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
