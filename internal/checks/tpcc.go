package checks

import (
	"fmt"
	"strings"

	"github.com/pgtrial/pgtrial/internal/results"
)

// TPC-C-like's items (only in runs with run.json's tpcc).
const (
	ItemTPCCMode        = "tpcc_mode"        // spec mode: 10 terminals per warehouse; throughput: not tpmC
	ItemTPCCConsistency = "tpcc_consistency" // the consistency conditions after the run
)

// tpccTerminalsPerWarehouse is the specification's terminals per warehouse
// (clause 4.2.2): spec mode needs warehouses ≥ clients / 10.
const tpccTerminalsPerWarehouse = 10

// tpcc is the TPC-C-like items of a run; none for another workload.
func (in *input) tpcc() []results.Check {
	t := in.run.TPCC
	if t == nil {
		return nil
	}
	mode := results.Check{Name: ItemTPCCMode, Value: t.Mode}
	switch {
	case t.Mode != "spec":
		mode.Status = Pass
		mode.Message = "throughput mode (no keying or think times): its tpmC-like figure is not comparable with audited or published tpmC"
	case t.Warehouses <= 0:
		mode.Status = Warn
		mode.Message = fmt.Sprintf("spec mode with %d clients and an unknown warehouse count: the specification has 10 terminals per warehouse (warehouses ≥ clients/10)", t.Clients)
	case t.Warehouses*tpccTerminalsPerWarehouse < t.Clients:
		mode.Status, mode.Value = Warn, t.Warehouses
		mode.Message = fmt.Sprintf("spec mode with %d warehouses and %d clients: the specification has 10 terminals per warehouse, so %d clients need ≥ %d warehouses; these results are not comparable in kind", t.Warehouses, t.Clients, t.Clients, (t.Clients+tpccTerminalsPerWarehouse-1)/tpccTerminalsPerWarehouse)
	default:
		mode.Status, mode.Value = Pass, t.Warehouses
		mode.Message = fmt.Sprintf("spec mode with %d warehouses and %d clients (≤ 10 terminals per warehouse); not audited", t.Warehouses, t.Clients)
	}

	cons := results.Check{Name: ItemTPCCConsistency}
	var failed []string
	for _, c := range t.Checks {
		if !c.Pass {
			failed = append(failed, fmt.Sprintf("%d", c.Condition))
		}
	}
	switch {
	case len(failed) > 0:
		cons.Status, cons.Value = Fail, len(failed)
		cons.Message = "TPC-C consistency conditions " + strings.Join(failed, ", ") + " failed after the run: the transactions did not keep the tables consistent"
	case len(t.Checks) == 0:
		cons.Status = Warn
		cons.Message = "TPC-C consistency not checked: " + t.ChecksSkipped
	default:
		cons.Status, cons.Value = Pass, len(t.Checks)
		cons.Message = fmt.Sprintf("TPC-C consistency conditions 1–%d hold after the run", len(t.Checks))
	}
	return []results.Check{mode, cons}
}
