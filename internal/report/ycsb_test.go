package report

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// TestYCSBBlocks renders the hot-key line of a synthetic run whose tally
// is exactly the expectation's, and without the record count.
func TestYCSBBlocks(t *testing.T) {
	const records, draws = 10000, 50000
	exp, err := workload.YCSBHotShare(workload.YCSBZipfian, records, draws, 100)
	if err != nil {
		t.Fatal(err)
	}
	// 100 hottest keys holding exactly the expected share.
	top := make([]int64, 100)
	want := int64(exp.Share*draws + 0.5)
	for i := range top {
		top[i] = want / 100
	}
	top[0] += want % 100
	run := &results.Run{
		CommandLine: []string{"pgtrial", "run", "-b", "ycsb-a", "-D", "records=10000"},
		Workload:    results.Workload{Name: "ycsb-a"},
		Tallies:     []results.Tally{{Name: "key", Draws: draws, Distinct: 9000, TopCounts: top}},
	}
	got := textOf(t, Run(&RunView{Run: run}))
	line := "hottest 1 % of keys (100 keys): "
	if !strings.Contains(got, line) || !strings.Contains(got, "expected ") || !strings.Contains(got, "for zipfian θ=0.99 over 10000 records") {
		t.Fatalf("no hot-key line with expectation:\n%s", got)
	}
	i := strings.Index(got, line)
	rest := got[i+len(line):]
	shown, expected := rest[:strings.Index(rest, " %")], rest[strings.Index(rest, "expected ")+9:]
	expected = expected[:strings.Index(expected, " %")]
	if shown != expected {
		t.Errorf("shown %s %%, expected %s %%: the same counts must render the same share", shown, expected)
	}
	run.CommandLine = []string{"pgtrial", "run", "-b", "ycsb-a", "-D", "uniform=1"}
	if got := textOf(t, Run(&RunView{Run: run})); !strings.Contains(got, "no expectation: the record count is not in run.json") {
		t.Errorf("without records:\n%s", got)
	}
	run.CommandLine = []string{"pgtrial", "run", "-b", "ycsb-d", "-D", "records=10000"}
	run.Workload.Name = "ycsb-d"
	if got := textOf(t, Run(&RunView{Run: run})); !strings.Contains(got, "no expectation for latest") || strings.Contains(got, "expected ") {
		t.Errorf("latest (ycsb-d) must show no fixed-key-space expectation:\n%s", got)
	}
	if b := YCSBBlocks(&results.Run{}); b != nil {
		t.Errorf("a run without tally got %v", b)
	}
}

func textOf(t *testing.T, d *Doc) string {
	t.Helper()
	var b strings.Builder
	if err := WriteText(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
