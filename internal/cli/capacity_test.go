package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/capacity"
	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/script"
)

// TestCapacityBadFlags: every bad flag is refused before anything connects
// (the URL points at a port nothing listens on), naming the flag and a
// valid example.
func TestCapacityBadFlags(t *testing.T) {
	tmp := t.TempDir()
	t.Chdir(tmp)
	sql := filepath.Join(tmp, "s.sql")
	if err := os.WriteFile(sql, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	used := filepath.Join(tmp, "used")
	if err := os.MkdirAll(used, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(used, experiment.File), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	const url = "postgres://nobody@127.0.0.1:1/none"
	slo := []string{"--slo", "p99=50ms"}
	tests := []struct {
		args []string
		want []string
	}{
		{nil, []string{"--slo is required", "--slo p99=50ms"}},
		{[]string{"--slo", ""}, []string{"--slo is required"}},
		{[]string{"--slo", "p99"}, []string{`invalid --slo "p99"`, "QUANTILE=LIMIT", "p99=50ms"}},
		{[]string{"--slo", "p98=50ms"}, []string{`invalid --slo "p98=50ms"`, "p50, p90, p95, p99 or p99.9", "p99=50ms"}},
		{[]string{"--slo", "p99=50"}, []string{`invalid --slo "p99=50"`, "Go syntax", "p99=50ms"}},
		{[]string{"--slo", "p99=fast"}, []string{`invalid --slo "p99=fast"`, "p99=50ms"}},
		{[]string{"--slo", "p99=0s"}, []string{`invalid --slo "p99=0s"`, "above 0"}},
		{[]string{"--slo", "p99.9=-5ms"}, []string{"above 0", "p99.9=50ms"}},
		{append([]string{"--fractions", "0.3,abc"}, slo...), []string{"invalid --fractions", `"abc" is not a number`, "0.3,0.6,0.9"}},
		{append([]string{"--fractions", "0.6,0.3"}, slo...), []string{"invalid --fractions", "increasing order"}},
		{append([]string{"--fractions", "0,0.5"}, slo...), []string{"invalid --fractions", "above 0 and at most 1"}},
		{append([]string{"--fractions", "0.5,1.5"}, slo...), []string{"invalid --fractions", "1.5", "at most 1"}},
		{append([]string{"--fractions", ""}, slo...), []string{"invalid --fractions", "0.3,0.6,0.9"}},
		{append([]string{"-b", "select-only", "-f", sql}, slo...), []string{"-b/--builtin and -f/--file exclude each other"}},
		{append([]string{"-b", "nosuch"}, slo...), []string{"invalid -b/--builtin", `no built-in script "nosuch"`, "tpcb-like"}},
		{append([]string{"-f", filepath.Join(tmp, "missing.sql")}, slo...), []string{"invalid -f/--file", "missing.sql"}},
		{append([]string{"-f", sql + "@0"}, slo...), []string{"add up to 0", "@WEIGHT"}},
		{append([]string{"-f", sql + "@x"}, slo...), []string{"invalid -f/--file", "invalid weight"}},
		{append([]string{"-c", "0"}, slo...), []string{"invalid --clients 0", "-c 8"}},
		{append([]string{"-c", "many"}, slo...), []string{`--clients" flag`}},
		{append([]string{"-j", "-1"}, slo...), []string{"invalid --threads -1"}},
		{append([]string{"-M", "fast"}, slo...), []string{`invalid --protocol "fast"`, "-M prepared"}},
		{append([]string{"--window", "500ms"}, slo...), []string{"invalid --window", "--window 2m", "checkpoint_timeout"}},
		{append([]string{"--warmup", "abc"}, slo...), []string{`"--warmup"`, "90s"}},
		{append([]string{"--ceiling-repeats", "0"}, slo...), []string{"invalid --ceiling-repeats 0", "--ceiling-repeats 3"}},
		{append([]string{"--bracket-repeats", "0"}, slo...), []string{"invalid --bracket-repeats 0", "--bracket-repeats 3"}},
		{append([]string{"--bracket-repeats", "101"}, slo...), []string{"invalid --bracket-repeats 101", "1 to 100"}},
		{append([]string{"--precision", "0"}, slo...), []string{"invalid --precision", "--precision 0.05"}},
		{append([]string{"--precision", "0.9"}, slo...), []string{"invalid --precision", "at most 0.5"}},
		{append([]string{"--max-steps", "0"}, slo...), []string{"invalid --max-steps 0", "--max-steps 8"}},
		{append([]string{"--seed", "abc"}, slo...), []string{`invalid --seed "abc"`, "--seed 42"}},
		{append([]string{"--dir", used}, slo...), []string{"already holds an experiment", "--dir"}},
		{append([]string{"--url", url}, slo...), []string{"either as an argument or with --url"}},
	}
	for _, tt := range tests {
		args := append([]string{"capacity", url}, tt.args...)
		code, out, errOut := runCLI(t, args...)
		if code != exitBadInput {
			t.Errorf("%q: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", tt.args, code, out, errOut)
			continue
		}
		if !strings.HasPrefix(errOut, "pgtrial: error: ") || strings.Contains(errOut, "connect") {
			t.Errorf("%q: stderr %q", tt.args, errOut)
		}
		for _, w := range tt.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%q: stderr %q lacks %q", tt.args, errOut, w)
			}
		}
	}
	ents, _ := os.ReadDir(tmp)
	for _, e := range ents {
		if e.Name() != "s.sql" && e.Name() != "used" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestCapacitySpec: the flags' defaults make the spec the experiment
// file's parser would make for the same search.
func TestCapacitySpec(t *testing.T) {
	o := &capacityOptions{
		builtin: experiment.DefaultBuiltin, clients: 8, protocol: "prepared",
		warmup: durationFlag{d: 10 * time.Second}, window: durationFlag{d: 30 * time.Second},
		fractions: "0.3,0.6,0.9", ceilingRepeats: 3, bracketRepeats: 3, precision: 0.05, maxSteps: 8, slo: "p95=10ms",
	}
	s, err := capacitySpec(o, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if s.Model() != experiment.ModelSearch || s.File != "capacity" || s.Name != "capacity" {
		t.Errorf("model %v, file %q, name %q", s.Model(), s.File, s.Name)
	}
	if s.Target.Local != "default" || s.Target.URL != "" {
		t.Errorf("target %+v", s.Target)
	}
	w := s.Workload
	if w.Builtin != "tpcb-like" || len(w.Scripts) != 0 || w.Protocol != script.Prepared || w.MaxTries != 1 {
		t.Errorf("workload %+v", w)
	}
	l := s.Load
	if l.Clients != 8 || l.Threads != 0 || l.Rate != 0 || l.Closed || l.Ramp != nil || l.Arrival != engine.Poisson || l.Overload != engine.Queue || l.LatencyLimit != 0 {
		t.Errorf("load %+v", l)
	}
	if p := s.Protocol; p.Warmup != 10*time.Second || p.Window != 30*time.Second || p.Repeats != 1 || !p.Interleave {
		t.Errorf("protocol %+v", p)
	}
	if len(s.Variants) != 1 || s.Variants[0].Name != experiment.DefaultVariant || len(s.SLOs) != 0 || s.Seed != nil {
		t.Errorf("variants %+v, slos %+v, seed %v", s.Variants, s.SLOs, s.Seed)
	}
	sr := s.Search
	if sr.SLO.Quantile != 0.95 || sr.SLO.Limit != 10*time.Millisecond || len(sr.Fractions) != 3 || sr.Fractions[2] != 0.9 ||
		sr.CeilingRepeats != 3 || sr.BracketRepeats != 3 || sr.Precision != 0.05 || sr.MaxSteps != 8 {
		t.Errorf("search %+v", sr)
	}
	if c := s.Collect; c.Off || c.Kinds != nil || c.WaitInterval != experiment.DefaultWaitInterval || c.WaitSource != collect.WaitSourceAuto || s.Interval != experiment.DefaultInterval {
		t.Errorf("collect %+v, interval %v", c, s.Interval)
	}

	// Script files with weights, a URL, a seed.
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.sql"), filepath.Join(dir, "b.sql")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte("SELECT 1;\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o.files, o.url, o.seed, o.noCollect = []string{a + "@9", b}, "postgres://u@db1/bench", "42", true
	s, err = capacitySpec(o, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	want := []experiment.Script{{File: a, Path: a, Weight: 9}, {File: b, Path: b, Weight: 1}}
	if s.Workload.Builtin != "" || len(s.Workload.Scripts) != 2 || s.Workload.Scripts[0] != want[0] || s.Workload.Scripts[1] != want[1] {
		t.Errorf("scripts %+v", s.Workload.Scripts)
	}
	if !s.Target.Remote() || s.Seed == nil || *s.Seed != 42 || !s.Collect.Off {
		t.Errorf("target %+v, seed %v, collect %+v", s.Target, s.Seed, s.Collect)
	}
}

// TestCapacitySearch searches a workload of known capacity: pg_sleep(10 ms)
// by 4 clients holds about 400 tx/s at most. The SLO (p99 ≤ 100 ms) is far
// above the 10 ms service time, so the machine's scheduling noise (p99 of
// a 4 ms sleep reached 30 ms at 4 % load while the test suite ran) cannot
// decide it; queueing near the ceiling can.
func TestCapacitySearch(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Measure(t)
	tmp := t.TempDir()
	sql := filepath.Join(tmp, "sleep.sql")
	if err := os.WriteFile(sql, []byte("SELECT pg_sleep(0.01);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "search")
	start := time.Now()
	out, errOut := mustRun(t, 0, "capacity", url, "-f", sql, "-c", "4", "--slo", "p99=100ms",
		"--warmup", "1s", "--window", "3s", "--ceiling-repeats", "1", "--fractions", "0.3,0.6,0.9",
		"--max-steps", "2", "--bracket-repeats", "2", "--no-collect", "--quiet", "--dir", dir)
	t.Logf("search took %v", time.Since(start).Round(time.Second))
	js, err := os.ReadFile(filepath.Join(dir, experiment.File))
	if err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	var rec experiment.Record
	if err := json.Unmarshal(js, &rec); err != nil {
		t.Fatalf("experiment.json: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, experiment.File)); err != nil {
		t.Error(err)
	}
	if rec.Model != "search" || rec.Clients != 4 || rec.Error != "" || rec.Interrupted {
		t.Errorf("model %q, clients %d, error %q, interrupted %v", rec.Model, rec.Clients, rec.Error, rec.Interrupted)
	}
	r := rec.Search
	if r == nil {
		t.Fatalf("no search in experiment.json; stderr:\n%s", errOut)
	}
	t.Logf("ceiling %.1f tx/s; capacity %.1f tx/s; stopped: %s", r.Ceiling, r.Rate, r.Stopped)
	for _, st := range r.Steps {
		t.Logf("  run %d %-8s %6.1f tx/s (%.0f %%): achieved %6.1f, p99 %v, lag growing %v, pass %v: %s",
			st.N, st.Phase, st.Probe.Rate, 100*st.Fraction, st.Probe.Achieved, st.Probe.Quantile, st.Probe.LagGrowing, st.Pass, st.Why)
	}
	t.Logf("conclusion: %s", capacity.Conclusion(r))
	if len(r.CeilingRuns) != 1 || r.Ceiling < 150 || r.Ceiling > 420 {
		t.Errorf("ceiling %.1f tx/s from %d runs: want about 380 (4 clients × 1/10 ms) from 1", r.Ceiling, len(r.CeilingRuns))
	}
	if r.Config.Limit != 100*time.Millisecond || r.Config.Quantile != 0.99 || r.Config.MaxSteps != 2 {
		t.Errorf("config %+v", r.Config)
	}
	if r.Rate <= 0 || r.Pass == nil {
		t.Fatalf("no capacity found: rate %v, stopped %q", r.Rate, r.Stopped)
	}
	if r.Pass.Probe.Rate != r.Rate || !r.Pass.Pass || r.Pass.Probe.Quantile > 100*time.Millisecond {
		t.Errorf("pass run %+v does not meet p99 ≤ 100ms at %v tx/s", r.Pass, r.Rate)
	}
	if f := r.Fail; f != nil {
		if f.Probe.Rate <= r.Rate || f.Pass {
			t.Errorf("fail run %+v: want a miss above %v tx/s", f, r.Rate)
		}
	} else if r.Stopped != capacity.StopAtCeiling {
		t.Errorf("no failing run, stopped %q", r.Stopped)
	}
	if r.Rate > r.Ceiling*1.0001 {
		t.Errorf("capacity %v above the ceiling %v", r.Rate, r.Ceiling)
	}

	// The answer is an interval whose ends were repeated, in the record
	// and in the text.
	if r.RunsPerRate != 2 || r.Low != r.Rate {
		t.Errorf("runs per rate %d, low %v, rate %v", r.RunsPerRate, r.Low, r.Rate)
	}
	repeats := 0
	for _, st := range r.Steps {
		if st.Phase == capacity.PhaseRepeat {
			repeats++
		}
	}
	for _, end := range []float64{r.Low, r.High} {
		for _, rr := range r.Rates {
			if rr.Rate == end && (len(rr.Runs) != 2 || (rr.Passed != 0 && rr.Passed != 2)) {
				t.Errorf("end %v: %+v, want 2 runs that agree", end, rr)
			}
		}
	}
	if repeats == 0 {
		t.Error("no repeat runs: the interval's ends were not repeated")
	}
	want := fmt.Sprintf("capacity: between %s and %s tx/s at p99 ≤ 100 ms (2 runs each): ", format.Sig3(r.Low), format.Sig3(r.High))
	if r.High == 0 {
		want = fmt.Sprintf("capacity: at least %s tx/s at p99 ≤ 100 ms: ", format.Sig3(r.Low))
	}
	if !strings.Contains(out, want) || !strings.Contains(out, "rates tried (an end of the interval needs 2 runs that agree):") {
		t.Errorf("stdout lacks %q and the rates table:\n%s", want, out)
	}
}
