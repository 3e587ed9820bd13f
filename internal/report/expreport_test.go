package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/capacity"
	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/report/chart"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// xss is a variant name from the user's file that would run a script if a
// writer pasted it into HTML.
const xss = "</script><img src=x onerror=alert(1)>"

// figures is every chart of d, by ID, and the kinds in the order drawn.
func figures(t *testing.T, d *Doc) (map[string]*chart.Chart, []*chart.Chart) {
	t.Helper()
	byID := map[string]*chart.Chart{}
	var all []*chart.Chart
	idRe := regexp.MustCompile(`^[a-z0-9-]+$`)
	for _, b := range d.Blocks {
		f, ok := b.(*Figure)
		if !ok {
			continue
		}
		for _, c := range f.Charts {
			if !idRe.MatchString(c.ID) {
				t.Errorf("chart ID %q is not [a-z0-9-]", c.ID)
			}
			if byID[c.ID] != nil {
				t.Errorf("chart ID %q twice", c.ID)
			}
			byID[c.ID] = c
			all = append(all, c)
		}
	}
	return byID, all
}

// chartOf is the chart whose ID is prefix, else the first whose ID starts
// with it, failing without one.
func chartOf(t *testing.T, all []*chart.Chart, prefix string) *chart.Chart {
	t.Helper()
	if i := slices.IndexFunc(all, func(c *chart.Chart) bool { return c.ID == prefix }); i >= 0 {
		return all[i]
	}
	for _, c := range all {
		if strings.HasPrefix(c.ID, prefix) {
			return c
		}
	}
	ids := make([]string, len(all))
	for i, c := range all {
		ids[i] = c.ID
	}
	t.Fatalf("no chart %s… among %v", prefix, ids)
	return nil
}

// abVariants is an experiment of two variants, five open-model runs each,
// B (named like a script tag) slower, with its comparison built by
// compare.Build from the same values.
func abVariants() *experiment.Record {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	tpsA, p99A := []float64{1000, 1010, 990, 1005, 995}, []float64{20, 20.4, 19.8, 20.2, 20.1}
	tpsB, p99B := []float64{700, 705, 698, 702, 699}, []float64{26, 26.5, 25.7, 26.3, 26.1}
	rep := compare.Build(compare.Options{NameA: "base", NameB: xss, Top: compare.DefaultTop},
		cmpSide("base", tpsA, p99A, 4, t0), cmpSide(xss, tpsB, p99B, 6, t0.Add(time.Minute)))
	rec := &experiment.Record{Name: "ab", Workload: "tpcb-like", Model: "open", Rate: 1000, Clients: 8, Repeats: 5,
		Variants:    []experiment.VariantRecord{{Name: "base"}, {Name: xss}},
		Comparisons: []*compare.Report{rep},
		Checks:      []results.Check{{Name: "warmup", Status: "pass", Message: "10 s before every run"}},
		SLOs:        []experiment.SLOResult{{SLO: "p99 ≤ 25ms", Variant: "base", Rate: 1000, Median: 20.1, LimitMs: 25, Met: true, AllMet: true}},
	}
	n := 0
	add := func(v string, tps, p99 []float64) {
		for i := range tps {
			n++
			rec.Runs = append(rec.Runs, experiment.RunRecord{N: n, Variant: v, Repeat: i + 1, Clients: 8, Rate: 1000,
				Dir: fmt.Sprintf("runs/%03d-%s-%d", n, v, i+1), TPS: tps[i], P50: p99[i] / 4, P95: p99[i] / 2, P99: p99[i],
				P999: 2 * p99[i], Max: 4 * p99[i], Checks: "pass"})
		}
	}
	add("base", tpsA, p99A)
	add(xss, tpsB, p99B)
	return rec
}

// TestExperimentReportVariants: the dots of each metric are the runs'
// values per variant, the forest has one row per metric with the primary
// first and the ratio's interval, the runs' table links each run's report,
// the names survive as text and the IDs are sanitised.
func TestExperimentReportVariants(t *testing.T) {
	rec := abVariants()
	// Every run's directory is there but the last one's, whose name then
	// links to nothing.
	dir := t.TempDir()
	for _, r := range rec.Runs[:len(rec.Runs)-1] {
		if err := os.MkdirAll(filepath.Join(dir, r.Dir), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, r.Dir, results.RunFile), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	d, err := ExperimentReport(dir, rec)
	if err != nil {
		t.Fatal(err)
	}
	_, all := figures(t, d)
	for _, m := range []struct {
		id  string
		get func(*experiment.RunRecord) float64
	}{
		{"runs-tps", func(r *experiment.RunRecord) float64 { return r.TPS }},
		{"runs-p50", func(r *experiment.RunRecord) float64 { return r.P50 }},
		{"runs-p99", func(r *experiment.RunRecord) float64 { return r.P99 }},
		{"runs-p99-9", func(r *experiment.RunRecord) float64 { return r.P999 }},
	} {
		c := chartOf(t, all, m.id)
		if c.Kind != chart.Dots || len(c.Groups) != 2 {
			t.Fatalf("%s: kind %s, %d groups", m.id, c.Kind, len(c.Groups))
		}
		for gi, v := range []string{"base", xss} {
			var want chart.Values
			for i := range rec.Runs {
				if rec.Runs[i].Variant == v {
					want = append(want, m.get(&rec.Runs[i]))
				}
			}
			if g := c.Groups[gi]; g.Label != v || !slices.Equal(g.Values, want) {
				t.Errorf("%s group %d: %q %v, want %q %v", m.id, gi, g.Label, g.Values, v, want)
			}
		}
	}
	if slices.ContainsFunc(all, func(c *chart.Chart) bool { return strings.HasPrefix(c.ID, "runs-skipped") }) {
		t.Error("a chart of the skipped share, 0 in every run")
	}
	if p99 := chartOf(t, all, "runs-p99"); len(p99.Refs) != 1 || p99.Refs[0].Value != 25 {
		t.Errorf("p99 dots: refs %+v, want the SLO at 25 ms", p99.Refs)
	}

	forest := chartOf(t, all, "forest-")
	if forest.Kind != chart.Forest || !regexp.MustCompile(`^forest-script-img-src-x-onerror-alert-1-vs-base$`).MatchString(forest.ID) {
		t.Errorf("forest %s %q", forest.Kind, forest.ID)
	}
	rep := rec.Comparisons[0]
	// The shares are 0 on both sides: no ratio, named under the figure.
	if len(forest.Rows) != len(rep.Metrics)-2 {
		t.Fatalf("forest has %d rows, the comparison %d metrics", len(forest.Rows), len(rep.Metrics))
	}
	if r := forest.Rows[0]; !r.Primary || r.Label != "response "+rep.Primary || !strings.HasPrefix(r.Verdict, "primary: ") {
		t.Errorf("first row %+v, want the primary %s", r, rep.Primary)
	}
	var want []string // the metrics' order, the primary moved first
	for _, m := range rep.Metrics {
		if m.Metric != rep.Primary && m.Verdict.A.Median > 0 {
			want = append(want, metricName(&m))
		}
	}
	for i, r := range forest.Rows[1:] {
		if r.Primary || r.Label != want[i] {
			t.Errorf("row %d: %q primary %v, want %q", i+1, r.Label, r.Primary, want[i])
		}
	}
	for _, m := range rep.Metrics {
		i := slices.IndexFunc(forest.Rows, func(r chart.Row) bool { return r.Label == metricName(&m) })
		if i < 0 {
			continue
		}
		r := forest.Rows[i]
		v := m.Verdict
		if v.Ratio.OK && (r.Estimate != v.Ratio.Point || r.Lo != v.Ratio.Lo || r.Hi != v.Ratio.Hi) {
			t.Errorf("%s: row %v [%v, %v], ratio %+v", m.Metric, r.Estimate, r.Lo, r.Hi, v.Ratio)
		}
		if r.Outcome != v.Outcome || !strings.HasSuffix(r.Verdict, v.Text) {
			t.Errorf("%s: row %s %q, verdict %s %q", m.Metric, r.Outcome, r.Verdict, v.Outcome, v.Text)
		}
	}
	// tps: 30 % lower, no interval at Holm's level with 5 runs (the
	// estimate alone); p99, the primary: 30 % higher, its interval above 1.
	if tps := forest.Rows[slices.IndexFunc(forest.Rows, func(r chart.Row) bool { return r.Label == "tps" })]; tps.Estimate > 0.75 || !math.IsNaN(tps.Lo) || !math.IsNaN(tps.Hi) {
		t.Errorf("tps row %+v: the estimate alone", tps)
	}
	if p := forest.Rows[0]; !(p.Lo > 1 && p.Lo < p.Estimate && p.Estimate < p.Hi) || p.Outcome != stats.OutcomeDiffers {
		t.Errorf("primary row %+v: B's p99 is 30 %% higher", p)
	}
	if !slices.ContainsFunc(forest.Refs, func(r chart.Ref) bool { return r.Value == 1 }) || !forest.X.Log {
		t.Errorf("forest refs %+v log %v: want a line at 1 on a log axis", forest.Refs, forest.X.Log)
	}
	ff := d.Blocks[slices.IndexFunc(d.Blocks, func(b Block) bool { f, ok := b.(*Figure); return ok && f.Charts[0] == forest })].(*Figure)
	if len(ff.Notes) != 1 || !strings.HasSuffix(ff.Notes[0], ": skipped+dropped %, failed %") {
		t.Errorf("forest notes %q", ff.Notes)
	}
	if !strings.Contains(forest.Title, xss) {
		t.Errorf("forest title %q lacks the variant's name as text", forest.Title)
	}

	// The forest follows its comparison's verdicts; the runs' table the checklist.
	vi := slices.IndexFunc(d.Blocks, titlePrefix(xss+" against base ("))
	if vi < 0 || vi+1 >= len(d.Blocks) {
		t.Fatal("no verdict block")
	}
	if f, ok := d.Blocks[vi+1].(*Figure); !ok || f.Charts[0] != forest {
		t.Errorf("the block after the verdicts is %T", d.Blocks[vi+1])
	}
	ci := slices.IndexFunc(d.Blocks, isChecklist)
	runs, ok := d.Blocks[ci+1].(*Table)
	if !ok || len(runs.Rows) != 10 {
		t.Fatalf("after the checklist: %T", d.Blocks[ci+1])
	}
	for i, row := range runs.Rows {
		want := rec.Runs[i].Dir + "/report.html"
		if i == len(runs.Rows)-1 {
			want = "" // its directory is gone
		}
		if row[0].Link != want || row[0].Text != strings.TrimPrefix(rec.Runs[i].Dir, "runs/") {
			t.Errorf("run %d: cell %+v, want a link to %s", i+1, row[0], want)
		}
		if row[1].Text != rec.Runs[i].Variant {
			t.Errorf("run %d: variant %q", i+1, row[1].Text)
		}
	}
	if last, ok := d.Blocks[len(d.Blocks)-1].(*Lines); !ok || !strings.HasPrefix(last.Lines[0], "experiment directory: ") {
		t.Errorf("last block %T, want the experiment directory's line", d.Blocks[len(d.Blocks)-1])
	}
	// The text summary's blocks are all there, in their order.
	if got, want := len(d.Blocks), len(Experiment(rec, dir).Blocks)+3; got != want {
		t.Errorf("%d blocks, want the summary's and 3 (dots, forest, runs)", got)
	}
	checkMarkdown(t, d, "runs/001-base-1/report.html", "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;")
}

// TestRunLink: a run's report is linked only inside the experiment directory.
func TestRunLink(t *testing.T) {
	for dir, want := range map[string]string{
		"runs/003-b-1": "runs/003-b-1/report.html", "runs/x/../y": "runs/y/report.html",
		"/abs/runs/1": "", "../elsewhere": "", "": "", ".": "",
	} {
		if got := runLink(dir); got != want {
			t.Errorf("runLink(%q) = %q, want %q", dir, got, want)
		}
	}
}

// TestChartIDs: IDs are [a-z0-9-], never empty, unique.
func TestChartIDs(t *testing.T) {
	ids := &chartIDs{}
	for _, c := range []struct{ in, want string }{
		{"runs-p99.9", "runs-p99-9"}, {xss, "script-img-src-x-onerror-alert-1"}, {xss, "script-img-src-x-onerror-alert-1-2"},
		{"---", "chart"}, {"Ünïcode ВАР", "n-code"}, {"", "chart-2"},
	} {
		if got := ids.id(c.in); got != c.want {
			t.Errorf("id(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// rampTwoVariants is a ramp of 3 rate levels for two variants, with waits.
func rampTwoVariants() *experiment.Record {
	rec := &experiment.Record{Name: "ramp", Workload: "tpcb-like", Model: "ramp", Repeats: 1,
		Variants: []experiment.VariantRecord{{Name: "a"}, {Name: xss}}}
	n := 0
	for _, v := range []string{"a", xss} {
		for i, lvl := range []float64{100, 200, 300} {
			n++
			rec.Runs = append(rec.Runs, experiment.RunRecord{N: n, Variant: v, Phase: "step", Level: lvl, Rate: lvl, Dir: fmt.Sprintf("runs/%03d", n), TPS: lvl})
			w := map[string]float64{"CPU": 0.5, "IO": 0.1 * float64(i+1)}
			if i == 2 {
				w["Lock"] = 0.3
			}
			if v == xss && i == 1 {
				w = nil // no wait samples at this level
			}
			rec.Ramp = append(rec.Ramp, experiment.RampLevel{Variant: v, Level: lvl, Runs: []string{v + "#1"}, TPS: lvl * 0.99, P50: lvl / 100, P99: lvl / 10, Waits: w})
		}
	}
	return rec
}

// TestExperimentReportRamp: tps and p99 per level, one series per
// variant; the waits by type stacked, one chart per variant, a level
// without samples a gap.
func TestExperimentReportRamp(t *testing.T) {
	rec := rampTwoVariants()
	d, err := ExperimentReport("/tmp/ramp", rec)
	if err != nil {
		t.Fatal(err)
	}
	_, all := figures(t, d)
	for _, id := range []string{"ramp-tps", "ramp-p99"} {
		c := chartOf(t, all, id)
		if c.Kind != chart.XY || len(c.Series) != 2 || c.Series[0].Name != "a" || c.Series[1].Name != xss || c.X.Unit != "tx/s" {
			t.Fatalf("%s: %+v", id, c)
		}
		if !slices.Equal(c.Series[1].X, chart.Values{100, 200, 300}) {
			t.Errorf("%s x %v", id, c.Series[1].X)
		}
	}
	if y := chartOf(t, all, "ramp-p99").Series[0].Y; !slices.Equal(y, chart.Values{10, 20, 30}) {
		t.Errorf("p99 per level %v", y)
	}
	wa, wx := chartOf(t, all, "ramp-waits-a"), chartOf(t, all, "ramp-waits-script")
	if len(wa.Series) != 3 || wa.Series[0].Name != "CPU" || wa.Series[0].Stack != "waits" {
		t.Fatalf("waits of a: %+v", wa.Series)
	}
	if lock := wa.Series[2]; lock.Name != "Lock" || !slices.Equal(lock.Y, chart.Values{0, 0, 30}) {
		t.Errorf("Lock of a: %+v", lock)
	}
	if y := wx.Series[0].Y; y[0] != 50 || !math.IsNaN(y[1]) || wx.Title != "waits by type: "+xss {
		t.Errorf("waits of %s: %v %q: a level without samples is a gap", xss, y, wx.Title)
	}
	// The waits' charts are consecutive in one figure.
	i := slices.IndexFunc(d.Blocks, titlePrefix("ramp ("))
	if f1, ok := d.Blocks[i+1].(*Figure); !ok || len(f1.Charts) != 2 {
		t.Errorf("after the ramp table: %T", d.Blocks[i+1])
	}
	if f2, ok := d.Blocks[i+2].(*Figure); !ok || len(f2.Charts) != 2 || f2.Charts[0] != wa {
		t.Errorf("then: %T", d.Blocks[i+2])
	}
}

// TestExperimentReportSearch: the search's probes as points against the
// rate, the SLO as a line, the bracket as a span, the ceiling marked.
func TestExperimentReportSearch(t *testing.T) {
	step := func(n int, phase string, rate float64, p99ms float64, pass bool) capacity.Step {
		return capacity.Step{N: n, Phase: phase, Pass: pass, Probe: capacity.Probe{Kind: capacity.KindOpen, Rate: rate, Achieved: rate,
			Quantile: time.Duration(p99ms * float64(time.Millisecond))}}
	}
	res := &capacity.Result{Config: capacity.Config{Quantile: 0.99, Limit: 50 * time.Millisecond}, Ceiling: 1000,
		Steps: []capacity.Step{step(4, capacity.PhaseFraction, 300, 5, true), step(5, capacity.PhaseFraction, 600, 12, true),
			step(6, capacity.PhaseFraction, 900, 4000, false), step(7, capacity.PhaseBisect, 750, 30, true), step(8, capacity.PhaseBisect, 825, 90, false)},
		Low: 750, High: 825, Stopped: capacity.StopPrecision}
	rec := &experiment.Record{Name: "s", Workload: "tpcb-like", Model: "search", Clients: 8, Search: res,
		Variants: []experiment.VariantRecord{{Name: "default"}}}
	d, err := ExperimentReport("/tmp/s", rec)
	if err != nil {
		t.Fatal(err)
	}
	_, all := figures(t, d)
	c := chartOf(t, all, "search-p99")
	if c.Kind != chart.XY || len(c.Series) != 2 || !c.Series[0].Points || !c.Series[1].Points {
		t.Fatalf("search chart %+v", c)
	}
	if !slices.Equal(c.Series[0].X, chart.Values{300, 600, 750}) || !slices.Equal(c.Series[1].Y, chart.Values{4000, 90}) {
		t.Errorf("probes: %+v", c.Series)
	}
	if len(c.Refs) != 1 || c.Refs[0].Value != 50 || len(c.Spans) != 1 || c.Spans[0].From != 750 || c.Spans[0].To != 825 || !c.Y.Log {
		t.Errorf("refs %+v spans %+v log %v", c.Refs, c.Spans, c.Y.Log)
	}
	if !slices.ContainsFunc(c.Markers, func(m chart.Marker) bool { return m.X == 1000 }) {
		t.Errorf("markers %+v: no ceiling", c.Markers)
	}
	if slices.ContainsFunc(all, func(c *chart.Chart) bool { return c.Kind == chart.Dots }) {
		t.Error("a search has per-variant dots")
	}
}

// TestExperimentReportDemo: the demo's levels as p50/p95/p99 against the
// rate (the repeats as points, the medians as lines) after the levels'
// table; the stall runs without directories give a note, not an error.
func TestExperimentReportDemo(t *testing.T) {
	rec := demoRecord()
	d, err := ExperimentReport("/tmp/demo", rec)
	if err != nil {
		t.Fatal(err)
	}
	_, all := figures(t, d)
	c := chartOf(t, all, "demo-levels")
	if c.Kind != chart.XY || len(c.Series) != 6 || c.X.Unit != "tx/s" {
		t.Fatalf("demo chart %+v", c)
	}
	p50, p50m := c.Series[0], c.Series[1]
	if !p50.Points || !slices.Equal(p50.X, chart.Values{300, 300, 300, 600, 600, 600}) || !slices.Equal(p50.Y, chart.Values{1.1, 1.2, 1.3, 2, 2, 2}) {
		t.Errorf("p50 repeats %+v", p50)
	}
	if p50m.Points || !slices.Equal(p50m.X, chart.Values{300, 600}) || !slices.Equal(p50m.Y, chart.Values{1.2, 2}) {
		t.Errorf("p50 medians %+v", p50m)
	}
	if p99 := c.Series[5]; p99.Name != "p99 (median)" || !slices.Equal(p99.Y, chart.Values{3, 40}) {
		t.Errorf("p99 medians %+v", p99)
	}
	i := slices.IndexFunc(d.Blocks, titlePrefix(demoLevelsTitle))
	if f, ok := d.Blocks[i+1].(*Figure); i < 0 || !ok || f.Charts[0] != c {
		t.Errorf("the chart does not follow the levels' table")
	}
	si := slices.IndexFunc(d.Blocks, titlePrefix("stall ("))
	if n, ok := d.Blocks[si+1].(*Notes); si < 0 || !ok || len(n.Lines) != 2 || !strings.Contains(n.Lines[0], "names no run directory") {
		t.Errorf("after the stall table: %#v", d.Blocks[si+1])
	}
	if slices.ContainsFunc(all, func(c *chart.Chart) bool { return c.Kind == chart.Spectrum }) {
		t.Error("a spectrum without run directories")
	}
}

// writeRunDir writes a run directory as a run does (results.Create,
// WriteInterval, Finish): 2 measured intervals of n transactions, slow of
// them per interval at slowMs, the others 1–2 ms.
func writeRunDir(t *testing.T, dir string, model results.Model, n, slow int, slowMs int64) {
	t.Helper()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	run := &results.Run{StartedAt: t0, Workload: results.Workload{Name: "tpcb-like"}, Model: model}
	d, err := results.Create(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.NewSet(1, metrics.Layout{Scripts: 1})
	rec := s.Recorder(0)
	measure := metrics.NewInterval(s.Layout())
	for i := range 2 {
		for j := range n {
			us := 1000 + int64(j%1000)
			if j < slow {
				us = slowMs * 1000
			}
			rec.Record(&metrics.Tx{Outcome: metrics.Committed, Tries: 1, Response: us, Service: us})
		}
		start := t0.Add(time.Duration(i) * time.Second)
		iv := s.Tick(start, start.Add(time.Second))
		measure.Merge(iv)
		if err := d.WriteInterval(results.PhaseMeasure, iv, nil); err != nil {
			t.Fatal(err)
		}
	}
	sum := results.Summarize(measure, nil, 0)
	run.Summary = &sum
	run.Phases = []results.Phase{{Name: results.PhaseMeasure, Start: t0, End: t0.Add(2 * time.Second)}}
	run.EndedAt = t0.Add(2 * time.Second)
	if err := d.Finish(run); err != nil {
		t.Fatal(err)
	}
}

// TestExperimentReportStallSpectrum: the stall comparison's two spectra
// are read from the runs' directories: the open run's tail shows the
// stall (its p99.9 is the slow transactions'), the closed run's does not;
// each series' last quantile is 1 − 1/n.
func TestExperimentReportStallSpectrum(t *testing.T) {
	dir := t.TempDir()
	rec := demoRecord()
	for i := range rec.Runs {
		switch rec.Runs[i].Variant {
		case experiment.DemoStallClosed:
			rec.Runs[i].Dir = "runs/013-stall-closed"
			writeRunDir(t, filepath.Join(dir, rec.Runs[i].Dir), results.Model{Kind: results.ModelClosed, Clients: 8}, 1000, 1, 5000)
		case experiment.DemoStallOpen:
			rec.Runs[i].Dir = "runs/014-stall-open"
			writeRunDir(t, filepath.Join(dir, rec.Runs[i].Dir), results.Model{Kind: results.ModelOpen, Clients: 8, Rate: 600}, 1000, 50, 5000)
		}
	}
	d, err := ExperimentReport(dir, rec)
	if err != nil {
		t.Fatal(err)
	}
	_, all := figures(t, d)
	c := chartOf(t, all, "stall-spectrum")
	if c.Kind != chart.Spectrum || len(c.Series) != 2 || c.Series[0].Name != "closed model" || c.Series[1].Name != "open model at 600 tx/s" {
		t.Fatalf("spectrum %+v", c)
	}
	at := func(s chart.Series, q float64) float64 {
		for i, x := range s.X {
			if x >= q-1e-9 {
				return s.Y[i]
			}
		}
		return math.NaN()
	}
	closed, open := c.Series[0], c.Series[1]
	for _, s := range []chart.Series{closed, open} {
		if last := s.X[len(s.X)-1]; math.Abs(last-(1-1.0/2000)) > 1e-12 || s.X[0] != 0 {
			t.Errorf("%s: quantiles %v … %v, want 0 … 1 − 1/2000", s.Name, s.X[0], last)
		}
		if !slices.IsSorted(s.Y) || s.Y[0] < 0.9 || s.Y[0] > 1.1 {
			t.Errorf("%s: latencies %v: want increasing from ~1 ms", s.Name, s.Y)
		}
	}
	if q := at(closed, 0.99); q > 2.1 {
		t.Errorf("closed p99 %v ms, want ~2 ms", q)
	}
	if q := at(open, 0.99); q < 4900 || q > 5100 {
		t.Errorf("open p99 %v ms, want ~5 s (5 %% of its transactions)", q)
	}
	if n := slices.IndexFunc(d.Blocks, func(b Block) bool { n, ok := b.(*Notes); return ok && n.Prefix == "note: " }); n >= 0 {
		t.Errorf("a note with both directories there: %+v", d.Blocks[n])
	}
	// A directory gone gives the other run's spectrum and a note.
	if err := os.RemoveAll(filepath.Join(dir, "runs/013-stall-closed")); err != nil {
		t.Fatal(err)
	}
	d, err = ExperimentReport(dir, rec)
	if err != nil {
		t.Fatal(err)
	}
	_, all = figures(t, d)
	if c := chartOf(t, all, "stall-spectrum"); len(c.Series) != 1 || c.Series[0].Name != "open model at 600 tx/s" {
		t.Errorf("spectrum with one directory: %+v", c.Series)
	}
	md := checkMarkdown(t, d)
	wantAll(t, "markdown", md, "no spectrum of the closed model's run (stall-closed)")
}

// TestStallRuns: the demo's stall variants; in an experiment with an
// injection, its first completed closed and open runs (not a ramp's);
// none without an injection or without both models.
func TestStallRuns(t *testing.T) {
	if c, o := stallRuns(demoRecord()); c == nil || c.Variant != experiment.DemoStallClosed || o.Variant != experiment.DemoStallOpen {
		t.Errorf("demo: %v %v", c, o)
	}
	rec := &experiment.Record{Model: "open", Injections: []experiment.InjectionPlanned{{Kind: "lock", AtS: 5}},
		Runs: []experiment.RunRecord{{N: 1, Phase: "step", Rate: 0}, {N: 2, Error: "refused"}, {N: 3, Rate: 100}, {N: 4}, {N: 5}}}
	if c, o := stallRuns(rec); c == nil || c.N != 4 || o.N != 3 {
		t.Errorf("experiment: %v %v", c, o)
	}
	rec.Runs = rec.Runs[:3]
	if c, o := stallRuns(rec); c != nil || o != nil {
		t.Errorf("one model: %v %v", c, o)
	}
	rec = demoRecord()
	rec.Runs = rec.Runs[:len(rec.Runs)-1]
	if c, o := stallRuns(rec); c != nil || o != nil {
		t.Errorf("demo without the open stall run: %v %v", c, o)
	}
}

// TestExperimentReportInterrupted: an interrupted experiment says so at
// the top, right after the header, and "ended early" moves there.
func TestExperimentReportInterrupted(t *testing.T) {
	rec := abVariants()
	rec.Interrupted, rec.Reason, rec.Error = true, "SIGINT", "interrupted by SIGINT during run 7"
	rec.Runs[6].Interrupted = true
	d, err := ExperimentReport("/tmp/ab", rec)
	if err != nil {
		t.Fatal(err)
	}
	n, ok := d.Blocks[1].(*Notes)
	if !ok || len(n.Lines) != 2 || !strings.Contains(n.Lines[0], "interrupted (SIGINT)") || !strings.Contains(n.Lines[0], "the 9 runs") ||
		n.Lines[1] != "ended early: "+rec.Error {
		t.Fatalf("second block %#v", d.Blocks[1])
	}
	if out := text(t, d); strings.Count(out, "ended early") != 1 {
		t.Errorf("ended early said %d times:\n%s", strings.Count(out, "ended early"), out)
	}
	if _, err := ExperimentReport("/tmp/x", nil); err == nil {
		t.Error("no record: no error")
	}
}

// TestCompareReport: the comparison's table and verdicts, then the forest
// (primary first) and per metric the runs of A and B as dots, the values
// each run's.
func TestCompareReport(t *testing.T) {
	rep := sampleComparison()
	d := CompareReport(rep)
	byID, all := figures(t, d)
	forest := chartOf(t, all, "forest-new-vs-base")
	if len(forest.Rows) != len(rep.Metrics)-2 || !forest.Rows[0].Primary || forest.Rows[0].Label != "response "+rep.Primary {
		t.Errorf("forest rows %+v", forest.Rows)
	}
	for _, m := range rep.Metrics {
		var a, b chart.Values
		for _, v := range m.ValuesA {
			if v != nil {
				a = append(a, *v)
			}
		}
		for _, v := range m.ValuesB {
			if v != nil {
				b = append(b, *v)
			}
		}
		id := (&chartIDs{}).id("runs", m.Metric)
		if !slices.ContainsFunc(a, nonZero) && !slices.ContainsFunc(b, nonZero) {
			if _, ok := byID[id]; ok {
				t.Errorf("%s is 0 in every run, yet has a dots chart", m.Metric)
			}
			continue
		}
		c := chartOf(t, all, id)
		if c.Kind != chart.Dots || c.Groups[0].Label != "base" || !slices.Equal(c.Groups[0].Values, a) || len(c.Groups[1].Values) != len(rep.RunsB) {
			t.Errorf("%s dots %+v, want A %v", m.Metric, c.Groups, a)
		}
	}
	vi := slices.IndexFunc(d.Blocks, titlePrefix("verdicts ("))
	if f, ok := d.Blocks[vi+1].(*Figure); !ok || f.Charts[0] != forest {
		t.Errorf("the forest does not follow the verdicts")
	}
	if _, ok := d.Blocks[vi+2].(*Figure); !ok {
		t.Errorf("the dots do not follow the forest")
	}
	// A record without per-run values draws the sides' sorted values.
	for i := range rep.Metrics {
		rep.Metrics[i].ValuesA, rep.Metrics[i].ValuesB = nil, nil
	}
	_, all = figures(t, CompareReport(rep))
	if c := chartOf(t, all, "runs-tps"); !slices.Equal(c.Groups[0].Values, chart.Values{990, 1000, 1005, 1010}) {
		t.Errorf("tps without per-run values: %v", c.Groups[0].Values)
	}
}

// TestForestFallbacks: the estimate alone without an interval, the ratio
// of medians without a ratio, a note for a metric with neither.
func TestForestFallbacks(t *testing.T) {
	rep := &compare.Report{NameA: "a", NameB: "b", Primary: "tps", Metrics: []compare.Metric{
		{Metric: "p99", Group: "latency", Verdict: stats.VerdictResult{Role: stats.RoleExploratory, Outcome: stats.OutcomeInconclusive,
			Ratio: stats.Interval{Point: 1.2}, Text: "p99 inconclusive"}},
		{Metric: "failed %", Group: "outcomes", Verdict: stats.VerdictResult{Role: stats.RoleExploratory,
			A: stats.Summary{N: 3, Median: 0}, B: stats.Summary{N: 3, Median: 1}, Diff: stats.Interval{OK: true, Point: 1}}},
		{Metric: "max", Group: "latency", Verdict: stats.VerdictResult{Role: stats.RoleExploratory,
			A: stats.Summary{N: 3, Median: 10}, B: stats.Summary{N: 3, Median: 15}}},
		{Metric: "tps", Group: "throughput", Verdict: stats.VerdictResult{Role: stats.RolePrimary, Outcome: stats.OutcomeEquivalent,
			Ratio: stats.Interval{OK: true, Point: 1, Lo: 0.98, Hi: 1.02}, Text: "equivalent"}},
	}}
	f := forestFigure(rep, &chartIDs{})
	rows := f.Charts[0].Rows
	if len(rows) != 3 || rows[0].Label != "tps" || rows[1].Estimate != 1.2 || !math.IsNaN(rows[1].Lo) || rows[2].Estimate != 1.5 {
		t.Errorf("rows %+v", rows)
	}
	if len(f.Notes) != 1 || !strings.HasSuffix(f.Notes[0], ": failed %") {
		t.Errorf("notes %q", f.Notes)
	}
	if forestFigure(&compare.Report{}, &chartIDs{}) != nil {
		t.Error("a forest without metrics")
	}
}

// TestExperimentReportWriteFiles: a report with every kind of figure is
// written whole (report.html, report.md, one SVG per chart).
func TestExperimentReportWriteFiles(t *testing.T) {
	dir := t.TempDir()
	rec := abVariants()
	rec.Ramp = rampTwoVariants().Ramp
	d, err := ExperimentReport(dir, rec)
	if err != nil {
		t.Fatal(err)
	}
	_, all := figures(t, d)
	w, err := WriteFiles(dir, d)
	if err != nil {
		t.Fatal(err)
	}
	if w.Charts != len(all) {
		t.Errorf("%d SVG files, %d charts", w.Charts, len(all))
	}
	for _, c := range all {
		if _, err := os.Stat(filepath.Join(dir, ChartPath(c))); err != nil {
			t.Error(err)
		}
	}
	for _, p := range []string{w.HTML, w.Markdown} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
}
