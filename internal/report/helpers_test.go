package report

import (
	"strings"
	"testing"
)

// text renders d with WriteText.
func text(t *testing.T, d *Doc) string {
	t.Helper()
	var b strings.Builder
	if err := WriteText(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// wantAll reports every string of wants that out lacks; what names out in
// the message ("the summary lacks …").
func wantAll(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, out)
		}
	}
}

// checkMarkdown renders d with WriteMarkdown and returns it, having reported
// every string of wants that it lacks and every table line whose number of
// cells is not its table's head's (a table is a run of lines that start with
// "|"; an escaped \| is no cell border).
func checkMarkdown(t *testing.T, d *Doc, wants ...string) string {
	t.Helper()
	var b strings.Builder
	if err := WriteMarkdown(&b, d); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	wantAll(t, "markdown", md, wants...)
	head := -1 // cells of the current table's head line; -1 outside a table
	for line := range strings.Lines(md) {
		if !strings.HasPrefix(line, "|") {
			head = -1
			continue
		}
		cells := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") - 1
		if head < 0 {
			head = cells
		} else if cells != head {
			t.Errorf("table line with %d cells under a head of %d: %q", cells, head, line)
		}
	}
	return md
}
