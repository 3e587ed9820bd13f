package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/capture"
	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/mask"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
)

// runs lists the run directories under a folder, oldest first, in text and
// as JSON with run.json's field names; an unreadable one is listed apart.
func TestRunsCommand(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	if _, err := resultstest.WriteRun(filepath.Join(root, "z-first"), resultstest.Options{Start: t0, Rate: 300, Duration: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	second, err := resultstest.WriteRun(filepath.Join(root, "a-second"), resultstest.Options{Start: t0.Add(time.Minute), Rate: -1, Duration: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "runs", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	first, sec := strings.Index(out, "z-first"), strings.Index(out, "a-second")
	if first < 0 || sec < first || !strings.Contains(out, "2026-05-06 07:08:09") || !strings.Contains(out, "open 300/s") || !strings.Contains(out, "2 directories") {
		t.Errorf("runs output:\n%s", out)
	}
	code, out, errOut = runCLI(t, "runs", "--json", root)
	var list jsonRunsList
	err = json.Unmarshal([]byte(out), &list)
	got := list.Entries
	if err != nil || code != 0 || len(got) != 2 || list.Schema != "pgtrial.runs/v1" {
		t.Fatalf("--json: exit %d, %v: %s%s", code, err, out, errOut)
	}
	if got[1].Dir != "a-second" || got[1].Model != "closed" || got[1].TPS == nil || *got[1].TPS != second.Summary.Total.TPS {
		t.Errorf("--json entry %+v", got[1])
	}
	for _, key := range []string{`"started_at"`, `"workload"`, `"tps"`, `"p99_ms"`} {
		if !strings.Contains(out, key) {
			t.Errorf("--json lacks %s", key)
		}
	}
	if code, _, errOut := runCLI(t, "runs", filepath.Join(root, "missing")); code != 1 || !strings.Contains(errOut, "missing") {
		t.Errorf("missing folder: exit %d, %q", code, errOut)
	}
}

func TestVersionJSON(t *testing.T) {
	code, out, _ := runCLI(t, "version", "--json")
	var v versionJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != 0 || v.Name != "pgtrial" || v.Version != "1.2.3" || v.Commit != "abc123" || v.OS == "" {
		t.Errorf("version --json: exit %d, %v: %s", code, err, out)
	}
}

// Each of the smaller commands' --json documents validates against its
// schema (printJSON validates in tests), NaN ratios written as null.
func TestSmallJSONKindsValidate(t *testing.T) {
	sim := &capture.Similarity{Phase: "measure", Statements: []capture.StatementSimilarity{
		{ID: "Q1", Calls: 10, RowsRatio: math.NaN(), BlocksRatio: 2},
	}, Flags: []string{}}
	docs := []struct {
		kind string
		v    any
		want string
	}{
		{jsonCaptureCompare, newJSONCaptureCompare(sim), `"rows_ratio": null`},
		{jsonMask, jsonMaskResult{Schema: jsonSchemaID(jsonMask), Result: mask.Result{Database: "clone", Columns: []mask.ColumnResult{{Table: "users", Column: "email", Rows: 3}}}}, `"table": "users"`},
		{jsonLocalStatus, newLocalStatusJSON(localpg.Status{Name: "default", State: localpg.Running, Port: 5432, Listen: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:5432")}}), `"127.0.0.1:5432"`},
		{jsonCheck, jsonChecks{Schema: jsonSchemaID(jsonCheck), Checks: []results.TPCCCheck{{Condition: 1, What: "W_YTD = sum(D_YTD)", Pass: true, Checked: 1}}}, `"condition": 1`},
	}
	for _, d := range docs {
		kind := d.kind
		var out bytes.Buffer
		if err := printJSON(&out, kind, d.v); err != nil {
			t.Errorf("%s: %v", kind, err)
			continue
		}
		if !strings.Contains(out.String(), d.want) || !strings.Contains(out.String(), `"schema": "pgtrial.`+kind+`/v1"`) {
			t.Errorf("%s: lacks %s or its schema id:\n%s", kind, d.want, out.String())
		}
	}
}

// An option after "--" would be a B directory: compare says where options go.
func TestCompareOptionAfterDash(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runCLI(t, "compare", dir, "--", dir, "--fail-on", "tps<-3%")
	if code != 1 || !strings.Contains(errOut, `"--fail-on" after "--" is taken as a B directory: options go before the directories`) {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// --segment and --start-at refuse what cannot make one schedule, before any
// client connects.
func TestRunSegmentRefusals(t *testing.T) {
	url := pgtest.ConnString(t)
	base := []string{"run", url, "-f", writeScript(t, t.TempDir(), "s.sql", "SELECT 1;\n"), "--rate", "100", "-c", "4", "-T", "1s", "--no-collect", "--no-report", "--run-dir", filepath.Join(t.TempDir(), "r")}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-j", "4", "--segment", "0/3"}, "give -j a multiple of 3"},
		{[]string{"-j", "2", "--segment", "2/2"}, "i must be 0 to n−1 = 1"},
		{[]string{"-j", "2", "--segment", "0/2", "--start-at", "2001-01-01T00:00:00Z"}, "ago: give every segment the same instant in the future"},
		{[]string{"-j", "2", "--segment", "0/2", "--start-at", "noon"}, "want an RFC 3339 time"},
		{[]string{"-j", "2", "--start-at", "2099-01-01T00:00:00Z"}, "--start-at goes with --segment"},
		{[]string{"--segment", "0/2"}, "--segment needs -j"},
		{[]string{"-j", "2", "--segment", "0/2"}, "--segment needs one seed for all the segments"},
		{[]string{"-j", "2", "--segment", "0/2", "--random-seed", "time"}, "each segment would draw its own seed"},
	} {
		code, _, errOut := runCLI(t, append(base, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 1 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
