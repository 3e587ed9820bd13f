package report

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/report/chart"
	"github.com/pgtrial/pgtrial/internal/results"
)

func renderHTML(t testing.TB, d *Doc) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, d); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// scriptBodies are the bodies of the page's executable inline scripts (the
// <script> elements without a type).
var execScript = regexp.MustCompile(`(?s)<script>(.*?)</script>`)
var jsonScript = regexp.MustCompile(`(?s)<script type="application/json" id="data-([a-z0-9-]+)">(.*?)</script>`)

func xssDoc() *Doc {
	d := &Doc{Title: "run " + xss}
	d.Add(&Lines{Title: "header " + xss, Lines: []string{"query: " + xss, "javascript:alert(1)"}},
		&Table{Title: "statements", Head: []string{"query", "calls", "mean"}, Sortable: true, Rows: [][]Cell{
			{{Text: xss, Link: "javascript:alert(1)"}, {Text: "12"}, {Text: "1.5 ms"}},
			{{Text: "run a", Link: "runs/a/report.html"}, {Text: "3,400"}, Absent("not installed " + xss)},
			{{Text: "abs", Link: "https://evil.example/x"}, {Text: "7"}, {Text: "2 ms"}},
			{{Text: "proto", Link: "//evil.example/x"}, {Text: "8"}, {Text: "3 ms"}},
			{{Text: "spaced", Link: " JavaScript:alert(1)"}, {Text: "9"}, {Text: "4 ms"}},
			{{Text: "data", Link: "data:text/html,<script>alert(1)</script>"}, {Text: "10"}, {Text: "5 ms"}},
		}},
		&Checklist{Title: "checklist", Items: []results.Check{
			{Name: "warm-up " + xss, Status: "pass", Value: 12.5, Message: "fine " + xss},
			{Name: "errors", Status: "warn", Value: "3 " + xss, Message: "some"},
			{Name: "dropped", Status: "fail", Value: 1234567.0, Message: "many"},
		}},
		&Notes{Prefix: "warning: ", Lines: []string{xss}},
		&Figure{Title: "timeline " + xss, Notes: []string{xss}, Charts: []*chart.Chart{
			{ID: "tps", Title: "tps " + xss, Kind: chart.Time, Group: "g", Y: chart.Axis{Unit: "tx/s " + xss},
				Series:  []chart.Series{{Name: xss, X: chart.Values{0, 1, 2}, Y: chart.Values{1, math.NaN(), 3}}},
				Markers: []chart.Marker{{X: 1, Label: xss, Kind: chart.MarkStall}},
				Spans:   []chart.Span{{From: 0.5, To: 1.5, Label: xss, Kind: chart.MarkStall}},
				Refs:    []chart.Ref{{Value: 2, Label: xss}}},
			{ID: "p99", Title: "p99", Kind: chart.Time, Group: "g",
				Series:  []chart.Series{{Name: "p99", X: chart.Values{0, 1, 2}, Y: chart.Values{4, 5, 6}}},
				Markers: []chart.Marker{{X: 1, Label: xss, Kind: chart.MarkStall}}},
			{ID: "forest", Title: "ratio " + xss, Kind: chart.Forest,
				Rows: []chart.Row{{Label: xss, Estimate: 1.1, Lo: math.NaN(), Hi: math.NaN(), Outcome: "inconclusive", Verdict: xss}}},
		}})
	return d
}

func TestHTMLEscapesEverything(t *testing.T) {
	page := renderHTML(t, xssDoc())
	if strings.Contains(page, "<img") {
		t.Errorf("the page has a raw <img:\n%s", around(page, "<img"))
	}
	if strings.Contains(page, "</script><img") {
		t.Error("the page has a raw </script><img")
	}
	if strings.Contains(strings.ToLower(page), `href="javascript`) || strings.Contains(strings.ToLower(page), `href=" javascript`) {
		t.Error("a javascript: link survived")
	}
	for _, bad := range []string{`href="https://evil`, `href="//evil`, `href="data:`, "ZgotmplZ"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page has %q", bad)
		}
	}
	if !strings.Contains(page, `<a href="runs/a/report.html">run a</a>`) {
		t.Error("the relative link is not a link")
	}
	// The XSS text shows as text.
	if !strings.Contains(page, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;") {
		t.Error("the XSS text is not shown escaped")
	}
	// Exactly the two executable scripts (uPlot and the page's), and the
	// data scripts are JSON with < and > escaped.
	if n := len(execScript.FindAllString(page, -1)); n != 2 {
		t.Errorf("%d executable scripts, want 2", n)
	}
	if n := strings.Count(page, "<script"); n != 2+3 {
		t.Errorf("%d script elements, want 5", n)
	}
	for _, m := range jsonScript.FindAllStringSubmatch(page, -1) {
		if strings.ContainsAny(m[2], "<>") {
			t.Errorf("data-%s holds a raw < or >", m[1])
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(m[2]), &c); err != nil {
			t.Errorf("data-%s: %v", m[1], err)
		}
	}
}

func around(s, sub string) string {
	i := strings.Index(s, sub)
	return s[max(0, i-200):min(len(s), i+200)]
}

func TestHTMLSafeLink(t *testing.T) {
	for link, want := range map[string]string{
		"runs/a/report.html":    "runs/a/report.html",
		"../b/report.html":      "../b/report.html",
		"a b/report.html":       "a b/report.html",
		"javascript:alert(1)":   "",
		"JaVaScRiPt:alert(1)":   "",
		" javascript:alert(1)":  "",
		"java\tscript:alert(1)": "",
		"https://x.example/":    "",
		"http:x":                "",
		"//x.example/":          "",
		`\\x.example\a`:         "",
		"data:text/html,x":      "",
		"/etc/passwd":           "/etc/passwd", // a path on this machine, no host
	} {
		if got := safeLink(link); got != want {
			t.Errorf("safeLink(%q) = %q, want %q", link, got, want)
		}
	}
}

func TestHTMLContentSecurityPolicy(t *testing.T) {
	page := renderHTML(t, xssDoc())
	var hashes []string
	for _, m := range execScript.FindAllStringSubmatch(page, -1) {
		sum := sha256.Sum256([]byte(m[1]))
		hashes = append(hashes, "'sha256-"+b64(sum[:])+"'")
	}
	want := `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src ` +
		strings.Join(hashes, " ") + `; style-src 'unsafe-inline'; img-src data:">`
	if !strings.Contains(page, want) {
		t.Errorf("the page lacks the CSP\n%s", want)
	}
	if i, j := strings.Index(page, "Content-Security-Policy"), strings.Index(page, "<script"); i < 0 || i > j {
		t.Error("the CSP is not before the first script")
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// The page names no URL: nothing in it could be fetched (the CSP forbids
// it anyway). Only uPlot's own banner comment holds its home page.
func TestHTMLNoURL(t *testing.T) {
	page := renderHTML(t, htmlSampleDoc())
	js, err := assets.ReadFile("assets/uplot/uPlot.iife.min.js")
	if err != nil {
		t.Fatal(err)
	}
	rest := strings.Replace(page, string(js), "", 1)
	if rest == page {
		t.Fatal("uPlot's code is not in the page verbatim")
	}
	for _, u := range []string{"http://", "https://"} {
		if strings.Contains(rest, u) {
			t.Errorf("the page (uPlot aside) contains %q:\n%s", u, around(rest, u))
		}
	}
	// uPlot's own URLs: its banner only.
	urls := regexp.MustCompile(`https?://[^\s"'()*]+`).FindAllString(string(js), -1)
	for _, u := range urls {
		if u != "https://github.com/leeoniya/uPlot" {
			t.Errorf("uPlot contains the URL %q", u)
		}
	}
	for _, a := range []string{"assets/uplot/uPlot.iife.min.js", "assets/report.js"} {
		b, _ := assets.ReadFile(a)
		if bytes.Contains(bytes.ToLower(b), []byte("</script")) || bytes.Contains(b, []byte("<!--")) {
			t.Errorf("%s contains </script or <!--, which would end or break its element", a)
		}
	}
}

// An edited vendored file fails: the embedded files' sha256 are the ones
// scripts/vendor-uplot.sh wrote into VERSION.
func TestHTMLVendoredUPlot(t *testing.T) {
	v, err := assets.ReadFile("assets/uplot/VERSION")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(v))
	files := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "uplot":
			if f[1] != "1.6.32" {
				t.Errorf("uplot version %s, want 1.6.32", f[1])
			}
		case len(f) == 3 && f[0] == "sha256":
			b, err := assets.ReadFile("assets/uplot/" + f[2])
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			if got := hex.EncodeToString(sum[:]); got != f[1] {
				t.Errorf("%s: sha256 %s, VERSION says %s", f[2], got, f[1])
			}
			files++
		}
	}
	if files != 3 {
		t.Errorf("VERSION lists %d files, want 3", files)
	}
}

func TestHTMLStructure(t *testing.T) {
	d := xssDoc()
	page := renderHTML(t, d)
	for _, b := range d.Blocks {
		f, ok := b.(*Figure)
		if !ok {
			continue
		}
		for _, c := range f.Charts {
			if !strings.Contains(page, `<figure class="chart" id="chart-`+c.ID+`" data-kind="`+string(c.Kind)+`"`) {
				t.Errorf("no figure for chart %s", c.ID)
			}
			if !strings.Contains(page, `<script type="application/json" id="data-`+c.ID+`">`) {
				t.Errorf("no data script for chart %s", c.ID)
			}
		}
	}
	if !strings.Contains(page, `id="chart-forest" data-kind="forest" data-drawn="svg"`) || !strings.Contains(page, "<svg") {
		t.Error("the forest is not inline SVG")
	}
	if !strings.Contains(page, `<table class="sortable">`) {
		t.Error("no sortable table")
	}
	if !strings.Contains(page, `<table class="checklist">`) {
		t.Error("no checklist table")
	}
	for _, st := range []string{"pass", "warn", "fail"} {
		if !strings.Contains(page, `<tr data-status="`+st+`">`) {
			t.Errorf("no checklist row of status %s", st)
		}
	}
	if !strings.Contains(page, `<td class="num">12.5</td>`) || !strings.Contains(page, `<td class="num">1234567</td>`) {
		t.Error("the checklist does not show the values")
	}
	// The stall marker is on two linked panels: listed once.
	if n := strings.Count(page, `<li data-kind="stall">`); n != 1 {
		t.Errorf("the stall marker is listed %d times, want 1", n)
	}
	if !strings.Contains(page, `onerror=alert(1)&gt; (at 1 s)</li>`) {
		t.Error("the marker's place is not shown")
	}
	// Numeric columns are right-aligned; text ones not.
	if !strings.Contains(page, `<th class="num">calls</th>`) || strings.Contains(page, `<th class="num">query</th>`) {
		t.Error("numeric columns are not the right ones")
	}
	if !strings.Contains(page, `<html lang="en" data-ready="0">`) {
		t.Error("no data-ready attribute to set")
	}
}

// NaN where chart.Values do not carry it (markers, forest rows, axis
// ranges) is null, not an encoding error.
func TestHTMLNaNOutsideValues(t *testing.T) {
	nan := math.NaN()
	c := &chart.Chart{ID: "x", Kind: chart.XY, X: chart.Axis{Min: &nan}, Y2: &chart.Axis{Max: &nan},
		Series:  []chart.Series{{Name: "s", X: chart.Values{1}, Y: chart.Values{nan}}},
		Markers: []chart.Marker{{X: nan, Label: "m"}}, Spans: []chart.Span{{From: math.Inf(1), To: nan}},
		Refs: []chart.Ref{{Value: nan}}, Rows: []chart.Row{{Estimate: nan, Lo: nan, Hi: nan}}}
	page := renderHTML(t, (&Doc{}).Add(&Figure{Charts: []*chart.Chart{c}}))
	m := jsonScript.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data script")
	}
	var got struct {
		Markers []struct{ X *float64 }
		Rows    []struct{ Estimate, Lo *float64 }
	}
	if err := json.Unmarshal([]byte(m[2]), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Markers) != 1 || got.Markers[0].X != nil || len(got.Rows) != 1 || got.Rows[0].Lo != nil {
		t.Errorf("NaN is not null: %s", m[2])
	}
	if strings.Contains(page, `<ul class="markers">`) {
		t.Error("a marker at NaN is listed")
	}
}

// hourDoc is the run report's timeline of an hour at 1 s: panels Time
// charts of one group, each with series series of 3600 points.
func hourDoc(panels, series, points int) *Doc {
	f := &Figure{Title: "timeline"}
	for p := range panels {
		c := &chart.Chart{ID: "panel-" + string(rune('a'+p)), Title: "panel", Kind: chart.Time, Group: "timeline",
			X: chart.Axis{Unit: "s"}, Y: chart.Axis{Label: "value", Unit: "ms"}}
		for s := range series {
			x := make(chart.Values, points)
			y := make(chart.Values, points)
			for i := range x {
				x[i] = float64(i)
				y[i] = 1000 * (1 + 0.3*math.Sin(float64(i)/97+float64(s))) * (1 + float64(p)) / 3.7
			}
			c.Series = append(c.Series, chart.Series{Name: "series", X: x, Y: y})
		}
		c.Markers = []chart.Marker{{X: 600, Label: "checkpoint", Kind: chart.MarkCheckpoint}}
		f.Charts = append(f.Charts, c)
	}
	return (&Doc{Title: "an hour"}).Add(f)
}

// BenchmarkWriteHTMLHour: a 5-panel timeline of an hour at 1 s with 6
// series a panel (the limit for a whole report.html is 3 MB and 3 s).
func BenchmarkWriteHTMLHour(b *testing.B) {
	d := hourDoc(5, 6, 3600)
	var n int
	for b.Loop() {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, d); err != nil {
			b.Fatal(err)
		}
		n = buf.Len()
	}
	b.ReportMetric(float64(n), "bytes")
}

// htmlSampleDoc has one of everything the page draws: a 5-panel linked
// timeline with markers, spans, a stack, a right axis, points and a dashed
// line, a spectrum, an XY chart, a forest and dots, tables and a checklist.
func htmlSampleDoc() *Doc {
	const n = 600
	xs := make(chart.Values, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	wave := func(base, amp, ph float64, gap bool) chart.Values {
		y := make(chart.Values, n)
		for i := range y {
			y[i] = base + amp*math.Sin(float64(i)/37+ph) + amp/3*math.Sin(float64(i)/5+ph)
			if i > 300 && i < 320 {
				y[i] *= 3 // the stall
			}
			if gap && i > 450 && i < 470 {
				y[i] = math.NaN()
			}
		}
		return y
	}
	markers := []chart.Marker{
		{X: 60, Label: "warm-up ended", Kind: chart.MarkPhase},
		{X: 180, Label: "checkpoint (timed) started", Kind: chart.MarkCheckpoint},
		{X: 300, Label: "lock on pgbench_branches 20 s " + xss, Kind: chart.MarkStall},
		{X: 410, Label: "autovacuum of pgbench_accounts", Kind: chart.MarkAutovacuum},
		{X: 455, Label: "first serialization failure", Kind: chart.MarkError},
	}
	spans := []chart.Span{{From: 180, To: 260, Label: "checkpoint", Kind: chart.MarkCheckpoint}, {From: 300, To: 320, Label: "stall", Kind: chart.MarkStall}}
	slo := 40.0
	panel := func(id, title string, y chart.Axis, series ...chart.Series) *chart.Chart {
		return &chart.Chart{ID: id, Title: title, Kind: chart.Time, Group: "timeline", X: chart.Axis{Label: "time", Unit: "s"}, Y: y,
			Series: series, Markers: markers, Spans: spans}
	}
	tps := panel("tps", "throughput", chart.Axis{Label: "tps", Unit: "tx/s"}, chart.Series{Name: "tps", X: xs, Y: wave(1200, 150, 0, true)})
	lat := panel("latency", "response", chart.Axis{Label: "response", Unit: "ms"},
		chart.Series{Name: "p50", X: xs, Y: wave(8, 2, 1, false)}, chart.Series{Name: "p99", X: xs, Y: wave(25, 6, 2, false)},
		chart.Series{Name: "lag p99", X: xs, Y: wave(3, 1, 3, false), Dash: true})
	lat.Refs = []chart.Ref{{Value: slo, Label: "SLO 40 ms"}}
	waits := panel("waits", "waits by type", chart.Axis{Label: "active sessions", Unit: "sessions"},
		chart.Series{Name: "CPU", X: xs, Y: wave(4, 1, 0, false), Stack: "w"}, chart.Series{Name: "Lock", X: xs, Y: wave(1, .5, 1, false), Stack: "w"},
		chart.Series{Name: "IO", X: xs, Y: wave(2, .8, 2, false), Stack: "w"})
	wal := panel("wal", "WAL per transaction and FPI share", chart.Axis{Label: "WAL", Unit: "B/tx"},
		chart.Series{Name: "WAL", X: xs, Y: wave(900, 200, 0, false)}, chart.Series{Name: "FPI share", X: xs, Y: wave(30, 10, 1, false), Right: true})
	wal.Y2 = &chart.Axis{Label: "full-page images of WAL records", Unit: "%"}
	cpu := panel("cpu", "OS CPU", chart.Axis{Label: "CPU", Unit: "%"},
		chart.Series{Name: "us", X: xs, Y: wave(40, 5, 0, false), Stack: "cpu"}, chart.Series{Name: "sy", X: xs, Y: wave(10, 2, 1, false), Stack: "cpu"},
		chart.Series{Name: "wa", X: xs, Y: wave(5, 2, 2, false), Stack: "cpu"}, chart.Series{Name: "st", X: xs, Y: wave(1, .5, 3, false), Stack: "cpu"})

	var qs, resp, serv chart.Values
	for i := 0; i <= 400; i++ {
		q := 1 - math.Pow(10, -float64(i)/100)
		qs = append(qs, q)
		resp = append(resp, 5+20*float64(i)/100+math.Pow(float64(i)/100, 3)*8)
		serv = append(serv, 5+10*float64(i)/100)
	}
	spec := &chart.Chart{ID: "spectrum", Title: "latency spectrum", Kind: chart.Spectrum, Y: chart.Axis{Label: "latency", Unit: "ms", Log: true},
		Series: []chart.Series{{Name: "response", X: qs, Y: resp}, {Name: "service", X: qs, Y: serv, Dash: true}},
		Refs:   []chart.Ref{{Value: slo, Label: "SLO"}}}
	capy := &chart.Chart{ID: "capacity", Title: "p99 against rate", Kind: chart.XY, X: chart.Axis{Label: "rate", Unit: "tx/s"}, Y: chart.Axis{Label: "p99", Unit: "ms"},
		Series: []chart.Series{{Name: "probe", X: chart.Values{500, 1000, 1500, 1250, 1375}, Y: chart.Values{8, 12, 90, 30, 45}, Points: true}},
		Refs:   []chart.Ref{{Value: slo, Label: "SLO 40 ms"}},
		Spans:  []chart.Span{{From: 1250, To: 1375, Label: "bracket", Kind: chart.MarkPhase}}}
	forest := &chart.Chart{ID: "forest", Title: "B / A", Kind: chart.Forest, X: chart.Axis{Log: true}, Refs: []chart.Ref{{Value: 1}},
		Rows: []chart.Row{{Label: "tps", Estimate: 1.08, Lo: 1.03, Hi: 1.12, Outcome: "differs", Verdict: "B is faster", Primary: true},
			{Label: "p99", Estimate: 0.97, Lo: 0.9, Hi: 1.05, Outcome: "inconclusive", Verdict: "not shown"}}}
	dots := &chart.Chart{ID: "dots", Title: "tps per variant", Kind: chart.Dots, Y: chart.Axis{Unit: "tx/s"},
		Groups: []chart.DotGroup{{Label: "A", Values: chart.Values{1000, 1020, 990}}, {Label: "B", Values: chart.Values{1080, 1100, 1090}}}}

	stmts := &Table{Title: "statements", Sortable: true, Head: []string{"query", "calls", "mean ms", "total ms", "rows/call"}}
	stmts.Rows = [][]Cell{
		{Text("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2"), Text("120,345"), Text("0.412"), Text("49,582"), Text("1")},
		{Text("SELECT abalance FROM pgbench_accounts WHERE aid = $1"), Text("120,345"), Text("0.051"), Text("6,137"), Text("1")},
		{Text(xss), Text("3"), Absent("pg_stat_statements was reset"), Text("2"), Text("0")},
		{{Text: "run 1", Link: "runs/1/report.html"}, Text("9,001"), Text("12.5"), Text("112,512"), Text("3.5")},
	}
	d := &Doc{Title: "pgtrial run: pgbench tpcb-like, 1200 tx/s open model, scale 20"}
	d.Add(&Lines{Title: "header", Lines: []string{"server: PostgreSQL 17.2 on localhost:5432", "shared_buffers 128MB, checkpoint_timeout 5min, max_wal_size 1GB", "command: pgtrial run --rate 1200 " + xss}},
		&Notes{Prefix: "warning: ", Lines: []string{"the run ended early: interrupted"}},
		&Table{Title: "summary", Head: []string{"script", "p50", "p99", "max", "failed"}, Rows: [][]Cell{
			{Text("tpcb-like"), Text("8.12 ms"), Text("25.3 ms"), Text("310 ms"), Text("0")},
			{Text("total"), Text("8.12 ms"), Text("25.3 ms"), Text("310 ms"), Absent("not counted")}}},
		&Figure{Title: "timeline", Charts: []*chart.Chart{tps, lat, waits, wal, cpu}, Notes: []string{"drag to zoom on any panel; double-click resets"}},
		&Figure{Title: "latency distribution", Charts: []*chart.Chart{spec}},
		&Figure{Title: "capacity search", Charts: []*chart.Chart{capy}},
		&Figure{Title: "comparison", Charts: []*chart.Chart{forest, dots}},
		stmts,
		&Checklist{Title: "checklist", Items: []results.Check{
			{Name: "warm-up excluded", Status: "pass", Value: 60.0, Message: "the first 60 s are not measured"},
			{Name: "client CPU", Status: "warn", Value: 0.87, Message: "the client was busy"},
			{Name: "errors", Status: "fail", Value: 12.0, Message: "12 serialization failures"}}})
	return d
}

// TestHTMLSample writes the sample page to $PGTRIAL_HTML_SAMPLE, to look at
// in a browser.
func TestHTMLSample(t *testing.T) {
	path := os.Getenv("PGTRIAL_HTML_SAMPLE")
	if path == "" {
		t.Skip("PGTRIAL_HTML_SAMPLE is not set")
	}
	if err := os.WriteFile(path, []byte(renderHTML(t, htmlSampleDoc())), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestHTMLInlineSVG: an inline SVG chart's title is the figure's caption
// only (not drawn again inside the image, nor its <title>), and the image
// is drawn wide enough to scale to the page with readable text.
func TestHTMLInlineSVG(t *testing.T) {
	forest := &chart.Chart{ID: "forest", Title: "B against A: the ratio", Kind: chart.Forest, X: chart.Axis{Log: true},
		Rows: []chart.Row{{Label: "tps", Estimate: 1.1, Lo: 1.05, Hi: 1.15, Outcome: "differs", Verdict: "B is faster"}}}
	page := renderHTML(t, (&Doc{Title: "compare"}).Add(&Figure{Title: "metric by metric", Charts: []*chart.Chart{forest}}))
	shown := jsonScript.ReplaceAllString(page, "") // the chart's JSON has its title too
	if n := strings.Count(shown, "B against A: the ratio"); n != 1 {
		t.Errorf("the chart's title is shown %d times, want once (the caption)", n)
	}
	if !strings.Contains(page, "<figcaption>B against A: the ratio</figcaption>") {
		t.Error("no caption")
	}
	if !strings.Contains(page, `<svg width="880"`) || !strings.Contains(page, `viewBox="0 0 880 `) {
		t.Error("the inline SVG is not drawn 880 wide with its viewBox")
	}
	if strings.Contains(page, "<div class=\"chart-grid\">") {
		t.Error("a figure of one forest in a grid")
	}
}

// TestHTMLDotsGrid: a figure of several Dots charts (one per metric) lays
// them out in a grid, each drawn small; one Dots chart alone, or one among
// other kinds, is not in a grid.
func TestHTMLDotsGrid(t *testing.T) {
	dots := func(id string) *chart.Chart {
		return &chart.Chart{ID: id, Title: id + " per run", Kind: chart.Dots, Y: chart.Axis{Unit: "ms"},
			Groups: []chart.DotGroup{{Label: "A", Values: chart.Values{1, 2}}, {Label: "B", Values: chart.Values{3, 4}}}}
	}
	page := renderHTML(t, (&Doc{}).Add(&Figure{Title: "runs per side", Charts: []*chart.Chart{dots("tps"), dots("p50"), dots("p99")}}))
	grid := regexp.MustCompile(`(?s)<div class="chart-grid">(.*?)</div>\s*</section>`).FindStringSubmatch(page)
	if grid == nil {
		t.Fatalf("no chart grid:\n%s", page[strings.Index(page, "<main>"):])
	}
	for _, id := range []string{"tps", "p50", "p99"} {
		if !strings.Contains(grid[1], `<figure class="chart" id="chart-`+id+`" data-kind="dots" data-drawn="svg">`) {
			t.Errorf("chart %s is not in the grid", id)
		}
	}
	if n := strings.Count(grid[1], `<svg width="420" height="260"`); n != 3 {
		t.Errorf("%d charts drawn 420 × 260 in the grid, want 3", n)
	}
	for _, f := range []*Figure{
		{Charts: []*chart.Chart{dots("one")}},
		{Charts: []*chart.Chart{dots("a"), {ID: "t", Kind: chart.Time, Series: []chart.Series{{Name: "s", X: chart.Values{0, 1}, Y: chart.Values{1, 2}}}}}},
	} {
		if strings.Contains(renderHTML(t, (&Doc{}).Add(f)), `class="chart-grid"`) {
			t.Errorf("figure of %d charts in a grid", len(f.Charts))
		}
	}
}

// FuzzHTMLText: whatever text the server or the user gives (a title, a
// line, a cell, a link, a checklist item, a note, a chart's title, series
// and marker labels) adds no markup to the page: the page has as many '<'
// as with the text "x" (apart from a link's own <a></a>, made only for a
// relative path), and never a javascript: link.
func FuzzHTMLText(f *testing.F) {
	for _, s := range []string{xss, "javascript:alert(1)", "<!--", "]]>", "</script", "\x00\xff", "a&b\"'", "runs/a/report.html", "//evil.example/x", "<svg onload=alert(1)>"} {
		f.Add(s)
	}
	page := func(t *testing.T, s string) string {
		d := &Doc{Title: s}
		d.Add(&Lines{Title: s, Lines: []string{s}},
			&Table{Title: s, Head: []string{s}, Rows: [][]Cell{{{Text: s, Why: s, Link: s}}}, Notes: []string{s}, Sortable: true},
			&Checklist{Title: s, Items: []results.Check{{Name: s, Status: "warn", Value: s, Message: s}}},
			&Notes{Prefix: s, Lines: []string{s}},
			&Figure{Title: s, Notes: []string{s}, Charts: []*chart.Chart{{ID: "c", Title: s, Kind: chart.Time, Note: s,
				Y:       chart.Axis{Label: s, Unit: s},
				Series:  []chart.Series{{Name: s, X: chart.Values{1, 2}, Y: chart.Values{1, 2}}},
				Markers: []chart.Marker{{X: 1, Label: s, Kind: chart.MarkStall}},
				Spans:   []chart.Span{{From: 1, To: 2, Label: s, Kind: chart.MarkStall}},
				Refs:    []chart.Ref{{Value: 1, Label: s}}}}})
		return renderHTML(t, d)
	}
	markup := func(p string) int {
		return strings.Count(p, "<") - strings.Count(p, "<a ") - strings.Count(p, "</a>")
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.TrimSpace(s) == "" {
			return // an empty title or line is left out: less markup, not more
		}
		got, base := page(t, s), page(t, "x")
		if markup(got) != markup(base) {
			t.Fatalf("text %q changed the page's markup: %d '<' against %d", s, markup(got), markup(base))
		}
		if strings.Contains(strings.ToLower(got), `href="javascript:`) {
			t.Fatalf("text %q made a javascript: link", s)
		}
	})
}

// TestCheckCell: a checklist value that its message already says is left
// out of the value column; numbers and other text stay.
func TestCheckCell(t *testing.T) {
	for _, c := range []struct {
		v    any
		msg  string
		want string
	}{
		{"a b a b", "4 runs in rounds of the 2 variants: a b a b", ""},
		{"a b", "runs in order", "a b"},
		{0.988234, "p99 ≥ 0.99 × the lock", "0.988234"},
		{float64(321428839), "data 307 MiB", "321428839"},
		{nil, "no value", ""},
	} {
		if got := checkCell(c.v, c.msg); got != c.want {
			t.Errorf("checkCell(%v, %q) = %q, want %q", c.v, c.msg, got, c.want)
		}
	}
}
