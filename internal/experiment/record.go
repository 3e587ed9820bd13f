package experiment

import (
	"time"

	"github.com/pgtrial/pgtrial/internal/age"
	"github.com/pgtrial/pgtrial/internal/capacity"
	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/gate"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/serverctl"
	"github.com/pgtrial/pgtrial/schema"
)

// File is the experiment directory's summary file; the runs are in
// RunsDir, one directory each (each a run directory of `pgtrial run`). The
// file's format (name, schema, atomic writer and reader) is
// internal/results' (experiment.go).
const (
	File          = results.ExperimentFile
	RunsDir       = results.ExperimentRunsDir
	SchemaVersion = results.ExperimentSchema
)

// Record is experiment.json: what was planned, what ran, and what it means.
// It is rewritten after every run, so an interrupted experiment keeps the
// runs it made.
type Record struct {
	Schema      int          `json:"schema"`
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	File        string       `json:"file,omitempty"`
	StartedAt   time.Time    `json:"started_at"`
	EndedAt     time.Time    `json:"ended_at,omitzero"`
	Tool        results.Tool `json:"tool"`

	Target   results.Target `json:"target"`
	Workload string         `json:"workload"`
	Scale    int            `json:"scale,omitempty"`
	// Warehouses is builtin tpcc's: the warehouses of the runs (tpcc_meta).
	Warehouses int `json:"warehouses,omitempty"`
	// Loaded is the tables the experiment loaded before its runs (the
	// file's scale or warehouses, which the database did not have); nil:
	// it used the tables as they were.
	Loaded *TablesLoaded `json:"loaded,omitempty"`
	// Shaped is what data.shape did to the columns before the runs (spec_data.go); none: no shaping.
	Shaped []Shaped `json:"shaped,omitempty"`
	// Aged is what data.age did to the table before the runs (spec_data.go); nil: no aging.
	Aged    *age.Result `json:"aged,omitempty"`
	Model   string      `json:"model"` // open, closed, ramp, search
	Clients int         `json:"clients,omitempty"`
	Rate    float64     `json:"rate,omitempty"`
	// Scenarios are the file's concurrent scenarios (runner_scenarios.go);
	// each run's record has their figures.
	Scenarios []ScenarioRecord `json:"scenarios,omitempty"`

	WarmupS    float64 `json:"warmup_s"`
	WindowS    float64 `json:"window_s"`
	StepS      float64 `json:"step_s,omitempty"` // a ramp's measured time per level (its runs' window)
	Repeats    int     `json:"repeats"`
	Interleave bool    `json:"interleave"`
	Seed       uint64  `json:"seed"`

	Variants []VariantRecord `json:"variants"`
	Runs     []RunRecord     `json:"runs"`
	// Calibration is the A/A runs of the first variant made before the
	// runs (protocol.calibrate, --calibrate) and what they measured; nil:
	// none. Its runs are not in Runs.
	Calibration *Calibration      `json:"calibration,omitempty"`
	Comparisons []*compare.Report `json:"comparisons,omitempty"`
	// Gate is the file's gate: judged on each of Comparisons (internal/gate),
	// in their order; nil without a gate.
	Gate []*gate.Result `json:"gate,omitempty"`
	Ramp []RampLevel    `json:"ramp,omitempty"`
	// Findings are what the runs' evidence says about why (internal/explain:
	// the ramp per level, each variant against the first, associations, OS
	// alarms, plans that changed); versioned by their schema.
	Findings *explain.ExperimentFindings `json:"findings,omitempty"`
	// TPCC is a TPC-C-like experiment's figures per variant (a ramp: per
	// level) over the runs' run.json "tpcc" (tpcc_summary.go).
	TPCC        []TPCCSummary    `json:"tpcc,omitempty"`
	Search      *capacity.Result `json:"search,omitempty"`
	SLOs        []SLOResult      `json:"slos,omitempty"`
	Checks      []results.Check  `json:"checks,omitempty"`
	Warnings    []string         `json:"warnings,omitempty"`
	Interrupted bool             `json:"interrupted,omitempty"`
	// Reason is what interrupted the experiment ("SIGINT", "SIGTERM", …;
	// "killed" when `pgtrial experiment --restore` finished the record).
	Reason string `json:"interrupt_reason,omitempty"`
	// Unrestored says the server still holds what a variant changed (its
	// settings, its setup's objects): restore.json in the directory has it,
	// and `pgtrial experiment --restore DIR` puts it back.
	Unrestored bool               `json:"unrestored,omitempty"`
	Error      string             `json:"error,omitempty"`
	Injections []InjectionPlanned `json:"injections,omitempty"`

	// schemas keeps experiment.json's compiled schema between the record's
	// writes, which validate the file in tests (results.WriteExperiment).
	schemas *schema.Validator
}

// VariantRecord is a variant as applied.
type VariantRecord struct {
	Name      string            `json:"name"`
	Settings  map[string]string `json:"settings,omitempty"`  // as written
	Effective map[string]string `json:"effective,omitempty"` // current_setting after applying
	Restart   bool              `json:"restart,omitempty"`   // applying it restarted the server
	Setup     []string          `json:"setup,omitempty"`
	Teardown  []string          `json:"teardown,omitempty"`
}

// TablesLoaded is a load the experiment made before its runs, as the init
// command it equals.
type TablesLoaded struct {
	Workload   string  `json:"workload"` // "pgbench" or "tpcc"
	Scale      int     `json:"scale,omitempty"`
	Warehouses int     `json:"warehouses,omitempty"`
	Seed       uint64  `json:"seed,omitempty"` // tpcc: the row generators' seed
	Command    string  `json:"command"`        // "pgtrial init -w tpcc --warehouses 1 --seed 1"
	DurationS  float64 `json:"duration_s"`
}

// InjectionPlanned is an injection of the file.
type InjectionPlanned struct {
	Kind      string  `json:"kind"`
	AtS       float64 `json:"at_s"`
	Table     string  `json:"table,omitempty"`
	DurationS float64 `json:"duration_s,omitempty"`
}

// RunRecord is one run of the experiment.
type RunRecord struct {
	N         int       `json:"n"` // 1-based, in the order run
	Variant   string    `json:"variant"`
	Repeat    int       `json:"repeat"`          // 1-based
	Phase     string    `json:"phase,omitempty"` // ramp: "step"; search: capacity's phases
	Level     float64   `json:"level,omitempty"` // ramp level (clients or tx/s)
	Clients   int       `json:"clients"`
	Rate      float64   `json:"rate,omitempty"` // open model target, tx/s
	Dir       string    `json:"dir"`            // relative to the experiment directory
	StartedAt time.Time `json:"started_at"`
	Seed      uint64    `json:"seed"`

	TPS          float64 `json:"tps"`
	P50          float64 `json:"p50_ms"`
	P90          float64 `json:"p90_ms"`
	P95          float64 `json:"p95_ms"`
	P99          float64 `json:"p99_ms"`
	P999         float64 `json:"p999_ms"`
	Max          float64 `json:"max_ms"`
	ServiceP99   float64 `json:"service_p99_ms"`
	LagP99       float64 `json:"lag_p99_ms"`
	SkippedShare float64 `json:"skipped_share"` // skipped + dropped of scheduled
	FailedShare  float64 `json:"failed_share"`
	LagGrowing   bool    `json:"lag_growing,omitempty"`
	// Started is the transactions started in the window: committed +
	// failed + in flight at its end (the rate_achieved item's count).
	Started int64 `json:"started,omitempty"`
	// Scenarios are each concurrent scenario's load and figures in this
	// run (runner_scenarios.go); nil without scenarios.
	Scenarios []ScenarioRun `json:"scenarios,omitempty"`

	Injected    []serverctl.Injected `json:"injected,omitempty"`
	Interrupted bool                 `json:"interrupted,omitempty"`
	Aborted     bool                 `json:"aborted,omitempty"`
	Error       string               `json:"error,omitempty"`
	Checks      string               `json:"checks,omitempty"` // the run's worst checklist status
}

// RampLevel is one level of a ramp, over the repeats: medians (min–max
// in Runs) and pg_expecto's operational speed.
type RampLevel struct {
	Variant string   `json:"variant"`
	Level   float64  `json:"level"`
	Runs    []string `json:"runs"` // labels: variant#k
	// Medians over the repeats.
	TPS float64 `json:"tps"`
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	// Waits by type: share of the wait samples of active client sessions
	// (median over repeats), and the calls and rows per second of the
	// statements (pg_expecto's "operational speed", kept as two series).
	Waits       map[string]float64 `json:"waits,omitempty"`
	CallsPerSec float64            `json:"calls_per_s,omitempty"`
	RowsPerSec  float64            `json:"rows_per_s,omitempty"`
	// StatementsMissing is why CallsPerSec and RowsPerSec are absent (no
	// run of the level has pg_stat_statements evidence), "" when they are not.
	StatementsMissing string `json:"statements_missing,omitempty"`
}

// SLOResult is one SLO judged for one variant (and rate).
type SLOResult struct {
	SLO     string  `json:"slo"`
	Variant string  `json:"variant"`
	Rate    float64 `json:"rate,omitempty"`
	Median  float64 `json:"median_ms"` // of the quantile over the repeats
	Worst   float64 `json:"worst_ms"`
	LimitMs float64 `json:"limit_ms"`
	Met     bool    `json:"met"`     // the median meets the limit
	AllMet  bool    `json:"all_met"` // every repeat does
	Runs    int     `json:"runs"`
}

// write rewrites experiment.json atomically (results.WriteExperiment).
func (r *Record) write(dir string) error {
	if r.schemas == nil {
		r.schemas = new(schema.Validator)
	}
	return results.WriteExperiment(dir, r, r.schemas)
}

// LoadRecord reads experiment.json of an experiment directory
// (results.ReadExperiment).
func LoadRecord(dir string) (*Record, error) {
	var r Record
	if err := results.ReadExperiment(dir, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
