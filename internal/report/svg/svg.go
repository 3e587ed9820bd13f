// Package svg draws a chart.Chart as a static SVG image (gonum.org/v1/plot):
// the Markdown report's images and the HTML report's non-interactive charts.
//
// Every kind is drawn: Time and XY (lines with gaps at NaN, stacked areas,
// points, dashed lines, markers, spans, reference lines; the Right series
// in a second panel below sharing the X range, since gonum/plot has no
// second Y axis), Spectrum (X at log10(1/(1−q)) labelled 0 %, 90 %, 99 %,
// …), Forest (a row per metric, ratio on a log X axis, coloured by
// outcome, the verdict on the right) and Dots (a column per group, its
// values jittered, median and range). A chart without data says "no data".
//
// The SVG is 720 units wide (1 unit = 1 px; RenderSize draws it at
// another size), has a viewBox (it scales with its element), uses no
// embedded font (the text names Liberation Sans with sans-serif fallbacks)
// and is the same bytes for the same chart. A chart without a Title has
// no title line (the HTML page writes the title above the image). Text is escaped by the SVG writer (vgsvg uses
// html.EscapeString) after clean has removed what XML forbids.
package svg

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"io"
	"regexp"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/pgtrial/pgtrial/internal/report/chart"
)

// Render writes c as one SVG document. Bad data (NaN, ±Inf, X and Y of
// different lengths, nothing at all) draws what it can, or "no data"; it
// is not an error. The error is the writer's.
func Render(w io.Writer, c *chart.Chart) error {
	return RenderSize(w, c, Size{})
}

// Size is an image's size in px: Width 0 is 720, Height 0 the kind's own
// (300 for Dots, Time, XY and Spectrum, 470 with a Y2 panel; a Forest's
// height is always from its rows). The HTML page draws small Dots charts
// for a grid of them (420 × 260).
type Size struct {
	Width, Height float64
}

// minSize is the smallest image drawn: below it the axes and labels do not
// fit.
const minSize = 200

// dims is a Size with the defaults applied.
type dims struct {
	w, h vg.Length // h: 0 is the kind's own
}

func (s Size) dims() dims {
	d := dims{w: width}
	if finite(s.Width) && s.Width > 0 {
		d.w = vg.Length(max(s.Width, minSize))
	}
	if finite(s.Height) && s.Height > 0 {
		d.h = vg.Length(max(s.Height, minSize))
	}
	return d
}

// height is h, or def when h is 0.
func (d dims) height(def vg.Length) vg.Length {
	if d.h > 0 {
		return d.h
	}
	return def
}

// RenderSize is Render at the size s.
func RenderSize(w io.Writer, c *chart.Chart, s Size) error {
	b, err := render(c, s.dims())
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// render draws c, falling back to a "no data" image should gonum/plot
// panic on an input this package did not foresee.
func render(c *chart.Chart, d dims) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			title := ""
			if c != nil {
				title = c.Title
			}
			out, err = draw1(&chart.Chart{Title: title, Note: fmt.Sprintf("chart not drawn: %v", r)}, d)
		}
	}()
	if c == nil {
		c = &chart.Chart{}
	}
	return draw1(c, d)
}

func draw1(c *chart.Chart, d dims) ([]byte, error) {
	var f *frame
	switch c.Kind {
	case chart.Forest:
		f = drawForest(c, d)
	case chart.Dots:
		f = drawDots(c, d)
	default: // Time, XY, Spectrum; an unknown kind is drawn as XY
		f = drawXY(c, d)
	}
	if f == nil {
		f = newFrame(c, d.w, d.height(height))
		area := f.layout()
		sty := textStyle(sans, 14, grey)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
		area.FillText(sty, area.Center(), "no data")
	}
	var buf bytes.Buffer
	if _, err := f.cv.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("svg: writing %q: %w", c.ID, err)
	}
	return addTips(fixHeader(buf.Bytes(), clean(c.Title)), f.tips), nil
}

// A tip is a rectangle of the image (in the canvas' units, Y up) with a
// tooltip: an invisible <rect> holding a <title> (a Forest row's verdict).
type tip struct {
	r    vg.Rectangle
	text string
}

// addTips writes the tips as the last elements of the image's group (whose
// transform makes the canvas' coordinates the rect's), so they are on top.
func addTips(b []byte, tips []tip) []byte {
	end := []byte("</g>\n</svg>")
	i := bytes.LastIndex(b, end)
	if len(tips) == 0 || i < 0 {
		return b
	}
	var t bytes.Buffer
	for _, p := range tips {
		fmt.Fprintf(&t, `<rect x="%.4g" y="%.4g" width="%.4g" height="%.4g" fill="transparent"><title>%s</title></rect>`+"\n",
			float64(p.r.Min.X), float64(p.r.Min.Y), float64(p.r.Max.X-p.r.Min.X), float64(p.r.Max.Y-p.r.Min.Y),
			html.EscapeString(p.text))
	}
	out := append([]byte(nil), b[:i]...)
	out = append(out, t.Bytes()...)
	return append(out, b[i:]...)
}

// A frame is the image around the plots: the title at the top, a legend
// under it, a note at the bottom.
type frame struct {
	cv     *vgsvg.Canvas
	dc     draw.Canvas
	title  string
	note   string
	legend []legendEntry
	tips   []tip
}

type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

func newFrame(c *chart.Chart, w, h vg.Length) *frame {
	cv := vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(false))
	dc := draw.New(cv)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	return &frame{cv: cv, dc: dc, title: clean(c.Title), note: clean(c.Note)}
}

func (f *frame) add(name string, t plot.Thumbnailer) {
	f.legend = append(f.legend, legendEntry{name: clean(name), thumb: t})
}

// layout draws the title, the legend and the note and returns the area
// left for the plots.
func (f *frame) layout() draw.Canvas {
	area := draw.Crop(f.dc, margin, -margin, margin, -margin)
	if f.title != "" {
		sty := textStyle(bold, 13, black)
		sty.YAlign = draw.YTop
		t := fit(sty, f.title, area.Size().X)
		area.FillText(sty, vg.Point{X: area.Min.X, Y: area.Max.Y}, t)
		area.Max.Y -= sty.Height(t) + 4
	}
	if f.note != "" {
		sty := textStyle(sans, 10, grey)
		t := fit(sty, f.note, area.Size().X)
		area.FillText(sty, vg.Point{X: area.Min.X, Y: area.Min.Y}, t)
		area.Min.Y += sty.Height(t) + 4
	}
	if len(f.legend) > 0 {
		area.Max.Y = f.drawLegend(area)
	}
	return area
}

// maxLegendLines: a legend wraps to at most this many lines, then says
// how many entries it left out (the plot keeps its room).
const maxLegendLines = 3

// drawLegend lays the entries out left to right, wrapping, under the
// title; it returns the top of what is left below.
func (f *frame) drawLegend(area draw.Canvas) vg.Length {
	sty := textStyle(sans, 10, refGrey)
	const thumbW, gap = 16, 12
	lineH := sty.Height("Mg") + 3
	x, y := area.Min.X, area.Max.Y-lineH
	maxW := area.Size().X
	more := "+99 more"
	for i, e := range f.legend {
		name := fit(sty, e.name, maxW/2)
		w := thumbW + 4 + textWidth(sty, name)
		if x > area.Min.X && x+w > area.Max.X-textWidth(sty, more) && y <= area.Max.Y-maxLegendLines*lineH {
			// the last line is full: say how many are left out
			f.dc.FillText(sty, vg.Point{X: x, Y: y + 2}, fmt.Sprintf("+%d more", len(f.legend)-i))
			break
		}
		if x > area.Min.X && x+w > area.Max.X {
			x, y = area.Min.X, y-lineH
		}
		tc := draw.Canvas{Canvas: f.dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: y + 2}, Max: vg.Point{X: x + thumbW, Y: y + lineH - 3},
		}}
		e.thumb.Thumbnail(&tc)
		f.dc.FillText(sty, vg.Point{X: x + thumbW + 4, Y: y + 2}, name)
		x += w + gap
	}
	return y - 4
}

// header matches vgsvg's prelude: the XML declaration, its comment and
// the size in pt.
var header = regexp.MustCompile(`(?s)^<\?xml[^>]*>\s*<!--[^>]*-->\s*<svg width="([0-9.]+)pt" height="([0-9.]+)pt"`)

// fixHeader makes vgsvg's output fit to be a file and inline in HTML: no
// XML declaration (invalid inside HTML), the size in px (the canvas is
// sized in units meant as px), a role and a <title> (none when the title
// is empty), and sans-serif fallbacks for the font.
func fixHeader(b []byte, title string) []byte {
	b = header.ReplaceAll(b, []byte(`<svg width="$1" height="$2" role="img"`))
	if i := bytes.Index(b, []byte(">\n")); i >= 0 && title != "" {
		t := "<title>" + html.EscapeString(title) + "</title>"
		b = append(b[:i+2:i+2], append([]byte(t+"\n"), b[i+2:]...)...)
	}
	return bytes.ReplaceAll(b, []byte("font-family:Liberation Sans;"),
		[]byte("font-family:Liberation Sans,Arial,Helvetica,sans-serif;"))
}

// thumbFunc is a legend thumbnail drawn by a function.
type thumbFunc func(c *draw.Canvas)

func (t thumbFunc) Thumbnail(c *draw.Canvas) { t(c) }

// lineThumb is a short line in the style sty.
func lineThumb(sty draw.LineStyle) plot.Thumbnailer {
	return thumbFunc(func(c *draw.Canvas) {
		y := c.Center().Y
		c.StrokeLine2(sty, c.Min.X, y, c.Max.X, y)
	})
}

// boxThumb is a filled box.
func boxThumb(fill, edge draw.LineStyle) plot.Thumbnailer {
	return thumbFunc(func(c *draw.Canvas) {
		c.FillPolygon(fill.Color, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
		if edge.Width > 0 {
			c.StrokeLine2(edge, c.Min.X, c.Max.Y, c.Max.X, c.Max.Y)
		}
	})
}

// dotThumb is a glyph in the middle.
func dotThumb(g draw.GlyphStyle) plot.Thumbnailer {
	return thumbFunc(func(c *draw.Canvas) { c.DrawGlyphNoClip(g, c.Center()) })
}

// label draws s at pt in sty, clipped to nothing (the caller fits it).
func label(c draw.Canvas, sty text.Style, pt vg.Point, s string) {
	if s != "" {
		c.FillText(sty, pt, s)
	}
}
