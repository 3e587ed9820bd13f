package workload

// tpccMixes are TPC-C-like's mixes (throughput and spec mode).
func tpccMixes() []Mix { return nil }
