package experiment

import (
	"strings"
	"testing"
)

func TestSpecTPCCWorkload(t *testing.T) {
	s, err := Parse("x.yaml", []byte("load: {closed: true}\nworkload: {builtin: tpcc, warehouses: 4, mode: spec}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Workload; w.Builtin != "tpcc-spec" || w.TPCCMode != "spec" || w.Warehouses != 4 {
		t.Errorf("workload %+v, want the tpcc-spec mix, spec mode, 4 warehouses", w)
	}
	s, err = Parse("x.yaml", []byte("load: {closed: true}\nworkload: {builtin: tpcc}\n"))
	if err != nil || s.Workload.Builtin != "tpcc" || s.Workload.TPCCMode != "throughput" {
		t.Errorf("builtin tpcc: %+v, %v; want throughput mode", s.Workload, err)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"workload: {builtin: tpcb-like, warehouses: 4}", "x.yaml:2:32: workload: warehouses applies to builtin tpcc"},
		{"workload: {builtin: tpcc, mode: fast}", "workload.mode"},
		{"workload: {builtin: tpcc, warehouses: 0}", "workload.warehouses"},
		{"workload: {builtin: tpcc-spec, mode: throughput}", "contradicts builtin tpcc-spec"},
	} {
		_, err := Parse("x.yaml", []byte("load: {closed: true}\n"+tc.yaml+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
