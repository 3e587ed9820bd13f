package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/pgtrial/pgtrial/internal/age"
	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/schema"
)

// JSON outputs' kinds: the name of each --json output's shape. One output, one
// kind; the kind names its schema (schema/<kind>.schema.json).
const (
	jsonRunSummary = schema.RunSummary // run --json: the summary, scenarios, evidence, checks
	jsonCompare    = schema.Compare    // compare --json: one comparison, or an array of them
	jsonExperiment = schema.Experiment // experiment/capacity/demo --json: experiment.json
	jsonAge        = schema.Age        // age --json: the aging's result
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
