package svg

import (
	"image/color"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgtrial/pgtrial/internal/report/chart"
)

// Sizes in SVG user units (the document says width="720": 1 unit = 1 px;
// gonum/plot calls them points, the output is rescaled by nothing).
const (
	width      = 720
	height     = 300
	panelExtra = 170 // a chart with a Y2 panel below is this much taller
	margin     = 8
	rowHeight  = 40 // a Forest's row
)

// The fonts: Liberation Sans for measuring (gonum/plot's own, not
// embedded); the SVG names it with sans-serif fallbacks (see fixHeader).
var (
	sans = font.Font{Typeface: "Liberation", Variant: "Sans"}
	bold = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
)

func textStyle(f font.Font, size vg.Length, clr color.Color) text.Style {
	return text.Style{
		Color:   clr,
		Font:    font.From(f, size),
		XAlign:  draw.XLeft,
		YAlign:  draw.YBottom,
		Handler: plot.DefaultTextHandler,
	}
}

var (
	black   = color.Black
	grey    = color.RGBA{R: 0x66, G: 0x66, B: 0x66, A: 0xff}
	light   = color.RGBA{R: 0xdd, G: 0xdd, B: 0xdd, A: 0xff}
	refGrey = color.RGBA{R: 0x44, G: 0x44, B: 0x44, A: 0xff}
)

// palette is Tableau 10: the series' colours, in their order.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0xd6, 0x27, 0x28, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
	{0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0xbc, 0xbd, 0x22, 0xff},
	{0x17, 0xbe, 0xcf, 0xff},
}

func seriesColor(i int) color.RGBA { return palette[i%len(palette)] }

// markerKinds are the marker kinds in legend order, each with its colour.
var markerKinds = []struct {
	kind chart.MarkerKind
	clr  color.RGBA
}{
	{chart.MarkPhase, color.RGBA{0x33, 0x33, 0x33, 0xff}},
	{chart.MarkCheckpoint, color.RGBA{0x1b, 0x9e, 0x77, 0xff}},
	{chart.MarkAutovacuum, color.RGBA{0x75, 0x70, 0xb3, 0xff}},
	{chart.MarkStall, color.RGBA{0xd9, 0x00, 0x00, 0xff}},
	{chart.MarkError, color.RGBA{0xe7, 0x29, 0x8a, 0xff}},
	{chart.MarkConnection, color.RGBA{0xa6, 0x76, 0x1d, 0xff}},
	{chart.MarkChange, color.RGBA{0x8c, 0x56, 0x4b, 0xff}},
	{chart.MarkOther, color.RGBA{0x99, 0x99, 0x99, 0xff}},
}

func markerColor(k chart.MarkerKind) color.RGBA {
	for _, m := range markerKinds {
		if m.kind == k {
			return m.clr
		}
	}
	return markerKinds[len(markerKinds)-1].clr // unknown kinds are "other"
}

// outcomeColor is a Forest row's colour by its verdict's outcome.
func outcomeColor(outcome string) color.RGBA {
	switch outcome {
	case "differs":
		return color.RGBA{0xd5, 0x5e, 0x00, 0xff}
	case "equivalent":
		return color.RGBA{0x00, 0x9e, 0x73, 0xff}
	default:
		return color.RGBA{0x77, 0x77, 0x77, 0xff}
	}
}

// lighter mixes c with white: f = 0 is c, f = 1 is white.
func lighter(c color.RGBA, f float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*f + 0.5) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

func alpha(c color.RGBA, a float64) color.NRGBA {
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: uint8(255*a + 0.5)}
}

// clean makes s safe to hand to the SVG writer, which escapes <, > and &
// (html.EscapeString) but not characters XML forbids: invalid UTF-8 and
// control characters become U+FFFD, line breaks and tabs a space.
func clean(s string) string {
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, n := utf8.DecodeRuneInString(s[i:])
		w = n
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteRune('\uFFFD')
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0xfffe || r == 0xffff:
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// widthSlack: text is measured in Liberation Sans (Arial's metrics) but a
// viewer without it draws a fallback such as DejaVu Sans, up to 15 %
// wider; layout decisions measure with this margin.
const widthSlack = 1.15

// textWidth is s's width in sty, with the slack.
func textWidth(sty text.Style, s string) vg.Length { return sty.Width(s) * widthSlack }

// fit shortens s with an ellipsis until it is at most w wide in sty.
func fit(sty text.Style, s string, w vg.Length) string {
	if textWidth(sty, s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 {
		r = r[:len(r)-1]
		t := strings.TrimRight(string(r), " ") + "…"
		if textWidth(sty, t) <= w {
			return t
		}
	}
	return ""
}

// axisLabel is "label (unit)", or either alone.
func axisLabel(a chart.Axis, def string) string {
	l, u := clean(a.Label), clean(a.Unit)
	switch {
	case l != "" && u != "":
		return l + " (" + u + ")"
	case l != "":
		return l
	case u != "":
		return u
	}
	return def
}

// styleAxes sets the plot's fonts and tick styles.
func styleAxes(p *plot.Plot) {
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Label.TextStyle.Color = refGrey
		a.Tick.Label.Font = font.From(sans, 10)
		a.Tick.Label.Color = refGrey
		a.Color = grey
		a.Tick.Color = grey
		a.Padding = 2
	}
	p.X.Label.Padding = 2
	p.Y.Label.Padding = 4
}

// finite reports whether x is a number (not NaN, not ±Inf).
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// fmtTick writes a tick's value briefly: 1500 → "1500", 25000 → "25k",
// 3e6 → "3M", 0.25 → "0.25".
func fmtTick(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e12:
		return strconv.FormatFloat(v/1e12, 'g', 4, 64) + "T"
	case a >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', 4, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 4, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 4, 64) + "k"
	case a < 1e-12:
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// linTicks are gonum's default ticks, labelled by fmtTick.
type linTicks struct{}

func (linTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = fmtTick(ts[i].Value)
		}
	}
	return ts
}

// logTicks label a log axis: within a decade and a half, linear ticks (a
// log axis from 0.8 to 1.3 has no power of ten inside); over few decades
// 1, 2, 5 × 10^k; else the powers of ten with unlabelled minor ticks.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	decades := math.Log10(hi / lo)
	if decades < 1.2 {
		return linTicks{}.Ticks(lo, hi)
	}
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		p := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (decades <= 2.5 && (m == 2 || m == 5)) {
				t.Label = fmtTick(v)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// quantileTicks label a Spectrum's X axis, drawn at x = log10(1/(1−q)):
// 0 → "0%", 1 → "90%", 2 → "99%", 3 → "99.9%", …; 50 % and 75 % minor.
type quantileTicks struct{}

func (quantileTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, q := range []float64{0.5, 0.75} {
		if x := -math.Log10(1 - q); x >= lo && x <= hi {
			ts = append(ts, plot.Tick{Value: x})
		}
	}
	for k := math.Ceil(lo); k <= hi+1e-9 && k <= 15; k++ {
		ts = append(ts, plot.Tick{Value: k, Label: quantileLabel(int(k))})
	}
	return ts
}

// quantileLabel is the label of x = k on a Spectrum's axis: q = 1 − 10^−k.
func quantileLabel(k int) string {
	switch {
	case k <= 0:
		return "0%"
	case k == 1:
		return "90%"
	case k == 2:
		return "99%"
	}
	return "99." + strings.Repeat("9", k-2) + "%"
}
