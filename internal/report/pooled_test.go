package report

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/compare"
)

// withPooled gives sampleComparison's base side pooled figures (p99 of all
// its transactions 95.5 ms: a stalled run) and its new side none (a run
// without latency.hlog).
func withPooled() *compare.Report {
	rep := sampleComparison()
	rep.PooledA = &compare.Pooled{Runs: 4, Count: 240000}
	rep.PooledB = &compare.Pooled{Missing: []string{"new#2: read latency log: open runs/new-2/latency.hlog: no such file or directory", "new#3: x"}}
	for i := range rep.Metrics {
		m := &rep.Metrics[i]
		if m.Group == "latency" {
			v := 95.5
			if m.Metric == "p50" {
				v = 5
			}
			m.PooledA = &v
		}
	}
	return rep
}

// TestComparePooledColumns: each side's pooled figure beside its median
// for the latencies (blank for the other metrics), missing with the reason
// for a side whose histograms could not all be read, and the footnote that
// says what each figure is and why both are shown.
func TestComparePooledColumns(t *testing.T) {
	out := text(t, Compare(withPooled()))
	wantAll(t, "table", squeeze(out),
		"metric base median (min–max) base pooled new median (min–max) new pooled new/base [interval] MW p verdict\n",
		"\n* p99 ms 20.100 (19.800–20.400) 95.500 26.150 (25.700–26.500) — 1.30 [1.26, 1.34] 0.029 new slower\n",
		"\np50 ms 5.025 (4.950–5.100) 5.000 6.537 (6.425–6.625) — ",
		"\ntps 1002.5 (990.0–1010.0) 701.0 (698.0–705.0) 0.70 [—] 0.029 inconclusive\n",
		"no pooled figure for new: new#2: read latency log: open runs/new-2/latency.hlog: no such file or directory (and 1 other run)",
		"pooled = the percentile of all the side's transactions, the runs' histograms merged (base: 240,000 transactions of 4 runs)",
		"One stalled run in five moves the pooled p99 a lot and the median of the runs' p99s little, so both are shown",
	)
	checkMarkdown(t, Compare(withPooled()), "| base pooled |")

	// Neither side pooled: no columns, one line with the reasons.
	rep := sampleComparison()
	out = text(t, Compare(rep))
	if strings.Contains(out, " pooled ") && !strings.Contains(out, "no pooled latency figures") {
		t.Errorf("pooled columns without pooled figures:\n%s", out)
	}
	wantAll(t, "report without histograms", out, "no pooled latency figures (the runs' histograms merged): base#1: ", " (and 3 other runs); new#1: ")
}

// TestExperimentPooledColumns: the variant table shows the pooled p99 and
// p99.9 of each variant from the comparisons, and missing with the reason
// for a variant without.
func TestExperimentPooledColumns(t *testing.T) {
	rec := twoVariants()
	c := rec.Comparisons[0]
	p99, p999 := 5100.0, 5200.0
	c.PooledA = &compare.Pooled{Runs: 1, Count: 60000}
	c.PooledB = &compare.Pooled{Missing: []string{"b#1: no latency.hlog"}}
	c.Metrics = append(c.Metrics,
		compare.Metric{Metric: "p99", Group: "latency", PooledA: &p99},
		compare.Metric{Metric: "p99.9", Group: "latency", PooledA: &p999})
	out := text(t, Experiment(rec, "/tmp/x"))
	wantAll(t, "the summary", squeeze(out),
		"variant runs tps p50 ms p95 ms p99 ms p99 pooled p99.9 ms p99.9 pooled skipped+dropped %\n",
		"\na 1 499.5 1.50 3.00 4980 5100 5010 5200 0.1\n",
		"\nb 1 500.2 1.20 2.50 4870 — 4990 — 0\n",
		"no pooled figure for b: b#1: no latency.hlog",
		"no pooled figure for none_ran: it is in no comparison",
		"One stalled run in five moves the pooled p99 a lot",
	)
}
