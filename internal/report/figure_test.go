package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/report/chart"
)

func TestFigureInTextAndMarkdown(t *testing.T) {
	d := &Doc{Title: "t"}
	d.Add(&Lines{Lines: []string{"before"}},
		&Figure{Title: "timeline", Charts: []*chart.Chart{{ID: "tps", Title: "tps <b>"}}},
		&Table{Head: []string{"run"}, Rows: [][]Cell{{{Text: "a|b", Link: "runs/a b/report.html"}}}})
	var text bytes.Buffer
	if err := WriteText(&text, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "timeline") || strings.Contains(text.String(), "\n\n\n") {
		t.Errorf("text shows the figure or a double blank:\n%s", text.String())
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"![tps &lt;b&gt;](charts/tps.svg)", `[a\|b](runs/a%20b/report.html)`} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}
