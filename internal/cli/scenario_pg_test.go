package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

// TestRunScenarios is issue 18's acceptance of concurrent scenarios: a
// reader at 300 tx/s in the open model (select-only, uniform arrivals) and a
// writer of 2 closed clients (simple-update) at once for 10 s: each
// scenario's rate and percentiles are reported apart, and the reader's
// achieved rate is within 1 % of 300 (3,000 intended arrivals in the
// window, 1 % = 30 tx; uniform arrivals, because Poisson's own count over
// 10 s has a standard deviation of √3000 ≈ 55, 1.8 %).
func TestRunScenarios(t *testing.T) {
	url := runTestDB(t)
	dir := filepath.Join(t.TempDir(), "scen")
	out, _ := mustRun(t, 0, "run", url, "-T", "10s", "--warmup", "1s", "--no-collect", "--quiet", "--run-dir", dir,
		"--scenario", "reader: -b select-only --rate 300 --arrival uniform",
		"--scenario", "writer: -b simple-update -c 2 --closed")
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Scenarios) != 2 {
		t.Fatalf("run.json scenarios: %+v", run.Scenarios)
	}
	r, w := run.Scenarios[0], run.Scenarios[1]
	if r.Name != "reader" || r.Kind != results.ModelOpen || r.Rate != 300 || r.Clients != 1 || r.Summary == nil ||
		w.Name != "writer" || w.Kind != results.ModelClosed || w.Clients != 2 || w.Summary == nil {
		t.Fatalf("scenarios: %+v\n%+v", r, w)
	}
	rs, ws := r.Summary, w.Summary
	t.Logf("reader: %.2f tx/s achieved of %.0f, response p50 %.3f p99 %.3f ms; writer: %.1f tx/s, p50 %.3f p99 %.3f ms",
		rs.AchievedRate, rs.TargetRate, rs.Total.Response.P50, rs.Total.Response.P99, ws.AchievedRate, ws.Total.Response.P50, ws.Total.Response.P99)
	if math.Abs(rs.AchievedRate-300)/300 > 0.01 {
		t.Errorf("reader achieved %.2f tx/s, want 300 ± 1 %%", rs.AchievedRate)
	}
	if rs.TargetRate != 300 || ws.TargetRate != 0 || ws.Total.Committed < 100 {
		t.Errorf("targets %v and %v, writer committed %d", rs.TargetRate, ws.TargetRate, ws.Total.Committed)
	}
	if rs.Total.Response.P99 <= 0 || ws.Total.Response.P99 <= 0 || rs.Total.Lag.Count == 0 {
		t.Errorf("percentiles: reader %+v, writer %+v", rs.Total.Response, ws.Total.Response)
	}
	// The scenarios together are the run's total.
	if got := rs.Total.Committed + ws.Total.Committed; got != run.Summary.Total.Committed {
		t.Errorf("scenarios committed %d, the run %d", got, run.Summary.Total.Committed)
	}
	if run.Model.Clients != 3 || run.Model.Kind != results.ModelClosed || len(run.Workload.Scripts) != 2 {
		t.Errorf("model %+v, workload %+v", run.Model, run.Workload)
	}
	for _, want := range []string{"2 concurrent scenarios", "scenario reader (open 300.0 tx/s uniform, 1 client, 1 thread)", "scenario writer (closed, 2 clients, 2 threads)"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"summary, 2 concurrent scenarios", "summary, scenario reader", "summary, scenario writer"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if testing.Verbose() {
		os.Stdout.WriteString(out)
	}
}
