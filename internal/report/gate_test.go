package report

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	gmtext "github.com/yuin/goldmark/text"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/gate"
)

// gateReport is a comparison of tps and p99 over 5 runs a side.
func gateReport(tpsB, p99B []float64) *compare.Report {
	ptrs := func(vs []float64) []*float64 {
		out := make([]*float64, len(vs))
		for i := range vs {
			out[i] = &vs[i]
		}
		return out
	}
	return &compare.Report{NameA: "main", NameB: "pr|42", Alpha: 0.05,
		RunsA: make([]compare.RunRef, 5), RunsB: make([]compare.RunRef, 5),
		Metrics: []compare.Metric{
			{Metric: "tps", Unit: "tx/s", HigherIsBetter: true, ValuesA: ptrs([]float64{1000, 1010, 990, 1005, 995}), ValuesB: ptrs(tpsB)},
			{Metric: "p99", Unit: "ms", ValuesA: ptrs([]float64{10, 10.2, 9.9, 10.1, 10}), ValuesB: ptrs(p99B)},
		}}
}

// TestGateMarkdown parses the gate's Markdown with goldmark's GFM: one
// table node, its head and a row per rule with the rule, the medians, the
// threshold and the outcome in their cells (a "|" in a name escaped, "<"
// and ">" as text).
func TestGateMarkdown(t *testing.T) {
	rules, err := gate.Parse("tps<-3%,p99>+5%")
	if err != nil {
		t.Fatal(err)
	}
	res := gate.Evaluate(rules, gateReport([]float64{900, 905, 895, 910, 890}, []float64{10, 10.1, 9.9, 10.2, 10}))
	var md bytes.Buffer
	if err := WriteMarkdown(&md, Gate([]*gate.Result{res})); err != nil {
		t.Fatal(err)
	}
	src := md.Bytes()
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM))
	doc := gm.Parser().Parse(gmtext.NewReader(src))
	plain := func(n ast.Node) string { return renderedText(t, gm, n, src) }
	var tables [][][]string // table → rows (the head first) → cells' text
	var heading string
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			heading = plain(n)
		case *east.Table:
			tables = append(tables, nil)
		case *east.TableHeader, *east.TableRow:
			tables[len(tables)-1] = append(tables[len(tables)-1], nil)
		case *east.TableCell:
			tb := tables[len(tables)-1]
			tb[len(tb)-1] = append(tb[len(tb)-1], plain(n))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if heading != "pgtrial gate: ❌ fail: pr|42 against main" {
		t.Errorf("heading = %q", heading)
	}
	if len(tables) != 1 {
		t.Fatalf("%d tables parsed, want 1:\n%s", len(tables), src)
	}
	want := [][]string{
		{"rule", "metric", "main median", "pr|42 median", "pr|42/main [interval]", "threshold", "outcome"},
		{"tps<-3%", "tps", "1000.0 tx/s", "900.0 tx/s", "", "-3.0 %", "❌ fail"},
		{"p99>+5%", "p99", "10.0 ms", "10.0 ms", "", "+5.0 %", "✅ pass"},
	}
	tb := tables[0]
	if len(tb) != len(want) {
		t.Fatalf("table rows = %q, want %d rows", tb, len(want))
	}
	for i := range want {
		if len(tb[i]) != len(want[i]) {
			t.Fatalf("row %d = %q, want %d cells", i, tb[i], len(want[i]))
		}
		for j := range want[i] {
			if want[i][j] != "" && tb[i][j] != want[i][j] {
				t.Errorf("row %d cell %d = %q, want %q", i, j, tb[i][j], want[i][j])
			}
		}
	}
	if !strings.HasPrefix(tb[1][4], "-10") || !strings.Contains(tb[1][4], " [-") {
		t.Errorf("tps's change = %q, want -10 %% [interval]", tb[1][4])
	}
	for _, s := range []string{"a real change beyond -3.0 %", "5 vs 5 runs; per rule a two-sided Mann-Whitney U test (α = 0.05 with Holm's correction over the 2 rules)"} {
		if !strings.Contains(string(src), s) {
			t.Errorf("the Markdown lacks %q:\n%s", s, src)
		}
	}
}

// renderedText is what a reader sees of node n: goldmark's HTML of it
// without the tags, its entities and escapes resolved.
func renderedText(t *testing.T, gm goldmark.Markdown, n ast.Node, src []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := gm.Renderer().Render(&b, src, n); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(html.UnescapeString(htmlTag.ReplaceAllString(b.String(), "")))
}

var htmlTag = regexp.MustCompile(`<[^>]*>`)

// TestExperimentGate: an experiment's report shows its gate, each
// variant's table under its outcome.
func TestExperimentGate(t *testing.T) {
	rules, err := gate.Parse("tps<-3%")
	if err != nil {
		t.Fatal(err)
	}
	res := gate.Evaluate(rules, gateReport([]float64{900, 905, 895, 910, 890}, []float64{10, 10.1, 9.9, 10.2, 10}))
	rec := &experiment.Record{Name: "exp", Model: "closed", Gate: []*gate.Result{res}}
	var b bytes.Buffer
	if err := WriteText(&b, Experiment(rec, "dir")); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"gate: ❌ fail", "pr|42 against main: ❌ fail", "tps<-3%  tps"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the experiment's report lacks %q:\n%s", s, b.String())
		}
	}
}
