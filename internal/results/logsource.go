package results

// LogSource is, in the run.json of a run directory made by `pgtrial analyze`
// from pgbench's -l logs (not by a run), what the logs were and what they
// can and cannot tell.
type LogSource struct {
	// AnalyzedBy is the pgtrial that read the logs (Run.Tool is pgbench).
	AnalyzedBy Tool `json:"analyzed_by"`
	// Format is "transactions" (one line per transaction, -l) or
	// "aggregate" (--aggregate-interval).
	Format string    `json:"format"`
	Files  []LogFile `json:"files"`
	// Columns are the optional columns the lines had: "schedule_lag" (-R),
	// "retries" (--max-tries ≠ 1); for an aggregate log also "skipped",
	// "retried_retries", "failures".
	Columns []string `json:"columns,omitempty"`
	// IntervalS is the length of the timeline's intervals, seconds: the
	// aggregate log's interval (from its lines' starts), or the one chosen
	// for a per-transaction log.
	IntervalS float64 `json:"interval_s"`
	// SamplingRate is pgbench's --sampling-rate as the user gave it to
	// analyze (the log does not record it; 0: not given, every transaction
	// logged). The counts and rates of run.json are of the logged lines;
	// the run's are about these ÷ SamplingRate.
	SamplingRate float64 `json:"sampling_rate,omitempty"`
	// ExactPercentiles: the summary's response-time percentiles of the
	// total are exact (every logged latency counted by its µs value), not
	// the HDR histogram's (within 0.1 %); those of each script, the
	// timeline's and latency.hlog's are the HDR histogram's.
	ExactPercentiles bool `json:"exact_percentiles,omitempty"`
	// Tells are what the logs tell, in words; Missing what they cannot,
	// by subject ("percentiles", "service", "server", "settings", …), with
	// the reason.
	Tells   []string          `json:"tells,omitempty"`
	Missing map[string]string `json:"missing,omitempty"`
}

// LogFile is one log read.
type LogFile struct {
	Path       string `json:"path"`
	Compressed bool   `json:"compressed,omitempty"` // gzip
	Lines      int64  `json:"lines"`
}
