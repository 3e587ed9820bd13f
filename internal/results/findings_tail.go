package results

// Tail is why the slowest transactions were slow: slow.csv joined to the
// backends' samples (activity.csv) and to the run's occurrences. Owned by
// the tail part of internal/explain (explain/tail.go).
type Tail struct{}
