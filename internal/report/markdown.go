package report

import (
	"bufio"
	"io"
	"strings"

	"github.com/pgtrial/pgtrial/internal/report/chart"
)

// WriteMarkdown writes d as GitHub-flavoured Markdown: the title as a
// heading, block titles in bold, tables as pipe tables (cells escaped), the
// checklist as a table, lines as a paragraph with hard breaks, a figure's
// charts as images at ChartPath (WriteFiles writes the SVG files there).
func WriteMarkdown(w io.Writer, d *Doc) error {
	bw := bufio.NewWriter(w)
	if d.Title != "" {
		bw.WriteString("# " + mdInline(d.Title) + "\n")
	}
	for i, b := range d.Blocks {
		if i > 0 || d.Title != "" {
			bw.WriteString("\n")
		}
		switch b := b.(type) {
		case *Lines:
			mdTitle(bw, b.Title)
			for j, l := range b.Lines {
				end := "  \n" // a hard line break
				if j == len(b.Lines)-1 {
					end = "\n"
				}
				bw.WriteString(mdInline(strings.TrimSpace(l)) + end)
			}
		case *Table:
			mdTitle(bw, b.Title)
			mdRawTable(bw, escapeAll(b.Head), mdLinkedRows(b.Rows))
			if rs := missingReasons(b); len(rs) > 0 || len(b.Notes) > 0 {
				bw.WriteString("\n")
				for _, r := range append(rs, b.Notes...) {
					bw.WriteString("- " + mdInline(r) + "\n")
				}
			}
		case *Checklist:
			mdTitle(bw, b.Title)
			rows := make([][]string, len(b.Items))
			for j, c := range b.Items {
				rows[j] = []string{c.Status, c.Name, checkCell(c.Value, c.Message), c.Message}
			}
			mdTable(bw, []string{"status", "item", "value", "what it means"}, rows)
		case *Notes:
			for _, l := range b.Lines {
				bw.WriteString("- " + mdInline(b.Prefix+l) + "\n")
			}
		case *Figure:
			mdTitle(bw, b.Title)
			for _, c := range b.Charts {
				bw.WriteString("![" + mdInline(c.Title) + "](" + ChartPath(c) + ")\n")
			}
			if len(b.Notes) > 0 {
				bw.WriteString("\n")
				for _, l := range b.Notes {
					bw.WriteString("- " + mdInline(l) + "\n")
				}
			}
		}
	}
	return bw.Flush()
}

func mdTitle(w *bufio.Writer, title string) {
	if title != "" {
		w.WriteString("**" + mdInline(strings.TrimSuffix(title, ":")) + "**\n\n")
	}
}

func mdTable(w *bufio.Writer, head []string, rows [][]string) {
	esc := make([][]string, len(rows))
	for i, r := range rows {
		esc[i] = escapeAll(r)
	}
	mdRawTable(w, escapeAll(head), esc)
}

func escapeAll(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = mdCell(c)
	}
	return out
}

// mdRawTable writes a pipe table of cells already escaped.
func mdRawTable(w *bufio.Writer, head []string, rows [][]string) {
	n := len(head)
	for _, r := range rows {
		n = max(n, len(r))
	}
	if n == 0 {
		return
	}
	line := func(cells []string) {
		w.WriteString("|")
		for i := range n {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			w.WriteString(" " + c + " |")
		}
		w.WriteString("\n")
	}
	line(head)
	w.WriteString("|" + strings.Repeat(" --- |", n) + "\n")
	for _, r := range rows {
		line(r)
	}
}

// mdLinkedRows are a table's rows as Markdown cells: escaped, and a cell
// with a Link that is a relative path (safeLink) as a link to it.
func mdLinkedRows(rows [][]Cell) [][]string {
	out := make([][]string, len(rows))
	for i, row := range rows {
		out[i] = make([]string, len(row))
		for j, c := range row {
			out[i][j] = mdCell(c.Text)
			if l := safeLink(c.Link); l != "" {
				out[i][j] = "[" + out[i][j] + "](" + mdURL(l) + ")"
			}
		}
	}
	return out
}

// mdURL is a relative path as a Markdown link destination: spaces and the
// characters that would end or break it percent-encoded.
var mdURLEscaper = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "|", "%7C", "[", "%5B", "]", "%5D", "`", "%60")

func mdURL(p string) string { return mdURLEscaper.Replace(p) }

// mdInline escapes what Markdown would read as markup in running text.
var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`, "|", `\|`)

func mdInline(s string) string { return mdEscaper.Replace(s) }

// mdCell is a table cell: inline-escaped, on one line.
func mdCell(s string) string {
	return mdInline(strings.Join(strings.Fields(s), " "))
}

// ChartPath is where a chart's SVG file is, relative to the report:
// charts/ID.svg.
func ChartPath(c *chart.Chart) string { return "charts/" + c.ID + ".svg" }
