package capture

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

// writeRun writes a run directory whose statements.csv has, per
// statement, a measured-phase row of calls, rows and blocks (hit).
func writeRun(t *testing.T, rows [][4]string) string {
	t.Helper()
	dir := t.TempDir()
	w, err := results.CreateStatements(dir)
	if err != nil {
		t.Fatal(err)
	}
	header := results.StatementsHeader()
	for _, r := range rows { // queryid, calls, rows, blocks hit; the text tags the first
		rec := make([]string, len(header))
		for i, h := range header {
			switch h {
			case "phase":
				rec[i] = results.PhaseMeasure
			case "sessions":
				rec[i] = results.SessionsRun
			case "toplevel":
				rec[i] = "true"
			case "queryid":
				rec[i] = r[0]
			case "calls":
				rec[i] = r[1]
			case "rows":
				rec[i] = r[2]
			case "shared_blks_hit":
				rec[i] = r[3]
			case "total_exec_ms":
				rec[i] = "1.0"
			case "query":
				if r[0] == "11" {
					rec[i] = Tag + "Q1 */ SELECT v FROM t WHERE k = $1"
				}
			}
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func testProfile(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	p := &Profile{Schema: ProfileSchema, Calls: 1000, Statements: []Statement{
		{ID: "Q1", QueryID: 1, Script: "01-select-t.sql", Weight: 9000, ScriptShare: 0.9, Calls: 900, RowsPerCall: 1, BlocksPerCall: 3},
		{ID: "Q2", QueryID: 2, Script: "02-update-t.sql", Weight: 1000, ScriptShare: 0.1, Calls: 100, RowsPerCall: 1, BlocksPerCall: 6},
		{ID: "Q3", QueryID: 3, Skipped: "DDL (CREATE)", Calls: 1},
	}}
	if err := WriteProfile(dir, p); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCompareSimilar: a run with the mix and the per-call figures of the
// profile is similar; the tagged statement matches by its tag (its queryid
// is another server's), the other by queryid.
func TestCompareSimilar(t *testing.T) {
	run := writeRun(t, [][4]string{{"11", "8900", "8900", "27000"}, {"2", "1100", "1100", "5500"}, {"99", "5", "5", "5"}})
	sim, err := Compare(testProfile(t), run, DefaultThresholds)
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.NewBufferString(sim.Summary())
	if !sim.Similar || len(sim.Statements) != 2 || sim.Unmatched != 5 {
		t.Fatalf("similar %v, %d statements, %d unmatched calls:\n%s", sim.Similar, len(sim.Statements), sim.Unmatched, out.String())
	}
	if !strings.Contains(out.String(), "similar: mix within 3 % per statement (largest difference 1.0 points") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// TestCompareFlags: rows/call 10× the profile's and a mix 8 points off are
// flagged with what they suggest.
func TestCompareFlags(t *testing.T) {
	run := writeRun(t, [][4]string{{"1", "820", strconv.Itoa(8200), "2500"}, {"2", "180", "180", "1100"}})
	sim, err := Compare(testProfile(t), run, DefaultThresholds)
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.NewBufferString(sim.Summary())
	if sim.Similar {
		t.Fatalf("similar:\n%s", out.String())
	}
	for _, want := range []string{
		"rows/call of Q1 is 10× the profile's: its parameters match more rows than the captured ones did",
		"Q1's share is 82.0 % in the run, 90.0 % in the scripts' mix",
		"not similar:",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "blocks/call of") {
		t.Errorf("blocks/call flagged within 2×:\n%s", out.String())
	}
}
