// Package report is the only renderer of text for people: the run summary,
// the experiment and demo summaries, the comparison, the capacity search and
// the checklist. Each of them is first built as a Doc, one model of what the
// report says (titles, lines, tables, a checklist, warnings), and then
// written by a writer of one output format: Text for the terminal and
// Markdown (HTML follows the same model). The figures in a Doc are already
// formatted by the formatters of format.go, so a millisecond or a share looks
// the same in every report and every format.
//
// The pattern is CockroachDB's pkg/workload/cli/format.go: what is said is
// separate from how it is printed, so a second and third format are a writer
// each, not a copy of every report.
//
// Evidence that was not collected is never shown as 0: its cell is format.Missing
// ("—") with the reason (Cell.Why), which the writers print under the table.
package report

import (
	"github.com/pgtrial/pgtrial/internal/report/chart"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// A Doc is one report: a title and its blocks, in order.
type Doc struct {
	Title  string
	Blocks []Block
}

// Add appends blocks and returns the Doc.
func (d *Doc) Add(b ...Block) *Doc {
	d.Blocks = append(d.Blocks, b...)
	return d
}

// A Block is one part of a Doc: *Lines, *Table, *Checklist, *Notes or
// *Figure.
type Block interface{ block() }

// Lines are lines of text under an optional title. Text writers indent them
// by Indent spaces; Markdown writes them as a paragraph. Attached lines follow
// the previous block without a blank line.
type Lines struct {
	Title    string
	Lines    []string
	Indent   int
	Attached bool
}

// A Table is a title, a head and rows of cells; Notes are lines printed
// under it (legends, caveats).
type Table struct {
	Title string
	Head  []string
	Rows  [][]Cell
	Notes []string
	// Attached tables follow the previous block without a blank line.
	Attached bool
	// Sortable tables can be sorted by a click on a column's head in HTML
	// (figures sort by their number, "—" last).
	Sortable bool
}

// A Cell is one formatted figure or label. A figure that is missing has
// Text format.Missing and Why says why ("pg_stat_statements is not installed in
// database postgres"); writers list the reasons under the table.
type Cell struct {
	Text string
	Why  string
	// Link is a relative path the cell links to (a run's own report) in
	// HTML and Markdown; "": none.
	Link string
}

// Text is a cell of text.
func Text(s string) Cell { return Cell{Text: s} }

// Absent is a missing figure with its reason.
func Absent(why string) Cell { return Cell{Text: format.Missing, Why: why} }

// AddRow appends a row of plain cells.
func (t *Table) AddRow(cells ...string) {
	row := make([]Cell, len(cells))
	for i, c := range cells {
		row[i] = Cell{Text: c}
	}
	t.Rows = append(t.Rows, row)
}

// A Checklist is the honesty checklist's items (DESIGN §8) under a title.
type Checklist struct {
	Title string
	Items []results.Check
}

// Notes are lines with a prefix, printed one a line without a title and
// right after the previous block:
// "warning: …", "note: …", "ended early: …".
type Notes struct {
	Prefix string
	Lines  []string
}

// A Figure is charts under a title: one chart, or linked panels (Time
// charts of one Group) drawn one below the other. The text writer leaves
// figures out; Markdown shows each chart as an image, charts/ID.svg beside
// the report (WriteFiles writes them); HTML draws them in the page.
type Figure struct {
	Title  string
	Charts []*chart.Chart
	Notes  []string // lines under the figure (a legend, a caveat)
}

func (*Lines) block()     {}
func (*Table) block()     {}
func (*Checklist) block() {}
func (*Notes) block()     {}
func (*Figure) block()    {}
