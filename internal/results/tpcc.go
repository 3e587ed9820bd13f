package results

// TPCC is a TPC-C-like run's figures and consistency checks (filled by the
// tpcc figures; see internal/workload/tpcc*.go).
type TPCC struct{}
