package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// cmpRun describes one synthetic run for the compare tests.
type cmpRun struct {
	tps, p99 float64
	workload string            // default "tpcb-like"
	clients  int               // default 8
	skipped  int64             // of 30 000 scheduled
	failed   int64             // taken besides the committed
	started  time.Time         // zero: the test's order
	evidence *results.Evidence // nil: no collectors
	noSum    bool              // no summary (ended in the warm-up)
}

var cmpEpoch = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// writeCmpRun writes a finished run directory with results.Create and
// Finish: an open-model run at 500 tx/s whose summary has r's figures (p50,
// p95, p99.9 and max follow p99 at fixed ratios).
func writeCmpRun(t *testing.T, dir string, r cmpRun) string {
	t.Helper()
	if r.workload == "" {
		r.workload = "tpcb-like"
	}
	if r.clients == 0 {
		r.clients = 8
	}
	run := &results.Run{
		Tool:      results.Tool{Name: "pgtrial"},
		StartedAt: r.started,
		Workload:  results.Workload{Name: r.workload, Scripts: []results.ScriptWeight{{Name: r.workload, Weight: 1}}, Scale: 10},
		Model:     results.Model{Kind: results.ModelOpen, Clients: r.clients, Rate: 500, Arrival: "poisson", Overload: "queue", DurationS: 60},
	}
	d, err := results.Create(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	if !r.noSum {
		committed := int64(r.tps * 60)
		run.Summary = &results.Summary{
			Duration: 60, TargetRate: 500, AchievedRate: r.tps,
			Total: results.ScriptSummary{
				Name: "total", Committed: committed, TPS: r.tps, Skipped: r.skipped, Failed: r.failed,
				Response: results.Percentiles{P50: r.p99 / 4, P90: r.p99 / 2, P95: r.p99 / 1.5, P99: r.p99, P999: r.p99 * 2, Max: r.p99 * 3},
			},
		}
	}
	run.Evidence = r.evidence
	run.Checks = []results.Check{{Name: "repeats", Status: "warn", Value: 1, Message: "1 run"},
		{Name: "open_model_latency", Status: "pass", Value: 500.0, Message: "open model"}}
	if err := d.Finish(run); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeCmpSides writes A's runs and B's runs interleaved in time (A B A B …)
// under root/a/NN and root/b/NN and returns their directories.
func writeCmpSides(t *testing.T, root string, a, b []cmpRun) (aDirs, bDirs []string) {
	t.Helper()
	for i := range max(len(a), len(b)) {
		if i < len(a) {
			a[i].started = cmpEpoch.Add(time.Duration(2*i) * time.Minute)
			aDirs = append(aDirs, writeCmpRun(t, filepath.Join(root, "a", twoDigits(i)), a[i]))
		}
		if i < len(b) {
			b[i].started = cmpEpoch.Add(time.Duration(2*i+1) * time.Minute)
			bDirs = append(bDirs, writeCmpRun(t, filepath.Join(root, "b", twoDigits(i)), b[i]))
		}
	}
	return aDirs, bDirs
}

func twoDigits(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

// fourVsFour: B's p99 is 30 % higher than A's with ±1 % noise; the tps are
// the same up to noise, interleaved.
func fourVsFour() (a, b []cmpRun) {
	a = []cmpRun{{tps: 800, p99: 20.0}, {tps: 810, p99: 20.4}, {tps: 805, p99: 19.8}, {tps: 795, p99: 20.2}}
	b = []cmpRun{{tps: 802, p99: 26.0}, {tps: 808, p99: 26.5}, {tps: 798, p99: 25.7}, {tps: 806, p99: 26.3}}
	return a, b
}

// verdictLine is the verdict line of metric in the text output ("" if none).
func verdictLine(out, metric string) string {
	_, rest, ok := strings.Cut(out, "verdicts (")
	if !ok {
		return ""
	}
	for _, line := range strings.Split(rest, "\n") {
		line = strings.TrimSpace(line)
		if strings.Contains(line, ": "+metric+" ") || strings.Contains(line, "("+metric+" ") {
			return line
		}
	}
	return ""
}

// compareOK runs `pgtrial compare A… -- B…` and returns its stdout; it
// fails the test unless the exit status is 0.
func compareOK(t *testing.T, aDirs, bDirs []string) string {
	t.Helper()
	args := append(append(append([]string{"compare"}, aDirs...), "--"), bDirs...)
	out, _ := mustRun(t, 0, args...)
	return out
}

func TestCompareFourVsFour(t *testing.T) {
	a, b := fourVsFour()
	aDirs, bDirs := writeCmpSides(t, t.TempDir(), a, b)
	out := compareOK(t, aDirs, bDirs)
	p99 := verdictLine(out, "p99")
	// All 4 B runs above all 4 A runs: exact two-sided p = 2/C(8,4) = 2/70.
	// Open runs: p99 is the primary metric, the others exploratory.
	for _, want := range []string{"primary: B slower: p99 +30 %, 97.1 % interval [+", "Mann-Whitney exact p = 0.029, 4 vs 4 runs"} {
		if !strings.Contains(p99, want) {
			t.Errorf("p99 verdict %q lacks %q\n%s", p99, want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^  exploratory, (equivalent within ±5 %|inconclusive): tps(,|$)`).MatchString(out) {
		t.Errorf("tps is not among the exploratory metrics without a difference\n%s", out)
	}
	for _, want := range []string{
		"compare: A (4 runs) vs B (4 runs): tpcb-like, open model at 500.0 tx/s, 8 clients",
		"p99 ms", "20.100 (19.800–20.400)", "26.150 (25.700–26.500)", // median (min–max) per side
		"pass  repeats", "pass  interleaved", "pass  open_model_latency",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
	if strings.Contains(out, "warning:") {
		t.Errorf("4 vs 4 same-model runs: unexpected warning\n%s", out)
	}
	// The same runs and seed give the same output; --a/--b is the same as "--".
	flagArgs := []string{"compare"}
	for _, d := range aDirs {
		flagArgs = append(flagArgs, "--a", d)
	}
	for _, d := range bDirs {
		flagArgs = append(flagArgs, "--b", d)
	}
	if code, out2, errOut := runCLI(t, flagArgs...); code != 0 || out2 != out {
		t.Errorf("--a/--b: exit %d (%s), output differs from the \"--\" form:\n%s", code, errOut, out2)
	}
}

func TestCompareJSON(t *testing.T) {
	a, b := fourVsFour()
	aDirs, bDirs := writeCmpSides(t, t.TempDir(), a, b)
	args := append(append(append([]string{"compare", "--json", "--name-a", "on", "--name-b", "off", "--primary", "p99"}, aDirs...), "--"), bDirs...)
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep compare.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, out)
	}
	if rep.NameA != "on" || rep.NameB != "off" || len(rep.RunsA) != 4 || len(rep.RunsB) != 4 || rep.Primary != "p99" || rep.Tests < 8 {
		t.Errorf("header: %+v", rep)
	}
	byName := map[string]compare.Metric{}
	for _, m := range rep.Metrics {
		byName[m.Metric] = m
	}
	for _, name := range []string{"tps", "p50", "p95", "p99", "p99.9", "max", "skipped+dropped %", "failed %"} {
		if _, ok := byName[name]; !ok {
			t.Errorf("metric %q missing", name)
		}
	}
	p99 := byName["p99"].Verdict
	if p99.Direction != "worse" || !p99.BHigher || p99.NA != 4 || p99.NB != 4 {
		t.Errorf("p99 verdict: direction %q, b_higher %v, %d vs %d", p99.Direction, p99.BHigher, p99.NA, p99.NB)
	}
	if p99.P < 0.0285 || p99.P > 0.0286 || !p99.Ratio.OK || p99.Ratio.Lo <= 1 || p99.Ratio.Hi >= 1.4 || p99.Ratio.Method != stats.MethodHL || p99.Role != stats.RolePrimary {
		t.Errorf("p99: p = %g, ratio %+v", p99.P, p99.Ratio)
	}
	if !strings.HasPrefix(p99.Text, "off slower: p99 +30 %") {
		t.Errorf("p99 text %q does not use --name-b", p99.Text)
	}
	if v := byName["tps"].Verdict; v.Direction != "none" || v.Outcome == stats.OutcomeDiffers || v.Role != stats.RoleExploratory || v.Holm == nil {
		t.Errorf("tps verdict %+v", v)
	}
	if vals := byName["p99"].ValuesB; len(vals) != 4 || vals[0] == nil || *vals[0] != 26.0 {
		t.Errorf("p99 values_b %v", vals)
	}
	if len(rep.Checks) == 0 {
		t.Error("no checklist in the JSON")
	}
}

func TestCompareOneVsOne(t *testing.T) {
	root := t.TempDir()
	a := writeCmpRun(t, filepath.Join(root, "a"), cmpRun{tps: 800, p99: 20})
	b := writeCmpRun(t, filepath.Join(root, "b"), cmpRun{tps: 900, p99: 40})
	code, out, errOut := runCLI(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"warning: 1 vs 1 runs: one run a side cannot separate a difference from noise",
		"warn  repeats",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
	// p99 doubled, yet nothing can be declared from one run a side.
	if p99 := verdictLine(out, "p99"); !strings.HasPrefix(p99, "primary: inconclusive: p99 ratio 2.00 (no 95 % interval with 1 vs 1 runs)") {
		t.Errorf("p99 verdict %q\n%s", p99, out)
	}
}

func TestCompareRefusesDifferentRuns(t *testing.T) {
	root := t.TempDir()
	a := writeCmpRun(t, filepath.Join(root, "a"), cmpRun{tps: 800, p99: 20})
	b := writeCmpRun(t, filepath.Join(root, "b"), cmpRun{tps: 9000, p99: 2, workload: "select-only", clients: 16})
	code, out, errOut := runCLI(t, "compare", a, b)
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q; want 1 and nothing", code, out)
	}
	for _, want := range []string{
		"differ in workload or load model", "--force",
		`workload: "tpcb-like" (A#1); "select-only" (B#1)`,
		"scripts: [tpcb-like@1] (A#1); [select-only@1] (B#1)",
		"clients: 8 (A#1); 16 (B#1)",
		"A#1 = " + a, "B#1 = " + b,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("error lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "rate:") || strings.Contains(errOut, "model:") {
		t.Errorf("error lists a property that does not differ:\n%s", errOut)
	}
	code, out, errOut = runCLI(t, "compare", "--force", a, b)
	if code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `warning: --force: the runs differ in workload: "tpcb-like" (A#1); "select-only" (B#1)`) {
		t.Errorf("--force output does not show the difference:\n%s", out)
	}
}

// A directory without run.json stands for its subdirectories that hold one.
func TestCompareExpandsExperimentDirectory(t *testing.T) {
	a, b := fourVsFour()
	root := t.TempDir()
	writeCmpSides(t, root, a, b)
	// Not runs: a file and a directory without run.json.
	if err := os.MkdirAll(filepath.Join(root, "a", "reports"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "experiment.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "compare", filepath.Join(root, "a"), filepath.Join(root, "b"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "A (4 runs) vs B (4 runs)") || !strings.Contains(out, filepath.Join(root, "a", "03")) {
		t.Errorf("the parent directories did not expand to 4 runs each:\n%s", out)
	}
	if !strings.Contains(verdictLine(out, "p99"), "B slower: p99") {
		t.Errorf("p99 verdict %q", verdictLine(out, "p99"))
	}
}

func TestCompareEvidence(t *testing.T) {
	// Statement 1 (the same queryid everywhere): A 4 blocks/call, B 6.5
	// (+50 % hit). Statement 2: B's tables were re-created, so its queryid
	// differs; matched by text. Lock waits: 5 % in A, 30 % in B.
	ev := func(hit, lockShare float64, q2id int64) *results.Evidence {
		return &results.Evidence{
			Statements: []results.StatementCost{
				{QueryID: 11, Query: "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", Calls: 1000, Share: 0.6, SharedHitPerCall: hit, SharedReadPerCall: 1},
				{QueryID: q2id, Query: "SELECT abalance FROM pgbench_accounts WHERE aid = $1", Calls: 1000, Share: 0.3, SharedHitPerCall: 3},
			},
			Waits: []results.WaitShare{
				{Type: "CPU", Event: "CPU", Share: 0.7 - lockShare},
				{Type: "Lock", Event: "transactionid", Share: lockShare * 0.8},
				{Type: "Lock", Event: "tuple", Share: lockShare * 0.2},
				{Type: "IO", Event: "DataFileRead", Share: 0.3},
			},
			WaitTypes: map[string]float64{"CPU": 0.7 - lockShare, "Lock": lockShare, "IO": 0.3},
		}
	}
	// 8 vs 8 runs: exploratory metrics are held to Holm's levels, which 4
	// vs 4 runs cannot reach.
	a4, b4 := fourVsFour()
	a, b := append(slices.Clone(a4), a4...), append(slices.Clone(b4), b4...)
	for i := range a {
		noise := float64(i) * 0.01
		a[i].evidence = ev(3+noise, 0.05+noise, 22)
		b[i].evidence = ev(5.5+noise, 0.30+noise, 33)
	}
	aDirs, bDirs := writeCmpSides(t, t.TempDir(), a, b)
	out := compareOK(t, aDirs, bDirs)
	for _, want := range []string{
		"exploratory: B worse: blocks/call s1 +", // 6.515/4.015 = +62 %
		"exploratory: B higher: Lock wait % +",
		"blocks/call s2", "IO wait %", // among the exploratory metrics without a difference
		"s1  queryid 11: UPDATE pgbench_accounts",
		"s2  queryid 22 (queryid differs between the sides: matched by query text): SELECT abalance",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
	if strings.Contains(out, "ran in") {
		t.Errorf("a statement was reported as one-sided:\n%s", out)
	}
	// Without evidence on one side, no evidence metrics.
	for i := range b {
		b[i].evidence = nil
	}
	aDirs, bDirs = writeCmpSides(t, t.TempDir(), a, b)
	if out = compareOK(t, aDirs, bDirs); strings.Contains(out, "blocks/call") || strings.Contains(out, "wait %") {
		t.Errorf("evidence metrics without evidence on B:\n%s", out)
	}
}

func TestCompareSkippedShare(t *testing.T) {
	// A skipped nothing, B skipped ~3 %: the ratio is undefined (A's median
	// is 0) and the verdict rests on the difference.
	a, b := fourVsFour()
	for i := range b {
		b[i].skipped = int64(1400 + 50*i)
	}
	aDirs, bDirs := writeCmpSides(t, t.TempDir(), a, b)
	out, _ := mustRun(t, 0, append(append(append([]string{"compare", "--primary", "skipped+dropped %"}, aDirs...), "--"), bDirs...)...)
	line := verdictLine(out, "skipped+dropped %")
	if !strings.HasPrefix(line, "primary: B worse: skipped+dropped % +2.") || !strings.Contains(line, "(a difference: a value is 0)") {
		t.Errorf("skipped verdict %q\n%s", line, out)
	}
	if !strings.Contains(out, "Δ +2.") {
		t.Errorf("table lacks the difference of shares\n%s", out)
	}
}

// TestCompareFailedShare: the failed share is a metric (lower is better),
// compared as the skipped share is.
func TestCompareFailedShare(t *testing.T) {
	// A failed nothing, B about 5 % (--continue-on-error): the ratio is
	// undefined (A's median is 0) and the verdict rests on the difference.
	a, b := fourVsFour()
	for i := range b {
		b[i].failed = int64(2500 + 50*i)
	}
	aDirs, bDirs := writeCmpSides(t, t.TempDir(), a, b)
	out, _ := mustRun(t, 0, append(append(append([]string{"compare", "--primary", "failed %"}, aDirs...), "--"), bDirs...)...)
	line := verdictLine(out, "failed %")
	if !strings.HasPrefix(line, "primary: B worse: failed % +5.") || !strings.Contains(line, "(a difference: a value is 0)") {
		t.Errorf("failed verdict %q\n%s", line, out)
	}
	if !regexp.MustCompile(`(?m)^  \* failed %  +0 \(0–0\) +5\.`).MatchString(out) {
		t.Errorf("table lacks the failed share\n%s", out)
	}
}

func TestCompareBadInput(t *testing.T) {
	root := t.TempDir()
	a := writeCmpRun(t, filepath.Join(root, "a"), cmpRun{tps: 800, p99: 20})
	b := writeCmpRun(t, filepath.Join(root, "b"), cmpRun{tps: 800, p99: 20})
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	nosum := writeCmpRun(t, filepath.Join(root, "nosum"), cmpRun{noSum: true})
	broken := filepath.Join(root, "broken")
	if err := os.Mkdir(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "run.json"), []byte(`{"schema": "pgtrial.run/v9"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no directories", nil, "nothing to compare"},
		{"one directory", []string{a}, "nothing to compare"},
		{"three without --", []string{a, b, a}, `3 directories and no "--"`},
		{"nothing after --", []string{a, "--"}, `0 after it`},
		{"nothing before --", []string{"--", b}, `0 directories before "--"`},
		{"--a without --b", []string{"--a", a}, "0 with --b"},
		{"flags and arguments", []string{"--a", a, "--b", b, a}, "not both"},
		{"missing directory", []string{a, filepath.Join(root, "nope")}, "no such file or directory"},
		{"no runs inside", []string{a, empty}, "holds no run.json"},
		{"same run twice", []string{a, a}, "given twice (A#1 and B#1)"},
		{"no summary", []string{a, nosum}, "has no summary"},
		{"unknown schema", []string{a, broken}, "unknown schema"},
		{"same names", []string{"--name-a", "x", "--name-b", "x", a, b}, "need different names"},
		{"negative top", []string{"--top", "-1", a, b}, "--top -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"compare"}, tt.args...)...)
			if code != 1 || out != "" || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, tt.want)
			}
		})
	}
	// A path to run.json stands for its directory.
	if code, _, errOut := runCLI(t, "compare", filepath.Join(a, "run.json"), b); code != 0 {
		t.Errorf("run.json path: exit %d: %s", code, errOut)
	}
}

// writeCmpExperiment writes an experiment directory: experiment.json with
// the variants and their runs under runs/, interleaved in time.
func writeCmpExperiment(t *testing.T, dir string, variants []string, runs map[string][]cmpRun) {
	t.Helper()
	rec := experiment.Record{Schema: experiment.SchemaVersion, Name: "exp", StartedAt: cmpEpoch, Model: "open", Rate: 500}
	for _, v := range variants {
		rec.Variants = append(rec.Variants, experiment.VariantRecord{Name: v})
	}
	n := 0
	for rep := 0; rep < 8; rep++ {
		for _, v := range variants {
			if rep >= len(runs[v]) {
				continue
			}
			n++
			r := runs[v][rep]
			r.started = cmpEpoch.Add(time.Duration(n) * time.Minute)
			rel := filepath.Join("runs", fmt.Sprintf("%03d-%s-r%d", n, v, rep+1))
			writeCmpRun(t, filepath.Join(dir, rel), r)
			rec.Runs = append(rec.Runs, experiment.RunRecord{N: n, Variant: v, Repeat: rep + 1, Dir: rel, StartedAt: r.started, TPS: r.tps})
		}
	}
	if err := results.WriteExperiment(dir, rec, nil); err != nil {
		t.Fatal(err)
	}
}

// `pgtrial compare EXPDIR` compares the experiment's variants (it failed with
// "nothing to compare" on the old code), and an experiment directory as a side
// stands for its runs (it failed: runs/ holds no run.json).
func TestCompareExperimentDirectory(t *testing.T) {
	a, b := fourVsFour()
	c := []cmpRun{{tps: 801, p99: 20.1}, {tps: 806, p99: 20.3}, {tps: 799, p99: 19.9}, {tps: 803, p99: 20.0}, {noSum: true}}
	exp := filepath.Join(t.TempDir(), "exp")
	writeCmpExperiment(t, exp, []string{"base", "slow", "same"}, map[string][]cmpRun{"base": a, "slow": b, "same": c})

	code, out, errOut := runCLI(t, "compare", exp)
	if code != 0 {
		t.Fatalf("compare EXPDIR: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "base (4 runs) vs slow (4 runs)") || !strings.Contains(out, "base (4 runs) vs same (4 runs)") {
		t.Errorf("want each variant against the first:\n%s", out)
	}
	if !strings.Contains(out, "slow slower: p99") {
		t.Errorf("no p99 verdict for slow:\n%s", out)
	}
	if !strings.Contains(errOut, "-same-r5 left out") || !strings.Contains(errOut, "left out: it has no summary") {
		t.Errorf("the run without a summary is not said to be left out: %q", errOut)
	}

	code, out, errOut = runCLI(t, "compare", "--json", "--name-a", "slow", "--name-b", "base", exp)
	if code != 0 {
		t.Fatalf("--name-a/--name-b: exit %d: %s", code, errOut)
	}
	var reps []*compare.Report
	if err := json.Unmarshal([]byte(out), &reps); err != nil || len(reps) != 1 {
		t.Fatalf("--json: %d comparisons, %v:\n%s", len(reps), err, out)
	}
	if reps[0].NameA != "slow" || reps[0].NameB != "base" || len(reps[0].RunsA) != 4 {
		t.Errorf("--json: %s (%d runs) vs %s", reps[0].NameA, len(reps[0].RunsA), reps[0].NameB)
	}

	code, _, errOut = runCLI(t, "compare", "--name-a", "base", "--name-b", "nosuch", exp)
	if code != exitBadInput || !strings.Contains(errOut, `no variant "nosuch"`) || !strings.Contains(errOut, "base, slow, same") {
		t.Errorf("unknown variant: exit %d, %q", code, errOut)
	}

	// Experiment directories as sides: all of each one's runs.
	expA, expB := filepath.Join(t.TempDir(), "expA"), filepath.Join(t.TempDir(), "expB")
	a, b = fourVsFour()
	writeCmpExperiment(t, expA, []string{"on"}, map[string][]cmpRun{"on": a})
	writeCmpExperiment(t, expB, []string{"on"}, map[string][]cmpRun{"on": b})
	out = compareOK(t, []string{expA}, []string{expB})
	if !strings.Contains(out, "A (4 runs) vs B (4 runs)") {
		t.Errorf("experiment directories as sides:\n%s", out)
	}
	code, _, errOut = runCLI(t, "compare", expA)
	if code != exitBadInput || !strings.Contains(errOut, "nothing to compare within it") {
		t.Errorf("one variant: exit %d, %q", code, errOut)
	}
}
