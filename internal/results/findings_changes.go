package results

// Changes are the level shifts found in a run's per-interval series (tps,
// response p99, lag p99) and what happened near each. Owned by the change
// points' part of internal/explain (explain/changes.go).
type Changes struct{}
