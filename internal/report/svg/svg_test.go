package svg

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/report/chart"
)

const xss = `</script><img src=x onerror=alert(1)>`

func ptr(v float64) *float64 { return &v }

// timeChart is n seconds of tps, p99 (a NaN gap), lag and waits (two
// stacked series), with markers, a span and an SLO line.
func timeChart(n int) *chart.Chart {
	x := make(chart.Values, n)
	tps, p99, lag, lock, io := make(chart.Values, n), make(chart.Values, n), make(chart.Values, n), make(chart.Values, n), make(chart.Values, n)
	for i := range n {
		t := float64(i)
		x[i] = t
		tps[i] = 1000 + 200*math.Sin(t/40)
		p99[i] = 8 + 3*math.Cos(t/25)
		lag[i] = 2 + math.Sin(t/7)
		lock[i] = 1.5 + math.Sin(t/30)
		io[i] = 0.8 + 0.5*math.Cos(t/50)
	}
	for i := n / 3; i < n/3+n/20; i++ {
		p99[i] = math.NaN()
	}
	return &chart.Chart{
		ID: "timeline", Title: "Throughput and latency", Kind: chart.Time,
		X: chart.Axis{Unit: "s"}, Y: chart.Axis{Label: "latency", Unit: "ms"},
		Y2: &chart.Axis{Label: "throughput", Unit: "tx/s"},
		Series: []chart.Series{
			{Name: "tps", X: x, Y: tps, Right: true},
			{Name: "response p99", X: x, Y: p99},
			{Name: "lag p99", X: x, Y: lag, Dash: true},
			{Name: "Lock", X: x, Y: lock, Stack: "waits"},
			{Name: "IO", X: x, Y: io, Stack: "waits"},
		},
		Markers: []chart.Marker{
			{X: float64(n) * 0.1, Label: "measured window starts", Kind: chart.MarkPhase},
			{X: float64(n) * 0.5, Label: "checkpoint (timed) started", Kind: chart.MarkCheckpoint},
			{X: float64(n) * 0.52, Label: "lock on pgbench_branches 5 s", Kind: chart.MarkStall},
			{X: float64(n) * 0.8, Label: "first serialization failure", Kind: chart.MarkError},
		},
		Spans: []chart.Span{{From: float64(n) * 0.5, To: float64(n) * 0.6, Label: "checkpoint", Kind: chart.MarkCheckpoint}},
		Refs:  []chart.Ref{{Value: 12, Label: "SLO p99 12 ms"}},
		Note:  "intervals of 1 s; markers from the server's log",
	}
}

func spectrumChart() *chart.Chart {
	var q, resp, serv chart.Values
	for k := 0; k <= 500; k++ {
		// q from 0 to 1 − 10^−5 evenly on the log axis
		v := 1 - math.Pow(10, -5*float64(k)/500)
		q = append(q, v)
		x := -math.Log10(1 - v)
		serv = append(serv, 2*math.Pow(2, x))
		resp = append(resp, 2*math.Pow(2, x)*(1+math.Pow(x, 3)))
	}
	return &chart.Chart{
		ID: "spectrum", Title: "Latency by percentile", Kind: chart.Spectrum,
		Y: chart.Axis{Label: "latency", Unit: "ms", Log: true},
		Series: []chart.Series{
			{Name: "response", X: q, Y: resp},
			{Name: "service", X: q, Y: serv},
		},
		Refs: []chart.Ref{{Value: 50, Label: "SLO 50 ms"}},
	}
}

func forestChart() *chart.Chart {
	nan := math.NaN()
	return &chart.Chart{
		ID: "forest", Title: "B against A", Kind: chart.Forest,
		X:    chart.Axis{Label: "ratio B/A"},
		Refs: []chart.Ref{{Value: 1, Label: "no change"}},
		Rows: []chart.Row{
			{Label: "tps", Estimate: 1.12, Lo: 1.08, Hi: 1.16, Outcome: "differs", Primary: true,
				Verdict: "B is faster: tps +12% (95% CI +8% to +16%), 10 runs each"},
			{Label: "response p99", Estimate: 0.97, Lo: 0.9, Hi: 1.04, Outcome: "inconclusive",
				Verdict: "not shown to differ nor to be equivalent within ±5%; more runs would tell"},
			{Label: "response p50", Estimate: 1.01, Lo: 0.99, Hi: 1.02, Outcome: "equivalent",
				Verdict: "equivalent within ±5%"},
			{Label: "WAL bytes per transaction", Estimate: 0.8, Lo: nan, Hi: nan, Outcome: "inconclusive",
				Verdict: "one run each: no interval"},
		},
	}
}

func dotsChart() *chart.Chart {
	return &chart.Chart{
		ID: "dots", Title: "tps per run", Kind: chart.Dots,
		Y: chart.Axis{Label: "tps", Unit: "tx/s"},
		Groups: []chart.DotGroup{
			{Label: "A (shared_buffers=128MB)", Values: chart.Values{1010, 1032, 998, 1050, 1021}},
			{Label: "B (shared_buffers=4GB)", Values: chart.Values{1130, 1122, math.NaN(), 1150, 1141, 1119}},
			{Label: "C", Values: chart.Values{1090}},
		},
		Refs: []chart.Ref{{Value: 1100, Label: "target"}},
	}
}

func xyChart() *chart.Chart {
	return &chart.Chart{
		ID: "capacity", Title: "Capacity search: p99 against rate", Kind: chart.XY,
		X: chart.Axis{Label: "rate", Unit: "tx/s"}, Y: chart.Axis{Label: "p99", Unit: "ms"},
		Series: []chart.Series{
			{Name: "probes", X: chart.Values{500, 1000, 2000, 1500, 1750, 1625}, Y: chart.Values{4, 5, 80, 9, 30, 14}, Points: true},
			{Name: "lower bound", X: chart.Values{500, 2000}, Y: chart.Values{3, 3}, Dash: true},
		},
		Spans: []chart.Span{{From: 1625, To: 1750, Label: "bracket", Kind: chart.MarkOther}},
		Refs:  []chart.Ref{{Value: 20, Label: "SLO p99 20 ms"}},
	}
}

// render renders c and checks the result is one well-formed SVG
// document; it returns the SVG and its element counts by name.
func renderOK(t *testing.T, c *chart.Chart) (string, map[string]int) {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, c); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return b.String(), parseXML(t, b.Bytes())
}

func parseXML(t *testing.T, b []byte) map[string]int {
	t.Helper()
	counts := map[string]int{}
	d := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for range 1_000_000 {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, head(b))
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			counts[se.Name.Local]++
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return counts
}

func head(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

func TestEveryKindRenders(t *testing.T) {
	for _, c := range []*chart.Chart{timeChart(600), spectrumChart(), forestChart(), dotsChart(), xyChart()} {
		t.Run(string(c.Kind), func(t *testing.T) {
			s, n := renderOK(t, c)
			if n["path"] < 5 || n["text"] < 3 {
				t.Errorf("drawn elements: %v, want paths and texts", n)
			}
			if !strings.Contains(s, c.Title) {
				t.Errorf("title %q missing", c.Title)
			}
			if strings.Contains(s, "<?xml") || strings.Contains(s, "@font-face") || strings.Contains(s, "base64") {
				t.Errorf("XML declaration or embedded font in the SVG")
			}
			if !strings.Contains(s, `width="720"`) {
				t.Errorf("width is not 720 px: %s", head([]byte(s)))
			}
			if !strings.Contains(s, "sans-serif") {
				t.Errorf("no sans-serif font family")
			}
		})
	}
}

// TestTimeChartParts: the series' names, the marker kinds in the legend,
// the labels of markers, spans and refs, the axis labels with units.
func TestTimeChartParts(t *testing.T) {
	s, _ := renderOK(t, timeChart(600))
	for _, want := range []string{
		"tps", "response p99", "lag p99", "Lock", "IO",
		">phase<", ">checkpoint<", ">stall<", ">error<",
		"lock on pgbench_branches 5 s", "SLO p99 12 ms",
		"latency (ms)", "throughput (tx/s)", "time (s)",
		"intervals of 1 s",
		"stroke-dasharray:5,3", // the dashed lag
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q", want)
		}
	}
}

// paths returns the d attributes of the SVG's paths stroked or filled in
// colour (a "#RRGGBB" of the palette).
func pathsIn(s, rgb string) []string {
	var out []string
	for _, el := range strings.Split(s, "<path ")[1:] {
		el = el[:strings.Index(el, ">")]
		if strings.Contains(el, rgb) {
			i := strings.Index(el, `d="`)
			d := el[i+3:]
			out = append(out, d[:strings.Index(d, `"`)])
		}
	}
	return out
}

// TestNaNIsAGap: a NaN splits a line into two paths (not one drawn
// through zero).
func TestNaNIsAGap(t *testing.T) {
	nan := math.NaN()
	c := &chart.Chart{Kind: chart.Time, Series: []chart.Series{
		{Name: "a", X: chart.Values{0, 1, 2, 3, 4, 5}, Y: chart.Values{5, 6, nan, nan, 6, 5}},
	}}
	s, _ := renderOK(t, c)
	ps := pathsIn(s, "stroke:#1F77B4")[1:] // the first is the legend's
	if len(ps) != 2 {
		t.Fatalf("%d paths in the series' colour, want 2 (the gap): %q", len(ps), ps)
	}
	for _, d := range ps {
		if n := strings.Count(d, "L"); n != 1 {
			t.Errorf("path %q has %d segments, want 1", d, n)
		}
	}
}

// TestMismatchedAndBadValues: X longer than Y, Inf, all NaN: no panic, no
// error, the shorter length drawn.
func TestMismatchedAndBadValues(t *testing.T) {
	inf := math.Inf(1)
	c := &chart.Chart{Kind: chart.XY, Y: chart.Axis{Log: true}, X: chart.Axis{Log: true}, Series: []chart.Series{
		{Name: "short", X: chart.Values{1, 2, 3, 4, 5}, Y: chart.Values{1, 2}},
		{Name: "bad", X: chart.Values{1, inf, 3, -1}, Y: chart.Values{0, 3, inf, 4}},
		{Name: "none", X: chart.Values{}, Y: chart.Values{math.NaN()}},
		{Name: "pts", X: chart.Values{1, 2}, Y: chart.Values{math.NaN(), -3}, Points: true},
	}, Markers: []chart.Marker{{X: math.NaN()}}, Spans: []chart.Span{{From: inf, To: 1}}, Refs: []chart.Ref{{Value: -1}}}
	s, _ := renderOK(t, c)
	if strings.Contains(s, "no data") {
		t.Errorf("chart with two points says no data")
	}
	for _, k := range []chart.Kind{chart.Time, chart.XY, chart.Spectrum, chart.Forest, chart.Dots, "bogus"} {
		c := &chart.Chart{Kind: k, Y2: &chart.Axis{Log: true}, Series: []chart.Series{
			{X: chart.Values{inf, 0.5}, Y: chart.Values{inf}, Right: true, Stack: "s"},
		}, Rows: []chart.Row{{Estimate: -1, Lo: inf, Hi: math.NaN()}}, Groups: []chart.DotGroup{{Values: chart.Values{inf}}}}
		renderOK(t, c)
	}
}

// TestLongLegend: 40 series wrap the legend to 3 lines and say how many
// are left out; the plot keeps its room.
func TestLongLegend(t *testing.T) {
	c := &chart.Chart{Kind: chart.Time}
	for i := range 40 {
		c.Series = append(c.Series, chart.Series{Name: fmt.Sprintf("wait event number %d", i), X: chart.Values{0, 1}, Y: chart.Values{1, float64(i)}, Stack: "w"})
	}
	s, _ := renderOK(t, c)
	if !strings.Contains(s, " more<") {
		t.Errorf("no \"+N more\" in a legend of 40")
	}
	if strings.Contains(s, "wait event number 39") {
		t.Errorf("all 40 entries in the legend")
	}
}

// TestStackedArea: the second layer of a stack lies on the first: its top
// is the sum, and both are filled.
func TestStackedArea(t *testing.T) {
	c := &chart.Chart{Kind: chart.Time, Y: chart.Axis{Min: ptr(0), Max: ptr(10)}, Series: []chart.Series{
		{Name: "a", X: chart.Values{0, 1, 2}, Y: chart.Values{2, 2, 2}, Stack: "w"},
		{Name: "b", X: chart.Values{0, 1, 2}, Y: chart.Values{3, 3, 3}, Stack: "w"},
		{Name: "zero", X: chart.Values{0, 2}, Y: chart.Values{0, 0}},
	}}
	s, _ := renderOK(t, c)
	fills := 0
	for _, el := range strings.Split(s, "<path ")[1:] {
		el = el[:strings.Index(el, ">")]
		if strings.Contains(el, "fill:#") && !strings.Contains(el, "fill:#FFFFFF") && !strings.Contains(el, "stroke") {
			fills++
		}
	}
	if fills < 2 {
		t.Errorf("%d filled areas, want 2 (plus legend boxes)", fills)
	}
	// The top lines of a (at 2) and b (at 5 = 2+3) are flat; measured
	// from the line at 0 (drawn Y, before the SVG's flip), b is 5/2 as high.
	y0 := flatY(t, pathsIn(s, "stroke:#2CA02C"))
	ya := flatY(t, pathsIn(s, "stroke:#1F77B4")) - y0
	yb := flatY(t, pathsIn(s, "stroke:#FF7F0E")) - y0
	if !(ya > 0 && yb > ya*2.45 && yb < ya*2.55) {
		t.Errorf("top of b at %v, of a at %v above 0: want b at 5/2 of a (stacked on it)", yb, ya)
	}
}

// flatY is the Y of the last path among ps (the legend's come first); it
// must be flat.
func flatY(t *testing.T, ps []string) float64 {
	t.Helper()
	best := ""
	if len(ps) > 0 {
		best = ps[len(ps)-1]
	}
	var ys []float64
	for _, seg := range strings.FieldsFunc(best, func(r rune) bool { return r == 'M' || r == 'L' }) {
		var x, y float64
		if _, err := fmt.Sscanf(seg, "%g,%g", &x, &y); err == nil {
			ys = append(ys, y)
		}
	}
	if len(ys) < 2 || ys[0] != ys[len(ys)-1] {
		t.Fatalf("path %q is not a flat line", best)
	}
	return ys[0]
}

// TestEscaping: hostile text in every place text goes shows as text.
func TestEscaping(t *testing.T) {
	cs := []*chart.Chart{timeChart(100), forestChart(), dotsChart(), spectrumChart(), {Title: xss, Note: xss}}
	for _, c := range cs {
		c.Title = xss + "\x00\x1b\xff"
		c.Note = xss
		c.X.Label, c.Y.Unit = xss, xss
		for i := range c.Series {
			c.Series[i].Name = xss
		}
		for i := range c.Markers {
			c.Markers[i].Label = xss
		}
		for i := range c.Refs {
			c.Refs[i].Label = xss
		}
		for i := range c.Rows {
			c.Rows[i].Label, c.Rows[i].Verdict = xss, xss+" "+xss
		}
		for i := range c.Groups {
			c.Groups[i].Label = xss
		}
		s, _ := renderOK(t, c)
		if strings.Contains(s, "<img") || strings.Contains(s, "<script") || strings.Contains(s, "</script") {
			t.Errorf("%s: raw markup in the SVG", c.Kind)
		}
		if !strings.Contains(s, "&lt;/script&gt;") {
			t.Errorf("%s: the escaped text is missing", c.Kind)
		}
	}
}

func TestEmptyChart(t *testing.T) {
	for _, c := range []*chart.Chart{
		nil,
		{Title: "nothing", Kind: chart.Time},
		{Kind: chart.Time, Series: []chart.Series{{Name: "a", X: chart.Values{1, 2}, Y: chart.Values{math.NaN(), math.NaN()}}}},
		{Kind: chart.Spectrum, Series: []chart.Series{{Name: "a", X: chart.Values{1, 2}, Y: chart.Values{3, 4}}}},
		{Kind: chart.Forest},
		{Kind: chart.Dots, Groups: []chart.DotGroup{{Label: "a"}}},
	} {
		s, _ := renderOK(t, c)
		if !strings.Contains(s, ">no data<") {
			t.Errorf("%v: no \"no data\"", c)
		}
	}
}

func TestSpectrumTicks(t *testing.T) {
	s, _ := renderOK(t, spectrumChart())
	for _, want := range []string{">0%<", ">90%<", ">99%<", ">99.9%<", ">99.99%<", ">99.999%<", "percentile", "response", "service"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.Contains(s, ">99.9999%<") {
		t.Errorf("a tick beyond the data")
	}
}

func TestForestParts(t *testing.T) {
	s, _ := renderOK(t, forestChart())
	for _, want := range []string{
		"tps", "response p99", "WAL bytes per transaction", "no change", "ratio B/A",
		">differs<", ">equivalent<", ">inconclusive<", "B is faster", "font-weight:bold",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q", want)
		}
	}
	if !strings.Contains(s, `height="270"`) {
		t.Errorf("4 rows: want height 110+4×40 = 270: %s", head([]byte(s)))
	}
}

func TestDeterministic(t *testing.T) {
	for _, mk := range []func() *chart.Chart{func() *chart.Chart { return timeChart(300) }, spectrumChart, forestChart, dotsChart, xyChart} {
		a, _ := renderOK(t, mk())
		b, _ := renderOK(t, mk())
		if a != b {
			t.Errorf("%s: two renderings differ", mk().Kind)
		}
	}
}

// TestSize: an hour at 1 s, 4 series (and a stack) stays small.
func TestSize(t *testing.T) {
	c := timeChart(3600)
	c.Series = c.Series[1:] // 4 series, one panel
	c.Y2 = nil
	s, _ := renderOK(t, c)
	t.Logf("Time chart, 3600 points × 4 series: %d bytes", len(s))
	if len(s) > 500_000 {
		t.Errorf("%d bytes, want under 500 KB", len(s))
	}
}

// TestWriteSamples writes an SVG of every kind to $PGTRIAL_SVG_SAMPLES
// (to look at them); skipped without it.
func TestWriteSamples(t *testing.T) {
	dir := os.Getenv("PGTRIAL_SVG_SAMPLES")
	if dir == "" {
		t.Skip("PGTRIAL_SVG_SAMPLES not set")
	}
	many := forestChart()
	for i := range 8 {
		r := many.Rows[i%len(many.Rows)]
		r.Primary = false
		many.Rows = append(many.Rows, r)
	}
	many.ID = "forest-many"
	empty := &chart.Chart{ID: "empty", Title: "Waits by type", Kind: chart.Time}
	one := timeChart(3600)
	one.ID, one.Y2 = "timeline-one-panel", nil
	hostile := dotsChart()
	hostile.ID, hostile.Title = "hostile", xss
	long := &chart.Chart{ID: "legend-long", Title: "Waits by type", Kind: chart.Time, Y: chart.Axis{Label: "active sessions"}}
	for i := range 40 {
		long.Series = append(long.Series, chart.Series{Name: fmt.Sprintf("wait event %d", i), X: chart.Values{0, 60, 120}, Y: chart.Values{1, float64(i % 5), 2}, Stack: "w"})
	}
	for _, c := range []*chart.Chart{long, timeChart(3600), one, spectrumChart(), forestChart(), many, dotsChart(), xyChart(), empty, hostile} {
		var b bytes.Buffer
		if err := Render(&b, c); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.ID+".svg"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNoTitle: a chart without a title has no <title> and no title line
// (the HTML page writes the title above the image).
func TestNoTitle(t *testing.T) {
	for _, mk := range []func() *chart.Chart{forestChart, dotsChart, xyChart} {
		c := mk()
		withTitle, _ := renderOK(t, c)
		if !strings.Contains(withTitle, "<title>"+c.Title+"</title>") || !strings.Contains(withTitle, "font-size:13px\">"+c.Title+"<") {
			t.Errorf("%s: the title is not drawn", c.ID)
		}
		c.Title = ""
		s, _ := renderOK(t, c)
		if strings.Contains(s, "<title></title>") || strings.Contains(s, "font-size:13px") {
			t.Errorf("%s without a title: an empty title or a title line: %s", c.ID, head([]byte(s)))
		}
	}
}

// TestRenderSize: RenderSize draws at the size asked, with a viewBox so
// the image scales with its element.
func TestRenderSize(t *testing.T) {
	var b bytes.Buffer
	if err := RenderSize(&b, dotsChart(), Size{Width: 420, Height: 260}); err != nil {
		t.Fatal(err)
	}
	parseXML(t, b.Bytes())
	if !strings.HasPrefix(b.String(), `<svg width="420" height="260" role="img" viewBox="0 0 420 260"`) {
		t.Errorf("want a 420 × 260 image with its viewBox: %s", head(b.Bytes()))
	}
	b.Reset()
	if err := RenderSize(&b, dotsChart(), Size{Width: math.NaN(), Height: -1}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), `<svg width="720" height="300"`) {
		t.Errorf("a bad size is the default: %s", head(b.Bytes()))
	}
}

// glyphs counts the filled shapes (points) of colour clr.
func glyphs(s string, clr string) int { return strings.Count(s, `style="fill:`+clr+`" />`) }

// TestXYPointsAtEveryValue: an XY chart (a ramp's levels) has a point at
// every value and lines between them; a series, or a stacked layer, with a
// single value shows as a point.
func TestXYPointsAtEveryValue(t *testing.T) {
	nan := math.NaN()
	c := &chart.Chart{ID: "ramp", Kind: chart.XY, X: chart.Axis{Label: "level"}, Y: chart.Axis{Label: "tps"},
		Series: []chart.Series{
			{Name: "A", X: chart.Values{50, 100, 150}, Y: chart.Values{50, 98, 140}},
			{Name: "B", X: chart.Values{50, 100, 150}, Y: chart.Values{nan, 97, nan}},
		}}
	s, _ := renderOK(t, c)
	if n := glyphs(s, "#1F77B4"); n < 3 {
		t.Errorf("series A: %d points, want 3 (one a value)", n)
	}
	if !strings.Contains(s, "stroke:#1F77B4") {
		t.Errorf("series A: no line between its points")
	}
	if n := glyphs(s, "#FF7F0E"); n < 1 {
		t.Errorf("series B (one value): not drawn")
	}
	st := &chart.Chart{ID: "waits", Kind: chart.XY, X: chart.Axis{Label: "level"}, Y: chart.Axis{Label: "share", Unit: "%"},
		Series: []chart.Series{{Name: "CPU", X: chart.Values{50, 100}, Y: chart.Values{nan, 100}, Stack: "w"}}}
	s, _ = renderOK(t, st)
	if n := glyphs(s, "#1F77B4"); n < 1 {
		t.Errorf("a stacked layer of one value: not drawn")
	}
}

// TestAllZeroFromZero: values all 0 (a share, a count) are drawn on an
// axis from 0, not −1…1; a Dots chart of values ≥ 0 has no axis below 0.
func TestAllZeroFromZero(t *testing.T) {
	zero := &chart.Chart{ID: "fpi", Kind: chart.XY, X: chart.Axis{Label: "level"}, Y: chart.Axis{Label: "FPI share", Unit: "%"},
		Series: []chart.Series{{Name: "FPI", X: chart.Values{1, 2, 3}, Y: chart.Values{0, 0, 0}}}}
	dots := &chart.Chart{ID: "failed", Kind: chart.Dots, Y: chart.Axis{Label: "failed", Unit: "%"},
		Groups: []chart.DotGroup{{Label: "A", Values: chart.Values{0, 0}}, {Label: "B", Values: chart.Values{0}}}}
	low := &chart.Chart{ID: "low", Kind: chart.Dots, Y: chart.Axis{Label: "errors"},
		Groups: []chart.DotGroup{{Label: "A", Values: chart.Values{0, 10}}, {Label: "B", Values: chart.Values{2}}}}
	for _, c := range []*chart.Chart{zero, dots, low} {
		s, _ := renderOK(t, c)
		if strings.Contains(s, ">-") || strings.Contains(s, ">−") {
			t.Errorf("%s: a tick below 0", c.ID)
		}
		if !strings.Contains(s, ">0<") {
			t.Errorf("%s: the axis does not start at 0", c.ID)
		}
	}
}

// TestForestRightColumn: the right column is the ratio with its interval
// and the outcome; the verdict in words is the row's tooltip, not text on
// the image; the reference lines are named in the legend.
func TestForestRightColumn(t *testing.T) {
	c := forestChart()
	c.Refs = append(c.Refs, chart.Ref{Value: 0.95, Label: "equivalence margin −5 %"}, chart.Ref{Value: 1.05, Label: "equivalence margin +5 %"})
	s, _ := renderOK(t, c)
	for _, want := range []string{
		">ratio 1.12 [1.08, 1.16]<", ">ratio 0.80, no interval<", ">differs<", ">inconclusive<",
		"<title>tps: B is faster: tps +12% (95% CI +8% to +16%), 10 runs each</title>",
		">no change (1.00)<", ">equivalence margin −5 % (0.95)<", ">equivalence margin +5 % (1.05)<",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.Contains(s, ">not shown to differ") || strings.Contains(s, ">B is faster") {
		t.Errorf("the verdict in words is drawn as text")
	}
	hostile := forestChart()
	hostile.Rows[0].Verdict = xss
	s, _ = renderOK(t, hostile)
	if strings.Contains(s, "<img") || strings.Contains(s, "</script>") {
		t.Errorf("a verdict's tooltip is not escaped")
	}
}

// Series with the same Tone are drawn in one colour, whatever their
// position; without one each takes its position's.
func TestTone(t *testing.T) {
	c := &chart.Chart{ID: "t", Kind: chart.XY, Series: []chart.Series{
		{Name: "a", X: chart.Values{1, 2}, Y: chart.Values{1, 2}, Tone: 3},
		{Name: "b", X: chart.Values{1, 2}, Y: chart.Values{2, 3}, Tone: 3},
		{Name: "c", X: chart.Values{1, 2}, Y: chart.Values{3, 4}},
	}}
	if toneOf(c, 0) != 2 || toneOf(c, 1) != 2 || toneOf(c, 2) != 2 || toneOf(c, 5) != 5 {
		t.Errorf("tones %d %d %d", toneOf(c, 0), toneOf(c, 1), toneOf(c, 2))
	}
	c.Series[2].Tone = 1
	if toneOf(c, 2) != 0 {
		t.Errorf("tone 1 is palette 0, got %d", toneOf(c, 2))
	}
}
