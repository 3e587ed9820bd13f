package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

func tpccFixture() *results.TPCC {
	return &results.TPCC{
		Mode: "throughput", Warehouses: 4, Clients: 8, Note: "throughput mode: not comparable with published tpmC",
		MeasuredS: 60, NewOrders: 12000, TpmC: 12000, NOPM: 11880, NextOIDStart: 120040, NextOIDEnd: 131920,
		ExpectedRatio: 0.99, Ratio: 0.99, Agree: true,
		Types: []results.TPCCType{
			{Name: "new-order", Committed: 12000, P90Ms: 12.5, LimitMs: 5000, Pass: true},
			{Name: "payment", Committed: 11000, P90Ms: 6100, LimitMs: 5000, Failed: 4, FailedBy: map[string]int64{"serialization": 3, "deadlock": 1}, Retried: 2, Retries: 3},
			{Name: "delivery", Committed: 1000, P90Ms: 40, LimitMs: 80000, Pass: true, Note: "executed in-line"},
		},
		Checks: []results.TPCCCheck{
			{Condition: 1, What: "W_YTD = sum(D_YTD) per warehouse", Checked: 4, Failures: []string{"condition 1: warehouse 3: W_YTD 300000.00 ≠ sum(D_YTD) 300012.50"}, Violations: 1},
			{Condition: 2, What: "D_NEXT_O_ID − 1 = max(O_ID) = max(NO_O_ID) per district", Checked: 40, Pass: true},
		},
	}
}

func TestTPCCInRunSummaryAndReport(t *testing.T) {
	v := &RunView{Workload: "tpcc", Model: "closed model, 8 clients", Closed: true, Measured: true,
		Summary: &results.Summary{Duration: 60}, Run: &results.Run{TPCC: tpccFixture()}, Dir: "d"}
	var text, md bytes.Buffer
	if err := WriteText(&text, Run(v)); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, Run(v)); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{text.String(), strings.ReplaceAll(md.String(), `\_`, "_")} {
		for _, want := range []string{
			"TPC-C-like (throughput mode, 4 warehouses, 8 clients): not comparable with published tpmC",
			"tpmC-like 12000.0 New-Orders/min",
			"NOPM 11880.0",
			"NOPM/tpmC 0.990, expected 0.99 (1 % rolled back): they agree within 10 %",
			"deadlock 1, serialization 3",
			"FAIL",
			"delivery: executed in-line",
			"condition 1 FAILED",
			"condition 1: warehouse 3: W_YTD 300000.00 ≠ sum(D_YTD) 300012.50",
			"condition 2 pass",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in:\n%s", want, out)
			}
		}
		if n := strings.Count(out, "throughput mode"); n != 1 {
			t.Errorf("\"throughput mode\" %d times, want once:\n%s", n, out)
		}
	}
	if blocks := TPCCBlocks(nil); blocks != nil {
		t.Errorf("no tpcc: %d blocks, want none", len(blocks))
	}
	f := tpccFixture()
	f.Checks, f.ChecksSkipped, f.NOPMMissing = nil, "--no-check", "sum(d_next_o_id) was not sampled"
	var b bytes.Buffer
	_ = WriteText(&b, &Doc{Blocks: TPCCBlocks(f)})
	if !strings.Contains(b.String(), "not checked: --no-check") || !strings.Contains(b.String(), "NOPM —: sum(d_next_o_id) was not sampled") {
		t.Errorf("skipped checks and missing NOPM:\n%s", b.String())
	}
}
