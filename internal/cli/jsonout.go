package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/pgtrial/pgtrial/internal/age"
	"github.com/pgtrial/pgtrial/internal/capture"
	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/mask"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/runlist"
	"github.com/pgtrial/pgtrial/schema"
)

// JSON outputs' kinds: the name of each --json output's shape. One output, one
// kind; the kind names its schema (schema/<kind>.schema.json).
const (
	jsonRunSummary     = schema.RunSummary     // run/pgbench --json: the summary, scenarios, evidence, checks
	jsonCompare        = schema.Compare        // compare --json: one comparison, or an array of them
	jsonExperiment     = schema.Experiment     // experiment/capacity/demo --json: experiment.json
	jsonAge            = schema.Age            // age --json: the aging's result
	jsonRuns           = schema.Runs           // runs --json: the run and experiment directories under a folder
	jsonCheck          = schema.Check          // check --json: the TPC-C consistency conditions (as run.json's tpcc.checks)
	jsonMask           = schema.Mask           // mask --json: the columns masked and the proof
	jsonVersion        = schema.Version        // version --json: the tool (as run.json's "tool")
	jsonCaptureCompare = schema.CaptureCompare // capture compare --json: a run against the captured profile
	jsonAdvise         = schema.Advise         // advise --json: the hardware, the settings advised and the experiment file
	jsonLocalStatus    = schema.LocalStatus    // local status --json: the cluster's state
)

// jsonSchemaID is the "schema" field of a kind's output, its version:
// "pgtrial.run-summary/v1". (experiment's is experiment.json's integer.)
// A field renamed, removed or given another meaning needs v2.
func jsonSchemaID(kind string) string { return "pgtrial." + kind + "/v1" }

// jsonCompareReport is one comparison of compare --json.
type jsonCompareReport struct {
	Schema string `json:"schema"` // jsonSchemaID(jsonCompare)
	compare.Report
}

// newJSONCompare is rep as compare --json writes it.
func newJSONCompare(rep *compare.Report) jsonCompareReport {
	return jsonCompareReport{Schema: jsonSchemaID(jsonCompare), Report: *rep}
}

// jsonAgeResult is age --json's output.
type jsonAgeResult struct {
	Schema string `json:"schema"` // jsonSchemaID(jsonAge)
	age.Result
}

// jsonRuns is runs --json's output.
type jsonRunsList struct {
	Schema  string          `json:"schema"` // jsonSchemaID(jsonRuns)
	Root    string          `json:"root"`   // the folder scanned
	Entries []runlist.Entry `json:"entries"`
}

// jsonChecks is check --json's output: the conditions as run.json's
// tpcc.checks.
type jsonChecks struct {
	Schema string              `json:"schema"` // jsonSchemaID(jsonCheck)
	Checks []results.TPCCCheck `json:"checks"`
}

// jsonMaskResult is mask --json's output.
type jsonMaskResult struct {
	Schema string `json:"schema"` // jsonSchemaID(jsonMask)
	mask.Result
}

// jsonCaptureCompareDoc is capture compare --json's output: the ratios, NaN
// when the profile's figure is 0, are null.
type jsonCaptureCompareDoc struct {
	Schema string `json:"schema"` // jsonSchemaID(jsonCaptureCompare)
	capture.Similarity
	Statements []jsonStatementSimilarity `json:"statements"`
}

type jsonStatementSimilarity struct {
	capture.StatementSimilarity
	RowsRatio   *float64 `json:"rows_ratio"`   // run ÷ captured rows per call; null: the profile's is 0
	BlocksRatio *float64 `json:"blocks_ratio"` // run ÷ captured blocks per call; null: the profile's is 0
}

func newJSONCaptureCompare(sim *capture.Similarity) jsonCaptureCompareDoc {
	j := jsonCaptureCompareDoc{Schema: jsonSchemaID(jsonCaptureCompare), Similarity: *sim, Statements: []jsonStatementSimilarity{}}
	for _, st := range sim.Statements {
		j.Statements = append(j.Statements, jsonStatementSimilarity{StatementSimilarity: st, RowsRatio: finite(st.RowsRatio), BlocksRatio: finite(st.BlocksRatio)})
	}
	return j
}

// finite is &v, or nil for NaN and ±Inf (which JSON cannot hold).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// printJSON writes v as indented JSON on w: every command's --json output goes
// through here, so that each is one kind of document. In tests the document
// is validated against its kind's schema first (schema.Validate), so every
// output the tests make is checked.
func printJSON(w io.Writer, kind string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return &exitError{code: exitRunFail, err: fmt.Errorf("encode the %s output as JSON: %w", kind, err)}
	}
	if testing.Testing() {
		if err := schema.Validate(kind, data); err != nil {
			return &exitError{code: exitRunFail, err: fmt.Errorf("the --json output does not match its schema: %w", err)}
		}
	}
	data = append(data, '\n')
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("write the %s output: %w", kind, err)
	}
	return nil
}
