package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// TestExperimentCalibrateFlags: bad --calibrate values and a calibration
// of a ramp are refused before any connection, with the flag named.
func TestExperimentCalibrateFlags(t *testing.T) {
	dir := t.TempDir()
	closed := filepath.Join(dir, "closed.yaml")
	ramp := filepath.Join(dir, "ramp.yaml")
	for p, text := range map[string]string{
		closed: "load: {clients: 2, closed: true}\nprotocol: {window: 1s}\n",
		ramp:   "load: {ramp: {by: clients, from: 1, to: 4, steps: 2, step_duration: 1s}}\n",
	} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--calibrate=often", closed}, "--calibrate=often: use --calibrate"},
		{[]string{"--calibrate-runs", "2", closed}, "--calibrate-runs 2: calibration runs 2: use 3 to 100"},
		{[]string{"--calibrate=off", "--calibrate-runs", "5", closed}, "exclude each other"},
		{[]string{"--calibrate", ramp}, "--calibrate: calibration measures the spread of runs at one load (rate or closed); experiment ramp is a ramp"},
	} {
		code, _, errOut := runCLI(t, append([]string{"experiment", "--check"}, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
	if code, out, errOut := runCLI(t, "experiment", "--check", "--calibrate=adjust", "--calibrate-runs", "5", closed); code != 0 || !strings.Contains(out, "valid") {
		t.Errorf("--calibrate=adjust --calibrate-runs 5: exit %d, %q %q", code, out, errOut)
	}
}

// TestExperimentCalibrate: --calibrate-runs 3 makes three A/A runs of the
// first variant before the real runs, prints the calibration before them
// and in the summary, records it in experiment.json with its runs (in runs/,
// out of the comparison), and warns that 2 repeats are fewer than needed
// (never fewer than 4 can reach p < 0.05).
func TestExperimentCalibrate(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Measure(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "cal.yaml")
	if err := os.WriteFile(file, []byte(`
name: cal
workload: {builtin: select-only, scale: 1}
load: {clients: 2, closed: true}
protocol: {warmup: 0s, window: 2s, repeats: 2}
variants: [{name: a}, {name: b}]
collect: false
`), 0o644); err != nil {
		t.Fatal(err)
	}
	expDir := filepath.Join(dir, "exp")
	code, out, errOut := runCLI(t, "experiment", "--url", url, "--dir", expDir, "--quiet", "--calibrate-runs", "3", file)
	if code != 0 {
		t.Fatalf("experiment: exit %d\n%s", code, errOut)
	}
	rec, err := experiment.LoadRecord(expDir)
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Calibration
	if c == nil {
		t.Fatalf("experiment.json has no calibration:\n%s", out)
	}
	if c.Runs != 3 || c.Planned != 3 || c.Metric != "tps" || c.Variant != "a" || c.CV == nil || c.Margin != 0.05 ||
		c.RunsNeeded < 4 || c.Repeats != 2 || c.Adjusted != 0 || len(c.RunRecords) != 3 || len(c.Values) != 3 {
		t.Errorf("calibration: %+v", c)
	}
	for _, rr := range c.RunRecords {
		if rr.Phase != experiment.PhaseCalibration || rr.Variant != "a" || rr.TPS <= 0 {
			t.Errorf("calibration run %+v", rr)
		}
		if _, err := os.Stat(filepath.Join(expDir, rr.Dir, "run.json")); err != nil {
			t.Errorf("calibration run %d: %v", rr.N, err)
		}
	}
	// The real runs come after, numbered on, and only they are compared.
	if len(rec.Runs) != 4 || rec.Runs[0].N != 4 || len(rec.Comparisons) != 1 ||
		len(rec.Comparisons[0].RunsA) != 2 || len(rec.Comparisons[0].RunsB) != 2 {
		t.Fatalf("runs %+v, comparisons %d", rec.Runs, len(rec.Comparisons))
	}
	for _, rr := range rec.Runs {
		if rr.Phase != "" {
			t.Errorf("run %d has phase %q", rr.N, rr.Phase)
		}
	}
	head := "calibration: 3 runs of a: tps CV "
	tail := "runs a side at 80 % power (the experiment has 2)"
	if !strings.Contains(c.Text, head) || !strings.Contains(c.Text, tail) {
		t.Errorf("text %q", c.Text)
	}
	if !strings.Contains(out, "  "+c.Text+"\n") {
		t.Errorf("the summary lacks %q:\n%s", c.Text, out)
	}
	cal, first := strings.Index(errOut, "pgtrial: "+c.Text), strings.Index(errOut, "pgtrial: run 1 of 4")
	if cal < 0 || first < 0 || cal > first {
		t.Errorf("the calibration is not printed before the real runs:\n%s", errOut)
	}
	if !strings.Contains(out, "warning: calibration: 2 repeats a variant are fewer than the") {
		t.Errorf("no warning about the repeats:\n%s", out)
	}
}
