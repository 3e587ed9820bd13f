package experiment

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/gate"
	"github.com/pgtrial/pgtrial/internal/results"
)

// TestParseGate: gate: as one string or a list, into Spec.Gate.
func TestParseGate(t *testing.T) {
	base := "load: {closed: true}\nvariants: [{name: a}, {name: b}]\n"
	for _, tc := range []struct{ gate, want string }{
		{`gate: "tps<-3%,p99>+5%"`, "tps<-3% p99>+5%"},
		{"gate: tps<-3%", "tps<-3%"},
		{"gate: [\"tps<-3%\", 'p99 > 5%']", "tps<-3% p99>+5%"},
		{"gate:\n  - tps<-3%\n  - p99.9>+20%,max>+50%", "tps<-3% p99.9>+20% max>+50%"},
	} {
		s, err := Parse("gate.yaml", []byte(base+tc.gate+"\n"))
		if err != nil {
			t.Errorf("%s: %v", tc.gate, err)
			continue
		}
		var got []string
		for _, r := range s.Gate {
			got = append(got, r.String())
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: rules %v, want %s", tc.gate, got, tc.want)
		}
	}
}

// TestParseGateErrors: a rule that does not parse is reported at its
// file:line:column; a gate without variants to compare is refused.
func TestParseGateErrors(t *testing.T) {
	base := "load: {closed: true}\nvariants: [{name: a}, {name: b}]\n"
	for _, tc := range []struct{ src, want string }{
		{base + "gate: p99>>5%\n", "gate.yaml:3:11: gate: expected a number"},
		{base + "gate: \"tps<-3%,p99>>5%\"\n", "gate.yaml:3:20: gate: expected a number"},
		{base + "gate:\n  - tps<-3%\n  - tps<-5%\n", "gate.yaml:5:5: gate: a second rule < for tps"},
		{base + "gate: []\n", "gate.yaml:3:7: gate: empty"},
		{base + "gate: {tps: 3}\n", "gate.yaml:3:7: gate: expected"},
		{"load: {closed: true}\ngate: tps<-3%\n", "gate.yaml:2:1: gate: a gate judges each variant against the first"},
		{"load: {ramp: {by: clients, from: 1, to: 4, steps: 2}}\nvariants: [{name: a}, {name: b}]\ngate: tps<-3%\n", "gate.yaml:3:1: gate: a gate judges variants at one load"},
	} {
		_, err := Parse("gate.yaml", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want …%s…", tc.src, err, tc.want)
		}
	}
}

// TestAnalyseGate: the file's gate is judged on each variant against the
// first and recorded in experiment.json's gate.
func TestAnalyseGate(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	rec := &Record{Interleave: true, Variants: []VariantRecord{{Name: "base"}, {Name: "slow"}, {Name: "same"}}}
	factor := map[string]float64{"base": 1, "slow": 0.85, "same": 1.002}
	n := 0
	for rep := 1; rep <= 5; rep++ {
		for _, v := range rec.Variants {
			n++
			rr := RunRecord{N: n, Variant: v.Name, Repeat: rep, Dir: fmt.Sprintf("runs/%03d-%s-%d", n, v.Name, rep)}
			tps := 1000 * factor[v.Name] * (1 + 0.003*float64(rep%3))
			run := &results.Run{StartedAt: t0.Add(time.Duration(n) * time.Minute), Workload: results.Workload{Name: "tpcb-like"},
				Model: results.Model{Kind: results.ModelClosed, Clients: 8}}
			d, err := results.Create(filepath.Join(dir, rr.Dir), run)
			if err != nil {
				t.Fatal(err)
			}
			run.Summary = &results.Summary{Total: results.ScriptSummary{Committed: 60000, TPS: tps,
				Response: results.Percentiles{P50: 2, P95: 5, P99: 8, P999: 12, Max: 20}}}
			if err := d.Finish(run); err != nil {
				t.Fatal(err)
			}
			rr.TPS = tps
			rec.Runs = append(rec.Runs, rr)
		}
	}
	rules, err := gate.Parse("tps<-3%")
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{spec: &Spec{Protocol: Protocol{Repeats: 5, Interleave: true}, Gate: rules}, env: Env{Dir: dir}, rec: rec}
	r.analyse()
	if len(rec.Gate) != 2 {
		t.Fatalf("%d gate results, want one per variant against the first", len(rec.Gate))
	}
	if g := rec.Gate[0]; g.NameB != "slow" || g.Outcome != gate.Fail {
		t.Errorf("slow: %s %s, want fail: %s", g.NameB, g.Outcome, g.Rules[0].Why)
	}
	if g := rec.Gate[1]; g.NameB != "same" || g.Outcome != gate.Pass {
		t.Errorf("same: %s %s, want pass: %s", g.NameB, g.Outcome, g.Rules[0].Why)
	}
}
