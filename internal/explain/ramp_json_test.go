package explain

import (
	"encoding/json"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

// TestFindingsJSON: the findings encode (no NaN or ±Inf reaches
// experiment.json), with missing evidence and a side without a figure.
func TestFindingsJSON(t *testing.T) {
	in := synthRamp(t, []float64{2, 4}, 3, 1.2, 0.2, 0.02, 5)
	// One variant without statements at all, the other with.
	for i := range in.Runs {
		if in.Runs[i].Variant == "B" {
			in.Runs[i].Run.Evidence.SetMissing(results.EvidenceStatements, "pg_stat_statements is not installed")
			in.Runs[i].Run.Evidence.Calls = 0
		}
	}
	f := Experiment(in, Defaults())
	if _, err := json.Marshal(f); err != nil {
		t.Fatalf("the findings do not encode: %v", err)
	}
}
