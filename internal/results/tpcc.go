package results

// TPCC is a TPC-C-like run's figures and consistency checks (computed by
// internal/tpcc, recorded in run.json's "tpcc").
type TPCC struct {
	Mode       string `json:"mode"`                 // "throughput" or "spec"
	Warehouses int    `json:"warehouses,omitempty"` // from tpcc_meta; 0: unknown
	Clients    int    `json:"clients"`
	// Note says what the figures may be compared with: "not audited;
	// comparable in kind only" (spec mode), "throughput mode: not
	// comparable with published tpmC" otherwise.
	Note string `json:"note"`

	MeasuredS float64 `json:"measured_s"` // the measured window, seconds
	// NewOrders are the New-Order transactions completed in the window
	// (run.json's per-script count of "new-order"), the rolled-back ones
	// (1 %, an unused item) included: the specification counts them as
	// completed business transactions.
	NewOrders int64 `json:"new_orders"`
	// TpmC = NewOrders / (MeasuredS / 60): New-Orders per minute, rolled
	// back ones included. "tpmC-like": not an audited tpmC.
	TpmC float64 `json:"tpmc"`

	// NOPM = (sum(d_next_o_id) at the window's end − at its start) /
	// (MeasuredS / 60), HammerDB's: committed New-Orders only (a rollback
	// undoes the increment). NOPMMissing says why it is absent (then 0).
	NOPM          float64 `json:"nopm"`
	NextOIDStart  int64   `json:"d_next_o_id_start,omitempty"` // sum over all districts
	NextOIDEnd    int64   `json:"d_next_o_id_end,omitempty"`
	NOPMMissing   string  `json:"nopm_missing,omitempty"`
	ExpectedRatio float64 `json:"expected_ratio"`  // NOPM/tpmC expected: 1 − the rolled-back share (0.99)
	Ratio         float64 `json:"ratio,omitempty"` // NOPM / tpmC measured
	// Agree: |Ratio / ExpectedRatio − 1| ≤ 10 %.
	Agree bool `json:"agree"`

	Types []TPCCType `json:"types"` // per transaction type, in the mix's order

	// Checks are the consistency conditions after the run; ChecksSkipped
	// says why there are none (--no-check, an error).
	Checks        []TPCCCheck `json:"checks,omitempty"`
	ChecksSkipped string      `json:"checks_skipped,omitempty"`
}

// TPCCType is one transaction type's response time against the
// specification's 90th-percentile limit, and its failures.
type TPCCType struct {
	Name      string           `json:"name"` // the mix's script: "new-order", …
	Committed int64            `json:"committed"`
	P90Ms     float64          `json:"p90_ms"`   // response time (from the intended start)
	LimitMs   float64          `json:"limit_ms"` // the specification's 90th-percentile limit
	Pass      bool             `json:"pass"`     // P90Ms ≤ LimitMs (and something completed)
	Note      string           `json:"note,omitempty"`
	Failed    int64            `json:"failed"`
	FailedBy  map[string]int64 `json:"failed_by,omitempty"` // by class: serialization, deadlock, …
	Retried   int64            `json:"retried"`
	Retries   int64            `json:"retries"`
}

// TPCCCheck is one consistency condition of the specification (3.3.2.x).
type TPCCCheck struct {
	Condition int    `json:"condition"` // 1–4
	What      string `json:"what"`      // "W_YTD = sum(D_YTD) per warehouse"
	Checked   int64  `json:"checked"`   // warehouses or districts checked
	Pass      bool   `json:"pass"`
	// Failures name the condition, the warehouse/district and the values,
	// at most MaxTPCCFailures of them; Violations counts them all.
	Failures   []string `json:"failures,omitempty"`
	Violations int64    `json:"violations,omitempty"`
}

// MaxTPCCFailures bounds TPCCCheck.Failures.
const MaxTPCCFailures = 10

// Consistent says whether every check ran and passed.
func (t *TPCC) Consistent() bool {
	if t == nil || len(t.Checks) == 0 {
		return false
	}
	for _, c := range t.Checks {
		if !c.Pass {
			return false
		}
	}
	return true
}

// ChecksFailed says whether a check ran and failed (skipped is not failed).
func (t *TPCC) ChecksFailed() bool {
	if t == nil {
		return false
	}
	for _, c := range t.Checks {
		if !c.Pass {
			return true
		}
	}
	return false
}
