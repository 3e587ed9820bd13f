package collect

import (
	"slices"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

// The files' formats are internal/results'; these helpers keep the tests of
// this package short.

var (
	waitsHeader  = results.WaitsHeader()
	serverHeader = results.ServerHeader()
)

func createCSV(dir, name string, header []string) (*results.CSVWriter, error) {
	return results.CreateCSV(dir, name, header)
}

// csvTable is a CSV file read back: columns by name.
type csvTable struct {
	cols map[string]int
	rows [][]string
}

func readCSV(dir, name string) (*csvTable, error) {
	t, err := results.ReadTable(dir, name)
	if err != nil {
		return nil, err
	}
	return &csvTable{cols: t.Cols, rows: t.Rows}, nil
}

func ReadWaits(dir string) ([]WaitRow, error)           { return results.ReadWaits(dir) }
func ReadServer(dir string) ([]ServerRow, error)        { return results.ReadServer(dir) }
func ReadStatements(dir string) ([]StatementRow, error) { return results.ReadStatements(dir) }
func ReadOS(dir string) ([]OSRow, error)                { return results.ReadOS(dir) }

// statementsHeader is the header the statements collector's rows follow:
// the row's time, the phase, the statement's key, then the deltas in
// stmtMetrics' order (mean_exec_ms after total_exec_ms), then the text.
func statementsHeader() []string {
	h := []string{"time", "elapsed_s", "phase", "phase_start", "queryid", "userid", "dbid", "toplevel", "sessions"}
	for i, m := range stmtMetrics {
		h = append(h, m.csv)
		if i == mExecMs {
			h = append(h, "mean_exec_ms")
		}
	}
	return append(h, "query")
}

// The statements collector writes its figures in stmtMetrics' order: that
// must be results' header (the server collector's counters are checked
// against results.ServerHeader by TestServerPlan's table).
func TestStatementsWriterFollowsResultsHeader(t *testing.T) {
	if got, want := statementsHeader(), results.StatementsHeader(); !slices.Equal(got, want) {
		t.Errorf("statements collector's columns\n got %v\nwant %v (results.StatementsHeader)", got, want)
	}
}
