package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/pgtest"
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
			"-D", "uniform=0", "-D", "latest=0", "-D", "fields=4", "-D", "field_length=50"}
		for _, s := range m.Scripts {
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
