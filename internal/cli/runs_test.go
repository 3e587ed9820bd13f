package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results/resultstest"
	"github.com/pgtrial/pgtrial/internal/runlist"
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
	var got []runlist.Entry
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || len(got) != 2 {
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
