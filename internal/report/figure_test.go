package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	gmtext "github.com/yuin/goldmark/text"

	"github.com/pgtrial/pgtrial/internal/report/chart"
	"github.com/pgtrial/pgtrial/internal/results"
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

// FuzzMarkdownText: text from the server or the user never becomes markup
// in report.md: no raw '<' (HTML inside Markdown), and a link only to a
// relative path.
func FuzzMarkdownText(f *testing.F) {
	for _, s := range []string{xss, "javascript:alert(1)", "[x](javascript:alert(1))", "![i](http://e/x.png)", "a|b", "`code`", "runs/a/report.html"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := &Doc{Title: s}
		d.Add(&Lines{Title: s, Lines: []string{s}},
			&Table{Title: s, Head: []string{s}, Rows: [][]Cell{{{Text: s, Why: s, Link: s}}}, Notes: []string{s}},
			&Checklist{Title: s, Items: []results.Check{{Name: s, Status: "warn", Value: s, Message: s}}},
			&Notes{Prefix: s, Lines: []string{s}},
			&Figure{Title: s, Notes: []string{s}, Charts: []*chart.Chart{{ID: "c", Title: s}}})
		var md bytes.Buffer
		if err := WriteMarkdown(&md, d); err != nil {
			t.Fatal(err)
		}
		out := md.String()
		if strings.Contains(out, "<") {
			t.Fatalf("text %q left a raw '<' in the Markdown:\n%s", s, out)
		}
		// As GitHub reads it: no HTML, and every link or image the writer's
		// own (a relative path: the chart's SVG, a safe cell link).
		doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(gmtext.NewReader(md.Bytes()))
		err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			var dest string
			switch n := n.(type) {
			case *ast.RawHTML, *ast.HTMLBlock:
				return ast.WalkStop, fmt.Errorf("HTML in the Markdown")
			case *ast.Link:
				dest = string(n.Destination)
			case *ast.Image:
				dest = string(n.Destination)
			case *ast.AutoLink:
				// GFM links plain text that looks like an address or a mail
				// address (www.x.org, a@b.c) as GitHub does: harmless unless
				// its scheme runs something.
				u := strings.ToLower(string(n.URL(md.Bytes())))
				if strings.HasPrefix(u, "javascript:") || strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "vbscript:") {
					return ast.WalkStop, fmt.Errorf("an autolink to %q", u)
				}
				return ast.WalkContinue, nil
			default:
				return ast.WalkContinue, nil
			}
			if dest != "charts/c.svg" && (safeLink(s) == "" || dest != mdURL(s)) {
				return ast.WalkStop, fmt.Errorf("a link or image to %q", dest)
			}
			return ast.WalkContinue, nil
		})
		if err != nil {
			t.Fatalf("text %q: %v:\n%s", s, err, out)
		}
	})
}
