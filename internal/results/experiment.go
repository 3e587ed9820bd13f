package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pgtrial/pgtrial/schema"
)

// experiment.json is an experiment directory's summary (internal/experiment's
// Record: what was planned, what ran, what it means), beside its runs, one
// run directory each under ExperimentRunsDir. It is rewritten atomically
// after every run, so an interrupted experiment keeps the runs it made. Its
// "schema" is an integer, ExperimentSchema; fields may be added within a
// version.
const (
	ExperimentFile    = "experiment.json"
	ExperimentRunsDir = "runs"
	ExperimentSchema  = 1
)

// WriteExperiment writes record, experiment.json's content (a value with
// an integer "schema" field), to dir/experiment.json atomically, as run.json
// is written: a reader sees the old or the new file, never a part. In tests
// the file is validated against schema/experiment.schema.json with schemas
// (which keeps the compiled schema between writes; nil: compiled for this
// one).
func WriteExperiment(dir string, record any, schemas *schema.Validator) error {
	return writeJSONAtomic(dir, ExperimentFile, checkSchema(schemas, schema.Experiment), record)
}

// ReadExperiment reads dir/experiment.json into record. A schema newer than
// ExperimentSchema is an error that says so; a missing file is an error
// that wraps fs.ErrNotExist.
func ReadExperiment(dir string, record any) error {
	path := filepath.Join(dir, ExperimentFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var head struct {
		Schema int `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if head.Schema > ExperimentSchema {
		return fmt.Errorf("%s: schema %d is newer than this pgtrial's (%d)", path, head.Schema, ExperimentSchema)
	}
	if err := json.Unmarshal(data, record); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
