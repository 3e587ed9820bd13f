package report

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/report/chart"
	"github.com/pgtrial/pgtrial/internal/report/svg"
)

// The page's embedded assets: uPlot as vendored by scripts/vendor-uplot.sh
// (VERSION holds the sha256 of each file; a test checks them) and the
// page's own script and style.
//
//go:embed assets/uplot/uPlot.iife.min.js assets/uplot/uPlot.min.css assets/uplot/VERSION assets/uplot/LICENSE assets/report.js assets/report.css
var assets embed.FS

// WriteHTML writes d as one self-contained HTML page: every script, style
// and chart inside it, no network request. Tables and lines are HTML
// (escaped by html/template), Time, XY and Spectrum charts are drawn by the
// embedded uPlot from the charts' JSON (<script type="application/json"
// id="data-ID">, encoding/json's output, which escapes < > &), Forest and
// Dots charts are inline SVG (internal/report/svg). The page's
// Content-Security-Policy allows only its own two inline scripts, by their
// sha256, and fetches nothing (docs: DOM16.md is the page's DOM contract).
func WriteHTML(w io.Writer, d *Doc) error {
	p, err := buildPage(d)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// page is what the template reads.
type page struct {
	Title  string
	CSP    template.HTML // the whole <meta> element (its quotes must stay raw)
	Style  template.CSS
	UPlot  template.JS
	Script template.JS
	Blocks []htmlBlock
}

// htmlBlock is one block as the template reads it: exactly one field set.
type htmlBlock struct {
	Lines     *Lines
	Table     *htmlTable
	Checklist *htmlChecklist
	Notes     *htmlNotes
	Figure    *htmlFigure
}

type htmlTable struct {
	Title    string
	Head     []htmlCell
	Rows     [][]htmlCell
	Sortable bool
	Notes    []string // the missing figures' reasons, then the table's notes
	Attached bool
}

type htmlCell struct {
	Text string
	Why  string
	Href string // a safe relative path; "": no link
	Num  bool   // a figure: right-aligned
}

type htmlChecklist struct {
	Title string
	Items []htmlCheck
}

type htmlCheck struct {
	Status, Name, Value, Message string
}

type htmlNotes struct {
	Class string
	Lines []string
}

type htmlFigure struct {
	Title string
	// Grid: the charts are small inline SVGs (several Dots charts, one
	// per metric) laid out in columns rather than one under the other.
	Grid    bool
	Charts  []htmlChart
	Markers []htmlMarker // deduplicated across the figure's panels
	Notes   []string
}

type htmlChart struct {
	ID    string
	Kind  string
	Title string
	Note  string
	Group string
	SVG   template.HTML // Forest and Dots: the inline <svg>; "": drawn by the script
	Error string        // the SVG could not be drawn: why (the script reports it)
	Data  template.JS   // the chart's JSON (encoding/json: < > & escaped)
}

type htmlMarker struct {
	Kind, Text string
}

func buildPage(d *Doc) (*page, error) {
	read := func(name string) (string, error) {
		b, err := assets.ReadFile(name)
		if err != nil {
			return "", fmt.Errorf("html: embedded %s: %w", name, err)
		}
		return string(b), nil
	}
	uplotJS, err := read("assets/uplot/uPlot.iife.min.js")
	if err != nil {
		return nil, err
	}
	uplotCSS, err := read("assets/uplot/uPlot.min.css")
	if err != nil {
		return nil, err
	}
	js, err := read("assets/report.js")
	if err != nil {
		return nil, err
	}
	css, err := read("assets/report.css")
	if err != nil {
		return nil, err
	}
	p := &page{
		Title:  d.Title,
		CSP:    template.HTML(`<meta http-equiv="Content-Security-Policy" content="` + cspContent(uplotJS, js) + `">`),
		Style:  template.CSS(uplotCSS + "\n" + css),
		UPlot:  template.JS(uplotJS),
		Script: template.JS(js),
	}
	for _, b := range d.Blocks {
		var hb htmlBlock
		switch b := b.(type) {
		case *Lines:
			hb.Lines = b
		case *Table:
			hb.Table = buildTable(b)
		case *Checklist:
			hb.Checklist = buildChecklist(b)
		case *Notes:
			hb.Notes = buildNotes(b)
		case *Figure:
			f, err := buildFigure(b)
			if err != nil {
				return nil, err
			}
			hb.Figure = f
		default:
			continue
		}
		p.Blocks = append(p.Blocks, hb)
	}
	return p, nil
}

// cspContent is the page's Content-Security-Policy: nothing from anywhere
// (default-src 'none'), the inline scripts whose bodies hash (sha256,
// base64) to the ones given, inline styles (uPlot sets element styles),
// images only from data: URLs.
func cspContent(scripts ...string) string {
	var b strings.Builder
	b.WriteString("default-src 'none'; script-src")
	for _, s := range scripts {
		b.WriteString(" '" + scriptHash(s) + "'")
	}
	b.WriteString("; style-src 'unsafe-inline'; img-src data:")
	return b.String()
}

// scriptHash is a CSP source for an inline script: "sha256-" and the
// base64 of the sha256 of its body, exactly as it is between the tags.
func scriptHash(body string) string {
	sum := sha256.Sum256([]byte(body))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// numericCell matches a figure as the formatters write it ("12.3",
// "1,234", "-4.5 %", "2.1 MiB", "+3.0 %"): right-aligned in the table.
var numericCell = regexp.MustCompile(`^[-+−±×~≈<>≤≥]?\s?[0-9]`)

func buildTable(t *Table) *htmlTable {
	out := &htmlTable{Title: t.Title, Sortable: t.Sortable, Attached: t.Attached}
	n := len(t.Head)
	for _, r := range t.Rows {
		n = max(n, len(r))
	}
	// A column is numeric when every cell that is there is a figure.
	num := make([]bool, n)
	for i := range num {
		seen := false
		num[i] = true
		for _, r := range t.Rows {
			if i >= len(r) || r[i].Text == "" || r[i].Why != "" || strings.TrimSpace(r[i].Text) == "—" {
				continue
			}
			seen = true
			if !numericCell.MatchString(strings.TrimSpace(r[i].Text)) {
				num[i] = false
				break
			}
		}
		num[i] = num[i] && seen
	}
	for i := range n {
		h := htmlCell{Num: num[i]}
		if i < len(t.Head) {
			h.Text = t.Head[i]
		}
		out.Head = append(out.Head, h)
	}
	for _, r := range t.Rows {
		row := make([]htmlCell, n)
		for i := range row {
			row[i].Num = num[i]
			if i < len(r) {
				row[i].Text, row[i].Why, row[i].Href = r[i].Text, r[i].Why, safeLink(r[i].Link)
			}
		}
		out.Rows = append(out.Rows, row)
	}
	out.Notes = append(missingReasons(t), t.Notes...)
	return out
}

// safeLink is link if it is a relative path (a run's own report beside
// this one), else "": no scheme (javascript:, data:, http:), no host, no
// protocol-relative "//", no backslash or control character, which
// browsers read in ways url.Parse does not.
func safeLink(link string) string {
	if link == "" || strings.TrimSpace(link) != link || strings.ContainsAny(link, "\\") || strings.HasPrefix(link, "//") {
		return ""
	}
	for _, r := range link {
		if r < 0x20 || r == 0x7f {
			return ""
		}
	}
	u, err := url.Parse(link)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return ""
	}
	return link
}

func buildChecklist(c *Checklist) *htmlChecklist {
	out := &htmlChecklist{Title: c.Title}
	for _, it := range c.Items {
		st := it.Status
		switch st {
		case "pass", "warn", "fail":
		default:
			st = "warn" // an unknown status is not a pass
		}
		out.Items = append(out.Items, htmlCheck{Status: st, Name: it.Name, Value: checkCell(it.Value, it.Message), Message: it.Message})
	}
	return out
}

// checkCell is the value column of a checklist item: its value as text,
// or nothing when the value is text its message already says (the
// interleaved item's order of runs), which would only repeat it in a
// narrow column.
func checkCell(v any, message string) string {
	if s, ok := v.(string); ok && strings.Contains(message, s) {
		return ""
	}
	return checkValue(v)
}

// checkValue is a checklist item's measured value as text: a whole number
// as it is, another with at most 6 significant digits.
func checkValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case float64:
		return checkNumber(v)
	case float32:
		return checkNumber(float64(v))
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

func checkNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func buildNotes(n *Notes) *htmlNotes {
	out := &htmlNotes{Class: "notes"}
	p := strings.ToLower(strings.TrimSpace(n.Prefix))
	switch {
	case strings.HasPrefix(p, "warning"):
		out.Class += " warning"
	case strings.HasPrefix(p, "ended"):
		out.Class += " ended"
	}
	for _, l := range n.Lines {
		out.Lines = append(out.Lines, n.Prefix+l)
	}
	return out
}

func buildFigure(f *Figure) (*htmlFigure, error) {
	out := &htmlFigure{Title: f.Title, Notes: f.Notes, Grid: gridFigure(f)}
	size := inlineSize
	if out.Grid {
		size = gridSize
	}
	seen := map[htmlMarker]bool{}
	for _, c := range f.Charts {
		if c == nil {
			continue
		}
		data, err := chartJSON(c)
		if err != nil {
			return nil, fmt.Errorf("html: chart %s: %w", c.ID, err)
		}
		hc := htmlChart{ID: c.ID, Kind: string(c.Kind), Title: c.Title, Note: c.Note, Group: c.Group, Data: template.JS(data)}
		if c.Kind == chart.Forest || c.Kind == chart.Dots {
			s, err := inlineSVG(c, size)
			if err != nil {
				hc.Error = err.Error()
			} else {
				hc.SVG = s
			}
		}
		out.Charts = append(out.Charts, hc)
		unit := c.X.Unit
		if unit == "" && c.Kind == chart.Time {
			unit = "s"
		}
		for _, m := range c.Markers {
			if math.IsNaN(m.X) || math.IsInf(m.X, 0) {
				continue
			}
			at := strconv.FormatFloat(math.Round(m.X*10)/10, 'f', -1, 64)
			if unit != "" {
				at += " " + unit
			}
			hm := htmlMarker{Kind: string(m.Kind), Text: m.Label + " (at " + at + ")"}
			if !seen[hm] {
				seen[hm] = true
				out.Markers = append(out.Markers, hm)
			}
		}
	}
	return out, nil
}

// The inline SVG charts' sizes (px of the SVG's viewBox; the page scales
// the image to the column's width): a chart alone 880 wide, so at the
// page's 1068 px its 10–11 px text reads at 12–13 px; a chart in a grid
// of two columns 420 × 260 (about 525 px wide on the page).
var (
	inlineSize = svg.Size{Width: 880}
	gridSize   = svg.Size{Width: 420, Height: 260}
)

// gridFigure reports whether f's charts go in a grid: two or more, every
// one a Dots chart (small; a Forest or a uPlot chart needs the width).
func gridFigure(f *Figure) bool {
	n := 0
	for _, c := range f.Charts {
		if c == nil {
			continue
		}
		if c.Kind != chart.Dots {
			return false
		}
		n++
	}
	return n >= 2
}

// svgXMLNS are the namespace declarations of a standalone SVG document,
// which inline SVG in HTML does not need.
var svgXMLNS = regexp.MustCompile(`\s+xmlns(:xlink)?="http://www\.w3\.org/(2000/svg|1999/xlink)"`)

// inlineSVG is svg.Render's document as an element of the page: from its
// <svg on, without the namespace declarations HTML does not need (so the
// page holds no URL), drawn without its title (the figure's caption says
// it) at the size given. svg escapes every label it writes; were it not
// to, the page's CSP would still run no script of it.
func inlineSVG(c *chart.Chart, size svg.Size) (template.HTML, error) {
	untitled := *c
	untitled.Title = ""
	var buf bytes.Buffer
	if err := svg.RenderSize(&buf, &untitled, size); err != nil {
		return "", fmt.Errorf("svg: %w", err)
	}
	s := buf.String()
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("svg: no <svg> element")
	}
	s = s[i:]
	j := strings.Index(s, ">")
	if j < 0 {
		return "", fmt.Errorf("svg: unterminated <svg> element")
	}
	s = svgXMLNS.ReplaceAllString(s[:j], "") + s[j:]
	return template.HTML(s), nil
}

// num is a number that encodes as chart.Values do: null for NaN and ±Inf,
// 6 significant digits.
type num float64

func (n num) MarshalJSON() ([]byte, error) { return chart.AppendNumber(nil, float64(n)), nil }

// jsonChart is a chart.Chart as the page's script reads it: the same
// names, with the numbers outside Values (axis ranges, markers, spans,
// refs, forest rows) encoded as num, so a NaN among them is null rather
// than an encoding error. Its fields shadow the embedded chart's.
type jsonChart struct {
	*chart.Chart
	X       jsonAxis     `json:"x"`
	Y       jsonAxis     `json:"y"`
	Y2      *jsonAxis    `json:"y2,omitempty"`
	Markers []jsonMarker `json:"markers,omitempty"`
	Spans   []jsonSpan   `json:"spans,omitempty"`
	Refs    []jsonRef    `json:"refs,omitempty"`
	Rows    []jsonRow    `json:"rows,omitempty"`
}

type jsonAxis struct {
	Label string `json:"label,omitempty"`
	Unit  string `json:"unit,omitempty"`
	Log   bool   `json:"log,omitempty"`
	Min   *num   `json:"min,omitempty"`
	Max   *num   `json:"max,omitempty"`
}

type jsonMarker struct {
	X     num              `json:"x"`
	Label string           `json:"label"`
	Kind  chart.MarkerKind `json:"kind"`
}

type jsonSpan struct {
	From  num              `json:"from"`
	To    num              `json:"to"`
	Label string           `json:"label"`
	Kind  chart.MarkerKind `json:"kind"`
}

type jsonRef struct {
	Value num    `json:"value"`
	Label string `json:"label"`
	Right bool   `json:"right,omitempty"`
}

type jsonRow struct {
	Label    string `json:"label"`
	Estimate num    `json:"estimate"`
	Lo       num    `json:"lo"`
	Hi       num    `json:"hi"`
	Outcome  string `json:"outcome"`
	Verdict  string `json:"verdict"`
	Primary  bool   `json:"primary,omitempty"`
}

func axisJSON(a chart.Axis) jsonAxis {
	out := jsonAxis{Label: a.Label, Unit: a.Unit, Log: a.Log}
	if a.Min != nil && !math.IsNaN(*a.Min) && !math.IsInf(*a.Min, 0) {
		v := num(*a.Min)
		out.Min = &v
	}
	if a.Max != nil && !math.IsNaN(*a.Max) && !math.IsInf(*a.Max, 0) {
		v := num(*a.Max)
		out.Max = &v
	}
	return out
}

// chartJSON is c as JSON (encoding/json: < > & and U+2028/2029 escaped,
// so it cannot end its <script> element).
func chartJSON(c *chart.Chart) ([]byte, error) {
	j := jsonChart{Chart: c, X: axisJSON(c.X), Y: axisJSON(c.Y)}
	if c.Y2 != nil {
		a := axisJSON(*c.Y2)
		j.Y2 = &a
	}
	for _, m := range c.Markers {
		j.Markers = append(j.Markers, jsonMarker{X: num(m.X), Label: m.Label, Kind: m.Kind})
	}
	for _, s := range c.Spans {
		j.Spans = append(j.Spans, jsonSpan{From: num(s.From), To: num(s.To), Label: s.Label, Kind: s.Kind})
	}
	for _, r := range c.Refs {
		j.Refs = append(j.Refs, jsonRef{Value: num(r.Value), Label: r.Label, Right: r.Right})
	}
	for _, r := range c.Rows {
		j.Rows = append(j.Rows, jsonRow{Label: r.Label, Estimate: num(r.Estimate), Lo: num(r.Lo), Hi: num(r.Hi),
			Outcome: r.Outcome, Verdict: r.Verdict, Primary: r.Primary})
	}
	return json.Marshal(j)
}

// The page. Whitespace inside <script> elements is exactly the body the
// CSP hashes; html/template escapes every other value for its context.
var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en" data-ready="0">
<head>
<meta charset="utf-8">
{{.CSP}}
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="pgtrial">
<title>{{.Title}}</title>
<style>{{.Style}}</style>
</head>
<body>
<header class="top"><span class="tool">pgtrial</span> <span class="title">{{.Title}}</span></header>
<main>
{{- if .Title}}
<h1>{{.Title}}</h1>
{{- end}}
{{- range .Blocks}}
{{- with .Lines}}
<section class="lines{{if .Attached}} attached{{end}}{{if .Indent}} indent{{end}}">
{{- if .Title}}<h2>{{.Title}}</h2>{{end}}
<p>{{range $i, $l := .Lines}}{{if $i}}<br>
{{end}}{{$l}}{{end}}</p>
</section>
{{- end}}
{{- with .Table}}
<section class="table{{if .Attached}} attached{{end}}">
{{- if .Title}}<h2>{{.Title}}</h2>{{end}}
<div class="scroll"><table{{if .Sortable}} class="sortable"{{end}}>
<thead><tr>{{range .Head}}<th{{if .Num}} class="num"{{end}}>{{.Text}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr>{{range .}}<td{{if .Num}} class="num"{{end}}{{if .Why}} title="{{.Why}}"{{end}}>{{if .Href}}<a href="{{.Href}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table></div>
{{- if .Notes}}
<ul class="table-notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>
{{- end}}
</section>
{{- end}}
{{- with .Checklist}}
<section class="checklist">
{{- if .Title}}<h2>{{.Title}}</h2>{{end}}
<table class="checklist">
<thead><tr><th>status</th><th>item</th><th class="num">value</th><th>what it means</th></tr></thead>
<tbody>
{{- range .Items}}
<tr data-status="{{.Status}}"><td class="status">{{.Status}}</td><td>{{.Name}}</td><td class="num">{{.Value}}</td><td>{{.Message}}</td></tr>
{{- end}}
</tbody>
</table>
</section>
{{- end}}
{{- with .Notes}}
<ul class="{{.Class}}">{{range .Lines}}<li>{{.}}</li>{{end}}</ul>
{{- end}}
{{- with .Figure}}
<section class="figure">
{{- if .Title}}<h2>{{.Title}}</h2>{{end}}
{{- if .Grid}}
<div class="chart-grid">
{{- end}}
{{- range .Charts}}
<figure class="chart" id="chart-{{.ID}}" data-kind="{{.Kind}}"{{if .Group}} data-group="{{.Group}}"{{end}}{{if .SVG}} data-drawn="svg"{{end}}{{if .Error}} data-error="{{.Error}}"{{end}}>
<figcaption>{{.Title}}</figcaption>
<div class="plot">{{.SVG}}</div>
{{- if .Note}}
<p class="chart-note">{{.Note}}</p>
{{- end}}
<script type="application/json" id="data-{{.ID}}">{{.Data}}</script>
</figure>
{{- end}}
{{- if .Grid}}
</div>
{{- end}}
{{- if .Markers}}
<ul class="markers">{{range .Markers}}<li data-kind="{{.Kind}}">{{.Text}}</li>{{end}}</ul>
{{- end}}
{{- if .Notes}}
<ul class="figure-notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>
{{- end}}
</section>
{{- end}}
{{- end}}
</main>
<script>{{.UPlot}}</script>
<script>{{.Script}}</script>
</body>
</html>
`))
