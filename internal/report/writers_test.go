package report

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

func sampleDoc() *Doc {
	t := &Table{Title: "ramp:", Head: []string{"level", "tps", "calls/s"}}
	t.Rows = append(t.Rows,
		[]Cell{Text("1"), Text("100.0"), Absent("pg_stat_statements is not installed in database postgres")},
		[]Cell{Text("2"), Text("200.0"), Absent("pg_stat_statements is not installed in database postgres")})
	t.Notes = []string{"waits: share of samples"}
	return (&Doc{Title: "experiment x"}).Add(
		&Lines{Lines: []string{"select-only on h:1/db", "warm-up 1 s"}, Indent: 2, Attached: true},
		t,
		&Checklist{Title: "checklist:", Items: []results.Check{{Name: "warmup", Status: "pass", Message: "ok | fine"}, {Name: "open_model_used", Status: "warn", Message: "closed"}}},
		&Notes{Prefix: "warning: ", Lines: []string{"a <b> warning"}},
	)
}

func TestWriteText(t *testing.T) {
	var b strings.Builder
	if err := WriteText(&b, sampleDoc()); err != nil {
		t.Fatal(err)
	}
	want := `experiment x
  select-only on h:1/db
  warm-up 1 s

ramp:
  level  tps    calls/s
  1      100.0  —
  2      200.0  —
  calls/s —: pg_stat_statements is not installed in database postgres
  waits: share of samples

checklist:
  pass  warmup           ok | fine
  warn  open_model_used  closed
warning: a <b> warning
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b strings.Builder
	if err := WriteMarkdown(&b, sampleDoc()); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"# experiment x\n",
		"select-only on h:1/db  \nwarm-up 1 s\n",
		"**ramp**\n\n| level | tps | calls/s |\n| --- | --- | --- |\n| 1 | 100.0 | — |\n",
		"- calls/s —: pg\\_stat\\_statements is not installed in database postgres\n",
		"| pass | warmup | ok \\| fine |\n",
		"- warning: a &lt;b&gt; warning\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("markdown lacks %q:\n%s", want, got)
		}
	}
	// Every table line has the head's number of cells.
	for line := range strings.Lines(got) {
		if strings.HasPrefix(line, "| ") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 4 {
			t.Errorf("table line with the wrong number of cells: %q", line)
		}
	}
}
