package checks

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

// TestYCSBCache: usertable within shared_buffers warns of a cached
// workload; larger passes; runs without usertable, or of another
// workload, get no item.
func TestYCSBCache(t *testing.T) {
	find := func(cs []results.Check) *results.Check {
		for i := range cs {
			if cs[i].Name == "ycsb_cache" {
				return &cs[i]
			}
		}
		return nil
	}
	run := &results.Run{Workload: results.Workload{Name: "ycsb-a"}, Server: &results.ServerInfo{
		Settings: map[string]string{"shared_buffers": "128MB"},
		Tables:   []results.TableSize{{Name: "usertable", TotalBytes: 120 << 20, Rows: 100000}},
	}}
	c := find(RunChecks(run, nil, nil))
	if c == nil || c.Status != Warn || !strings.Contains(c.Message, "cached workload") {
		t.Fatalf("usertable in cache: %+v", c)
	}
	run.Server.Tables[0].TotalBytes = 1 << 30
	if c := find(RunChecks(run, nil, nil)); c == nil || c.Status != Pass {
		t.Fatalf("usertable larger than shared_buffers: %+v", c)
	}
	run.Workload.Name = "tpcc"
	if c := find(RunChecks(run, nil, nil)); c != nil {
		t.Fatalf("a tpcc run in a database that also holds usertable: %+v", c)
	}
	run.Workload.Name = "ycsb-a"
	run.Server.Tables = nil
	if c := find(RunChecks(run, nil, nil)); c != nil {
		t.Fatalf("no usertable: %+v", c)
	}
}
