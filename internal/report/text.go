package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// WriteText writes d for a terminal: the title on the first line, blocks
// separated by blank lines (unless attached), tables aligned in columns two
// spaces apart and indented by two, without trailing blanks.
func WriteText(w io.Writer, d *Doc) error {
	bw := bufio.NewWriter(w)
	if d.Title != "" {
		bw.WriteString(d.Title + "\n")
	}
	first := true
	for _, b := range d.Blocks {
		if _, ok := b.(*Figure); ok {
			continue // a terminal shows no charts
		}
		if (!first || d.Title != "") && separated(b) {
			bw.WriteString("\n")
		}
		first = false
		switch b := b.(type) {
		case *Lines:
			if b.Title != "" {
				bw.WriteString(b.Title + "\n")
			}
			pad := strings.Repeat(" ", b.Indent)
			for _, l := range b.Lines {
				bw.WriteString(strings.TrimRight(pad+l, " ") + "\n")
			}
		case *Table:
			writeTextTable(bw, b)
		case *Checklist:
			if b.Title != "" {
				bw.WriteString(b.Title + "\n")
			}
			bw.WriteString(ChecklistText(b.Items))
		case *Notes:
			for _, l := range b.Lines {
				bw.WriteString(b.Prefix + l + "\n")
			}
		}
	}
	return bw.Flush()
}

// separated says whether a blank line goes before b.
func separated(b Block) bool {
	switch b := b.(type) {
	case *Lines:
		return !b.Attached
	case *Table:
		return !b.Attached
	case *Notes:
		return false
	}
	return true
}

func writeTextTable(w *bufio.Writer, t *Table) {
	if t.Title != "" {
		w.WriteString(t.Title + "\n")
	}
	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	if len(t.Head) > 0 {
		fmt.Fprintf(tw, "  %s\n", strings.Join(t.Head, "\t"))
	}
	for _, row := range t.Rows {
		texts := make([]string, len(row))
		for i, c := range row {
			texts[i] = c.Text
		}
		fmt.Fprintf(tw, "  %s\n", strings.Join(texts, "\t"))
	}
	tw.Flush() // a strings.Builder does not fail
	for line := range strings.Lines(buf.String()) {
		w.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
	for _, r := range missingReasons(t) {
		w.WriteString("  " + r + "\n")
	}
	for _, n := range t.Notes {
		w.WriteString("  " + n + "\n")
	}
}

// missingReasons are the table's reasons for missing figures, one line per
// reason with the columns it empties, in the order met: "calls/s, rows/s —:
// pg_stat_statements is not installed in database postgres".
func missingReasons(t *Table) []string {
	var reasons []string
	cols := map[string][]string{}
	for _, row := range t.Rows {
		for i, c := range row {
			if c.Why == "" {
				continue
			}
			if _, ok := cols[c.Why]; !ok {
				reasons = append(reasons, c.Why)
				cols[c.Why] = nil
			}
			if i < len(t.Head) && !slices.Contains(cols[c.Why], t.Head[i]) {
				cols[c.Why] = append(cols[c.Why], t.Head[i])
			}
		}
	}
	out := make([]string, len(reasons))
	for i, r := range reasons {
		head := strings.Join(cols[r], ", ")
		if head != "" {
			head += " "
		}
		out[i] = head + format.Missing + ": " + r
	}
	return out
}

// ChecklistText is the checklist's items, one a line: status, name and
// message, the names in one column.
func ChecklistText(list []results.Check) string {
	width := 0
	for _, c := range list {
		width = max(width, len(c.Name))
	}
	var b strings.Builder
	for _, c := range list {
		fmt.Fprintf(&b, "  %-4s  %-*s  %s\n", c.Status, width, c.Name, c.Message)
	}
	return b.String()
}
