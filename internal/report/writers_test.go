package report

import (
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
	if got := text(t, sampleDoc()); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestWriteMarkdown(t *testing.T) {
	checkMarkdown(t, sampleDoc(),
		"# experiment x\n",
		"select-only on h:1/db  \nwarm-up 1 s\n",
		"**ramp**\n\n| level | tps | calls/s |\n| --- | --- | --- |\n| 1 | 100.0 | — |\n",
		"- calls/s —: pg\\_stat\\_statements is not installed in database postgres\n",
		"| pass | warmup |  | ok \\| fine |\n",
		"- warning: a &lt;b&gt; warning\n",
	)
}
