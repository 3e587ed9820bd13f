package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// tpccExperiment is a TPC-C-like experiment of two variants: a passes
// everything in its two runs; b has one run without NOPM, failing payment's
// limit and a consistency condition, and one not checked.
func tpccExperiment() *experiment.Record {
	types := func(pass, fail int, p90 ...float64) []experiment.TPCCTypeSummary {
		return []experiment.TPCCTypeSummary{
			{Name: "new-order", LimitMs: 5000, P90Ms: stats.Summarize([]float64{12, 14}), Pass: pass + fail},
			{Name: "payment", LimitMs: 5000, P90Ms: stats.Summarize(p90), Pass: pass, Fail: fail, Failed: 3},
		}
	}
	const note = "throughput mode: not comparable with published tpmC"
	return &experiment.Record{
		Name: "tpcc", Workload: "tpcc", Warehouses: 1, Model: "closed", Clients: 2, Repeats: 2, WarmupS: 1, WindowS: 3,
		Target:   results.Target{Host: "127.0.0.1", Port: 5432, Database: "bench", ServerVersion: "15.8"},
		Loaded:   &experiment.TablesLoaded{Workload: "tpcc", Warehouses: 1, Seed: 1, Command: "pgtrial init -w tpcc --warehouses 1 --seed 1", DurationS: 4.2},
		Variants: []experiment.VariantRecord{{Name: "a"}, {Name: "b"}},
		Runs: []experiment.RunRecord{{N: 1, Variant: "a", TPS: 300}, {N: 2, Variant: "b", TPS: 310},
			{N: 3, Variant: "a", TPS: 305}, {N: 4, Variant: "b", TPS: 290}},
		TPCC: []experiment.TPCCSummary{
			{Variant: "a", Mode: "throughput", Warehouses: 1, Note: note, Runs: []int{1, 3},
				TpmC: stats.Summarize([]float64{9000, 9600}), NOPM: stats.Summarize([]float64{8910, 9504}),
				Ratio: stats.Summarize([]float64{0.99, 0.99}), ExpectedRatio: 0.99, Agree: 2, LimitsMet: 2,
				Types: types(2, 0, 20, 30), Consistency: experiment.TPCCConsistency{Pass: 2}},
			{Variant: "b", Mode: "throughput", Warehouses: 1, Note: note, Runs: []int{2, 4},
				TpmC: stats.Summarize([]float64{9200, 8800}), NOPM: stats.Summarize([]float64{9100}),
				Ratio: stats.Summarize([]float64{0.989}), ExpectedRatio: 0.99, Agree: 1, NOPMMissing: []string{"run 4: sum(d_next_o_id) was not sampled"},
				LimitsMet: 1, Types: types(1, 1, 40, 6000),
				Consistency: experiment.TPCCConsistency{Failed: []int{2}, Skipped: []string{"run 4: the run was interrupted"}}},
		},
	}
}

// TestTPCCExperimentSummary: the experiment's summary (text and Markdown)
// has the load, the warehouses, tpmC, NOPM and their ratio as median
// (min–max), the limits and the checks counted over the runs, and the
// mode said once.
func TestTPCCExperimentSummary(t *testing.T) {
	rec := tpccExperiment()
	var text, md bytes.Buffer
	if err := WriteText(&text, Experiment(rec, "d")); err != nil {
		t.Fatal(err)
	}
	doc, err := ExperimentReport("d", rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{
		"tpcc (1 warehouse) on 127.0.0.1:5432/bench",
		"tables loaded before the runs in 4.2 s: pgtrial init -w tpcc --warehouses 1 --seed 1",
		"TPC-C-like per variant (throughput mode, 1 warehouse; median (min–max) over the runs): not comparable with published tpmC",
		"9300.0 (9000.0–9600.0)",
		"9207.0 (8910.0–9504.0)",
		"0.990",
		"2 of 2",
		"pass in 2 of 2 runs",
		"FAILED in run 2; pass in 0 of 2 runs; not checked in run 4: the run was interrupted",
		"1 of 2 runs (payment missed in 1)",
		"NOPM missing in run 4: sum(d_next_o_id) was not sampled",
		"TPC-C 90th-percentile response-time limits per variant",
		"3020 (40.0–6000)",
		"1 of 2 runs",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "throughput mode"); n != 1 {
		t.Errorf("\"throughput mode\" %d times, want once:\n%s", n, out)
	}
	if m := strings.ReplaceAll(md.String(), `\_`, "_"); !strings.Contains(m, "TPC-C-like per variant (") || !strings.Contains(m, "| a | 9300.0 (9000.0–9600.0) |") {
		t.Errorf("report.md lacks the TPC-C table:\n%s", m)
	}
	rec.TPCC = nil
	if blocks := TPCCExperimentBlocks(rec); blocks != nil {
		t.Errorf("no tpcc summary: %d blocks, want none", len(blocks))
	}
}
