package svg

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// column is the width (px) within which consecutive points are merged: an
// hour at 1 s on a 650 px axis has about 5 points per px, and drawing
// them all only makes the file larger.
const column = 1.0

// decimate keeps, of each run of consecutive points within one column,
// the first, the lowest, the highest and the last, in their order: the
// drawn line looks the same (every peak stays) with at most 4 points per
// column (the "M4" reduction).
func decimate(pts []vg.Point) []vg.Point {
	if len(pts) <= 4 {
		return pts
	}
	out := make([]vg.Point, 0, min(len(pts), 4096))
	for i := 0; i < len(pts); {
		col := math.Floor(float64(pts[i].X) / column)
		j, lo, hi := i, i, i
		for j+1 < len(pts) && math.Floor(float64(pts[j+1].X)/column) == col {
			j++
			if pts[j].Y < pts[lo].Y {
				lo = j
			}
			if pts[j].Y > pts[hi].Y {
				hi = j
			}
		}
		keep := []int{i, lo, hi, j}
		if lo > hi {
			keep[1], keep[2] = hi, lo
		}
		last := -1
		for _, k := range keep {
			if k != last {
				out = append(out, pts[k])
				last = k
			}
		}
		i = j + 1
	}
	return out
}

// screen is xys on the canvas.
func screen(c *draw.Canvas, p *plot.Plot, xys plotter.XYs) []vg.Point {
	trX, trY := p.Transforms(c)
	pts := make([]vg.Point, len(xys))
	for i, v := range xys {
		pts[i] = vg.Point{X: trX(v.X), Y: trY(v.Y)}
	}
	return pts
}

// polyline is a run of points drawn as a line, decimated and clipped.
type polyline struct {
	xys plotter.XYs
	sty draw.LineStyle
}

func (l *polyline) Plot(c draw.Canvas, p *plot.Plot) {
	c.StrokeLines(l.sty, c.ClipLinesXY(decimate(screen(&c, p, l.xys)))...)
}

// area is a filled band between two runs of points with the same X (a
// stacked layer: its top forward, its bottom back).
type area struct {
	top, bottom plotter.XYs
	fill        color.Color
}

func (a *area) Plot(c draw.Canvas, p *plot.Plot) {
	top := decimate(screen(&c, p, a.top))
	bot := decimate(screen(&c, p, a.bottom))
	pts := make([]vg.Point, 0, len(top)+len(bot))
	pts = append(pts, top...)
	for i := len(bot) - 1; i >= 0; i-- {
		pts = append(pts, bot[i])
	}
	c.FillPolygon(a.fill, c.ClipPolygonXY(pts))
}
