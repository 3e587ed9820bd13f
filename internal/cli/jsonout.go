package cli

import (
	"encoding/json"
	"fmt"
	"io"
)

// JSON outputs' kinds: the name of each --json output's shape. One output, one
// kind; the kind names its schema (schema/<kind>.schema.json).
const (
	jsonRunSummary     = "run-summary"     // run/pgbench --json: the summary, scenarios, evidence, checks
	jsonCompare        = "compare"         // compare --json: one comparison, or an array of them
	jsonExperiment     = "experiment"      // experiment/capacity/demo --json: experiment.json
	jsonAge            = "age"             // age --json: the aging's result
	jsonRuns           = "runs"            // runs --json: the run and experiment directories under a folder
	jsonCheck          = "check"           // check --json: the TPC-C consistency conditions (as run.json's tpcc.checks)
	jsonMask           = "mask"            // mask --json: the columns masked and the proof
	jsonVersion        = "version"         // version --json: the tool (as run.json's "tool")
	jsonCaptureCompare = "capture-compare" // capture compare --json: a run against the captured profile
	jsonAdvise         = "advise"          // advise --json: the hardware, the settings advised and the experiment file
	jsonLocalStatus    = "local-status"    // local status --json: the cluster's state
)

// printJSON writes v as indented JSON on w: every command's --json output goes
// through here, so that each is one kind of document.
func printJSON(w io.Writer, kind string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return &exitError{code: exitRunFail, err: fmt.Errorf("encode the %s output as JSON: %w", kind, err)}
	}
	data = append(data, '\n')
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("write the %s output: %w", kind, err)
	}
	return nil
}
