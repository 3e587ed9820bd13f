package report

import (
	"html/template"
	"io"
)

// WriteHTML writes d as one self-contained HTML page: every script, style
// and chart inside it, no network request. Tables and lines are HTML
// (escaped), Time, XY and Spectrum charts are drawn by the embedded uPlot
// from the charts' JSON, Forest and Dots charts are inline SVG
// (internal/report/svg).
//
// STUB (contract): the helper that owns html.go replaces it.
func WriteHTML(w io.Writer, d *Doc) error {
	return template.Must(template.New("page").Parse(`<!doctype html><meta charset="utf-8"><title>{{.Title}}</title><h1>{{.Title}}</h1>`)).Execute(w, d)
}
