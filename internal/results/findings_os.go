package results

// Alarms are the OS alarms of a run (free memory, iowait, blocked and
// runnable tasks against the CPUs, swapping, steal, disk utilisation), each
// as the share of the measured time its condition held. Owned by
// explain/alarms.go.
type Alarms struct{}

// Associations are each wait type's and event's correlation with speed
// and latency across the run's intervals, with p-values that allow for
// autocorrelation; associations, not causes. Owned by
// explain/associations.go.
type Associations struct{}

// Pareto is the few wait events and statements (by time, by blocks) that
// make up 80 % of the run's total. Owned by explain/pareto.go.
type Pareto struct{}
