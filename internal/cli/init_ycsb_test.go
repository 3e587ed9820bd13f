package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// TestYCSBInitAndRun: init -w ycsb loads the records, then short closed
// runs of ycsb-a and ycsb-e (their scripts as -f files with the probe's
// variables as -D) fail nothing, ycsb-e's inserts get new keys, and the
// summary has the hottest-keys line.
func TestYCSBInitAndRun(t *testing.T) {
	url := pgtest.ConnString(t)
	_, errOut := mustRun(t, 0, "init", "-w", "ycsb", "--records", "2000", "--fields", "4", "--field-length", "50", "-j", "2", "--url", url)
	if !strings.HasPrefix(lastLine(errOut), "done in ") {
		t.Fatalf("init stderr:\n%s", errOut)
	}
	if n := countRows(t, url, "usertable"); n != 2000 {
		t.Fatalf("%d records, want 2000", n)
	}
	dir := t.TempDir()
	for _, name := range []string{"ycsb-a", "ycsb-e"} {
		m, _ := workload.FindMix(name)
		args := []string{"run", url, "--closed", "-c", "2", "-T", "2s", "--warmup", "0s", "--no-collect",
			"--run-dir", filepath.Join(dir, name),
			"-D", "records=2000", "-D", "maxkey=" + strconv.Itoa(1999+int(countRows(t, url, "usertable")-2000)),
			"-D", "uniform=0", "-D", "latest=0", "-D", "scrambled=1", "-D", "fields=4", "-D", "field_length=50"}
		ms, err := m.ForVars(map[string]string{"fields": "4"}) // the scripts for usertable's 4 fields
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ms {
			p := filepath.Join(dir, name+"-"+s.Name+".sql")
			if err := os.WriteFile(p, []byte(s.Script), 0o600); err != nil {
				t.Fatal(err)
			}
			args = append(args, "-f", p+"@"+strconv.Itoa(s.Weight))
		}
		out, errOut := mustRun(t, 0, args...)
		all := out + errOut
		// In-process, run.json's command line is the test binary's, so the
		// expectation (from -D records) is the report test's to check.
		if !strings.Contains(all, "hottest 1 % of keys (") || !strings.Contains(all, "% of operations") {
			t.Errorf("%s: no hottest-keys line:\n%s", name, all)
		}
		if !strings.Contains(all, "total: ") || !strings.Contains(all, "failed 0 (0.00 %)") || strings.Contains(all, "failed 1") {
			t.Errorf("%s: failures or no total:\n%s", name, all)
		}
	}
	if n := countRows(t, url, "usertable"); n <= 2000 {
		t.Errorf("ycsb-e inserted nothing: %d records", n)
	}
}

// TestYCSBProbeVarsInRunJSON: after ycsb-e's inserts (usertable holds
// more than ycsb_meta's 2000 records), a run of -b ycsb-a records the
// probe's variables as the clients got them in run.json's workload.probe
// (ycsb_meta's records and fields, the sequence's maxkey, a -D's value
// where one overrides), the hottest-keys expectation is over those
// records, not the table's size, and the updates wrote every one of the
// 4 fields (a loaded field is [A-Za-z0-9], a written one md5 hex);
// ycsb-d runs in the simple and prepared protocols.
func TestYCSBProbeVarsInRunJSON(t *testing.T) {
	url := pgtest.ConnString(t)
	mustRun(t, 0, "init", "-w", "ycsb", "--records", "2000", "--fields", "4", "--field-length", "50", "-j", "1", "--url", url)
	dir := t.TempDir()
	run := func(name string, extra ...string) (string, *results.Run) {
		t.Helper()
		rd := filepath.Join(dir, name+strings.Join(extra, ""))
		args := append([]string{"run", url, "--closed", "-c", "2", "-T", "2s", "--warmup", "0s", "--no-collect", "--run-dir", rd, "-b", name}, extra...)
		out, errOut := mustRun(t, 0, args...)
		r, err := results.Load(rd)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out+errOut, "failed 0 (0.00 %)") {
			t.Errorf("%s: failures:\n%s%s", name, out, errOut)
		}
		return out + errOut, r
	}
	run("ycsb-e")
	rows := countRows(t, url, "usertable")
	if rows <= 2000 {
		t.Fatalf("ycsb-e inserted nothing: %d records", rows)
	}
	out, r := run("ycsb-a")
	p := r.Workload.Probe
	maxkey, _ := strconv.ParseInt(p["maxkey"], 10, 64)
	if p["records"] != "2000" || p["fields"] != "4" || p["field_length"] != "50" || p["latest"] != "0" || p["uniform"] != "0" || p["scrambled"] != "1" || maxkey != rows-1 {
		t.Errorf("run.json's workload.probe %v, want ycsb_meta's records 2000, fields 4, field_length 50, maxkey %d, zipfian", p, rows-1)
	}
	if !strings.Contains(out, "(expected ") || !strings.Contains(out, "for zipfian θ=0.99 over 2000 records)") {
		t.Errorf("the expectation is not over the probe's 2000 records (usertable has %d):\n%s", rows, out)
	}
	for f := range 4 {
		var n int64
		pgtest.QueryRow(t, url, fmt.Sprintf("SELECT count(*) FROM usertable WHERE field%d ~ '^[0-9a-f]{50}$'", f), nil, &n)
		if n == 0 {
			t.Errorf("no update wrote field%d", f)
		}
	}
	// A -D overrides the probe's column: the clients and run.json get it.
	out, r = run("ycsb-c", "-D", "records=1500", "-D", "scrambled=0")
	if p := r.Workload.Probe; p["records"] != "1500" || p["scrambled"] != "0" || p["fields"] != "4" {
		t.Errorf("run.json's workload.probe %v, want -D's records 1500 and scrambled 0", p)
	}
	if !strings.Contains(out, "for unscrambled zipfian θ=0.99 over 1500 records)") {
		t.Errorf("the expectation is not the -D's:\n%s", out)
	}
	// ycsb-d reads the newest keys through the sequence, in every protocol,
	// and its expectation is simulated with the moving newest key.
	for _, proto := range []string{"simple", "prepared"} {
		before := countRows(t, url, "usertable")
		out, r = run("ycsb-d", "--protocol", proto)
		if r.Workload.Probe["latest"] != "1" || !strings.Contains(out, "for latest θ=0.99 from ") {
			t.Errorf("ycsb-d %s: probe %v\n%s", proto, r.Workload.Probe, out)
		}
		if countRows(t, url, "usertable") <= before {
			t.Errorf("ycsb-d %s inserted nothing", proto)
		}
	}
}
