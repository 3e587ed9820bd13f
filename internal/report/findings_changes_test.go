package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/report/chart"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
)

// TestChangesText: the run summary says each change with its levels, what
// it was matched to and the wait shift, and states the method and each
// series' grounds.
func TestChangesText(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run, err := resultstest.WriteRun(dir, resultstest.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	f := explain.Run(dir, run, explain.Defaults())
	var b bytes.Buffer
	if err := WriteText(&b, &Doc{Blocks: RunFindingsBlocks(f)}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	t.Log(text)
	for _, want := range []string{
		"changes in the timeline (level shifts; times in s since the bench start, measured window 5–65 s)",
		"p99 ×", " ms) and lag p99 ×", " ms) at 25 s, with injected lock on pgbench_branches, 5 s from 25 s",
		"; Lock:relation 0 % → 7", "% of active time",
		"p99 ÷", " ms) at 31 s, with ", "the end of injected lock on pgbench_branches, 5 s at 30 s",
		"method: PELT on tps and on ln p99, ln lag, β = 3·ln n × long-run variance σ²(1+ρ)/(1−ρ); tps n = 60 intervals, σ = ",
		"within ±3 s of a change",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	// Nothing found is said so, with the grounds.
	c := &results.Changes{Method: "PELT, …", MatchS: 3, WindowFromS: 2, WindowToS: 32,
		Series: []results.ChangeSeries{{Name: "tps", Unit: "tx/s", N: 30, Sigma: 3.2}, {Name: "p99", Unit: "ms", N: 30, Scale: "log", Sigma: 0.1},
			{Name: "lag p99", Missing: "closed model"}},
		Quiet: []results.QuietOccurrence{{Kind: results.OccurCheckpoint, Label: "checkpoint (timed)", StartS: ptrF(12.3),
			FPI: &results.ShareShift{Before: 0.02, After: 0.45, Moved: true}},
			{Kind: results.OccurCheckpoint, Label: "checkpoint (timed)", StartS: ptrF(42.3),
				FPI: &results.ShareShift{Before: 0.14, After: 0.167}},
			{Kind: results.OccurAutovacuum, Label: "autovacuum of t", StartS: ptrF(20),
				FPI: &results.ShareShift{Before: 0.14, After: 0.15}}}}
	b.Reset()
	if err := WriteText(&b, &Doc{Blocks: changesBlocks(c)}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no level shift in tps or p99\n", "method: PELT, …;",
		"checkpoint (timed) started at 12.3 s: no change in tps or p99 within ±3 s; FPI share 2.0 % → 45 %",
		"checkpoint (timed) started at 42.3 s: no change in tps or p99 within ±3 s; FPI share 14 % → 17 %, no rise (a rise is a move of 5 points or more)\n",
		"autovacuum of t at 20 s: no change in tps or p99 within ±3 s\n",
		"lag p99: — (closed model)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

func ptrF(v float64) *float64 { return &v }

// TestChangesMarkers: the run report's timeline panels carry a marker at
// each change, labelled with its short sentence.
func TestChangesMarkers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := resultstest.WriteRun(dir, resultstest.Options{Seed: 7}); err != nil {
		t.Fatal(err)
	}
	d, err := RunReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	var fig *Figure
	for _, b := range d.Blocks {
		if f, ok := b.(*Figure); ok && strings.HasPrefix(f.Title, "timeline") {
			fig = f
		}
	}
	if fig == nil || len(fig.Charts) == 0 {
		t.Fatal("no timeline figure")
	}
	for _, c := range fig.Charts {
		var got []chart.Marker
		for _, m := range c.Markers {
			if m.Kind == chart.MarkChange {
				got = append(got, m)
			}
		}
		if len(got) != 2 || got[0].X != 25 || got[1].X != 31 || !strings.Contains(got[0].Label, "with injected lock on pgbench_branches") ||
			strings.Contains(got[0].Label, "active time") {
			t.Errorf("%s: change markers %+v", c.ID, got)
		}
		for i := 1; i < len(c.Markers); i++ {
			if c.Markers[i].X < c.Markers[i-1].X {
				t.Errorf("%s: markers out of order", c.ID)
			}
		}
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `"kind":"change"`) {
		t.Error("the HTML report has no change marker")
	}
}
