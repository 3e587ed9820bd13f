package results

// Tally is what one name of the scripts' `\tally NAME EXPR` counted: how
// often each integer value was drawn (e.g. YCSB's keys, for the share of
// operations on the hottest 1 % of keys).
type Tally struct {
	Name     string `json:"name"`
	Draws    int64  `json:"draws"`    // \tally executions counted
	Distinct int64  `json:"distinct"` // distinct values among them
	// TopCounts are the counts of the most frequent values, descending, at
	// most MaxTallyTop of them: the share of draws on the k hottest values
	// is sum(TopCounts[:k]) / Draws.
	TopCounts []int64 `json:"top_counts,omitempty"`
	// Capped: more distinct values than were tracked; Distinct and
	// TopCounts are then lower bounds.
	Capped bool `json:"capped,omitempty"`
}

// MaxTallyTop bounds Tally.TopCounts.
const MaxTallyTop = 10000
