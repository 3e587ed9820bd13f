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

// TestYCSBBlocksProbe: with the probe's variables in run.json, the
// expectation is over the probe's records, not usertable's row estimate
// (which the inserts moved), the distribution is the probe's (latest over
// uniform, scrambled=0 the plain zipfian), uniform draws over 0..maxkey,
// and latest is simulated from maxkey+1 keys with the scripts' inserts.
func TestYCSBBlocksProbe(t *testing.T) {
	const draws = 50000
	top := make([]int64, 1000)
	for i := range top {
		top[i] = 20
	}
	run := &results.Run{
		CommandLine: []string{"pgtrial", "run", "-b", "ycsb-a", "-D", "records=7"},
		Workload: results.Workload{Name: "ycsb-a", Scripts: []results.ScriptWeight{{Name: "read", Weight: 95}, {Name: "insert", Weight: 5}}, Probe: map[string]string{
			"records": "100000", "fields": "10", "field_length": "100", "maxkey": "102483", "uniform": "0", "latest": "0", "scrambled": "1"}},
		Server:  &results.ServerInfo{Tables: []results.TableSize{{Name: "usertable", Rows: 102484}}},
		Tallies: []results.Tally{{Name: "key", Draws: draws, Distinct: 40000, TopCounts: top}},
	}
	for _, c := range []struct {
		set  map[string]string
		want string
	}{
		{nil, "hottest 1 % of keys (1000 keys): 40.0 % of operations (expected "},
		{nil, " for zipfian θ=0.99 over 100000 records)"},
		{map[string]string{"scrambled": "0"}, " for unscrambled zipfian θ=0.99 over 100000 records)"},
		{map[string]string{"uniform": "1"}, "hottest 1 % of keys (1024 keys)"},
		{map[string]string{"uniform": "1"}, " for uniform over 102484 keys)"},
		{map[string]string{"uniform": "1", "latest": "true"}, " for latest θ=0.99 from 102484 keys, 5 % inserts moving the newest)"},
	} {
		p := map[string]string{}
		for k, v := range run.Workload.Probe {
			p[k] = v
		}
		for k, v := range c.set {
			p[k] = v
		}
		r := *run
		r.Workload.Probe = p
		if got := textOf(t, Run(&RunView{Run: &r})); !strings.Contains(got, c.want) {
			t.Errorf("probe %v: want %q in\n%s", c.set, c.want, got)
		}
	}
	// A run written before the probe was recorded: the estimate, as before.
	old := *run
	old.Workload.Probe = nil
	old.CommandLine = nil
	if got := textOf(t, Run(&RunView{Run: &old})); !strings.Contains(got, "over 102484 records)") {
		t.Errorf("old run without -D: want the row estimate:\n%s", got)
	}
	for _, c := range []struct {
		s    string
		want bool
	}{{"1", true}, {"0", false}, {"t", true}, {"yes", true}, {"off", false}, {"", false}, {"null", false}, {"2.5", true}, {"x", false}} {
		if varTrue(c.s) != c.want {
			t.Errorf("varTrue(%q) = %v", c.s, !c.want)
		}
	}
}
