package experiment

import (
	"math"

	"github.com/pgtrial/pgtrial/internal/tpcc"
)

// The TPC-C-like keys of workload: {builtin: tpcc, warehouses: N, mode:
// spec|throughput}. builtin tpcc with mode spec is the mix "tpcc-spec".

func decodeWarehouses(d *decoder, w *Workload, e entry, path string, _ *fields) {
	if v, ok := d.integer(e.val, path, 1, math.MaxInt32, "the warehouses are 1 to 2147483647"); ok {
		w.Warehouses = int(v)
	}
}

func decodeTPCCMode(d *decoder, w *Workload, e entry, path string, _ *fields) {
	v, ok := d.oneOf(e.val, path, tpcc.ModeSpec, tpcc.ModeThroughput)
	if !ok {
		return
	}
	// builtin is decoded first (table order).
	if w.Builtin == "tpcc-spec" && v != tpcc.ModeSpec {
		d.problem(e.val, path, "%s contradicts builtin tpcc-spec (spec mode): give builtin tpcc with mode %s, or leave mode out", v, v)
		return
	}
	w.tpccModeGiven = v
}

// checkTPCCKeys: warehouses and mode go with builtin tpcc; mode chooses
// the mix.
func checkTPCCKeys(d *decoder, w *Workload, f *fields, path string) {
	if w.TPCCMode == "" {
		for _, k := range []string{"warehouses", "mode"} {
			if e, ok := f.get(k); ok {
				d.problem(e.key, path, "%s applies to builtin tpcc (the TPC-C-like workload): give builtin: tpcc, or leave %s out", k, k)
			}
		}
		w.tpccModeGiven = ""
		return
	}
	if w.tpccModeGiven == tpcc.ModeSpec {
		w.Builtin, w.TPCCMode = "tpcc-spec", tpcc.ModeSpec
	}
	w.tpccModeGiven = ""
}
