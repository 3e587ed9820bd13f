package checks

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

func TestTPCCItems(t *testing.T) {
	item := func(cs []results.Check, name string) results.Check {
		for _, c := range cs {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no %s in %+v", name, cs)
		return results.Check{}
	}
	pass := []results.TPCCCheck{{Condition: 1, Pass: true}, {Condition: 2, Pass: true}}
	cases := []struct {
		tpcc             results.TPCC
		mode, cons, frag string
	}{
		{results.TPCC{Mode: "spec", Warehouses: 1, Clients: 20, Checks: pass}, Warn, Pass, "need ≥ 2 warehouses"},
		{results.TPCC{Mode: "spec", Warehouses: 2, Clients: 20, Checks: pass}, Pass, Pass, "≤ 10 terminals per warehouse"},
		{results.TPCC{Mode: "throughput", Warehouses: 1, Clients: 64, Checks: []results.TPCCCheck{{Condition: 1}, {Condition: 3, Pass: true}}}, Pass, Fail, "not comparable with audited"},
		{results.TPCC{Mode: "throughput", ChecksSkipped: "--no-check"}, Pass, Warn, "not comparable"},
	}
	for _, tc := range cases {
		cs := RunChecks(&results.Run{TPCC: &tc.tpcc}, nil, nil)
		m, c := item(cs, ItemTPCCMode), item(cs, ItemTPCCConsistency)
		if m.Status != tc.mode || !strings.Contains(m.Message, tc.frag) {
			t.Errorf("%+v: mode item %s %q, want %s with %q", tc.tpcc, m.Status, m.Message, tc.mode, tc.frag)
		}
		if c.Status != tc.cons {
			t.Errorf("%+v: consistency item %s %q, want %s", tc.tpcc, c.Status, c.Message, tc.cons)
		}
	}
	for _, c := range RunChecks(&results.Run{}, nil, nil) {
		if strings.HasPrefix(c.Name, "tpcc") {
			t.Errorf("a run without tpcc has %s", c.Name)
		}
	}
}
