package workload

import (
	"slices"
	"strings"
)

// A Mix is a built-in workload of several scripts run together, each chosen
// by its weight as pgbench chooses among -b/-f scripts (`pgtrial run -b
// tpcc`, experiment `workload: {builtin: tpcc}`): TPC-C-like's five
// transactions, YCSB's workloads A–F. Mixes are pgtrial's, not pgbench's:
// `pgtrial pgbench -b` knows only BuiltinScripts.
type Mix struct {
	Name    string // what -b takes, exactly ("tpcc", "tpcc-spec", "ycsb-a")
	Desc    string // one line for help and reports
	Scripts []MixScript
	// Probe is one SQL query run on the target before the run, returning
	// one row; each column becomes a variable of every client, as pgbench
	// reads :scale from pgbench_branches (e.g. warehouses, records). ""
	// for none. A -D of the same name wins.
	Probe string
	// ForVars, if set, makes the scripts again for the probe's variables
	// as the clients get them (the probe's, or a -D's of the same name):
	// YCSB's update branches over ycsb_meta's fields. Scripts are then
	// those of the defaults (what --show-script prints).
	ForVars func(vars map[string]string) ([]MixScript, error)
}

// MixScript is one transaction type of a Mix.
type MixScript struct {
	Name   string // the transaction type ("new-order", "read"), unique in its Mix
	Desc   string // "transaction type:" in reports
	Script string // pgbench-language text, with pgtrial's extensions where needed
	Weight int    // pgbench's @weight: the share of transactions is Weight/ΣWeight
}

// Mixes are the built-in mixes, in the order help lists them.
func Mixes() []Mix {
	var ms []Mix
	ms = append(ms, tpccMixes()...)
	ms = append(ms, ycsbMixes()...)
	return ms
}

// FindMix returns the mix named exactly name.
func FindMix(name string) (Mix, bool) {
	for _, m := range Mixes() {
		if m.Name == name {
			return m, true
		}
	}
	return Mix{}, false
}

// Tables are the tables a Mix's scripts run against, which init -w loads: the nine
// TPC-C-like tables (tpcc_meta aside) for the tpcc family, usertable for ycsb; nil for
// another.
func (m Mix) Tables() []string {
	family, _, _ := strings.Cut(m.Name, "-")
	switch family {
	case "tpcc":
		return slices.Clone(TPCCTables[:9])
	case "ycsb":
		return []string{YCSBTable}
	}
	return nil
}
