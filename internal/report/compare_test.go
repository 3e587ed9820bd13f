package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// cmpSide is n runs of one side with the given tps and p99 (ms); every run
// has one statement (queryid 11, blocks per call hit) and no checks.
func cmpSide(name string, tps, p99 []float64, hit float64, t0 time.Time) []compare.RunRef {
	runs := make([]compare.RunRef, len(tps))
	for i := range runs {
		r := &results.Run{
			StartedAt: t0.Add(time.Duration(2*i) * time.Minute),
			Workload:  results.Workload{Name: "tpcb-like"},
			Model:     results.Model{Kind: results.ModelOpen, Clients: 8, Rate: 1000},
			Summary: &results.Summary{Total: results.ScriptSummary{
				Committed: 60000, TPS: tps[i],
				Response: results.Percentiles{P50: p99[i] / 4, P95: p99[i] / 2, P99: p99[i], P999: 2 * p99[i], Max: 4 * p99[i]},
			}},
			Evidence: &results.Evidence{Statements: []results.StatementCost{
				{QueryID: 11, Query: "UPDATE pgbench_accounts\n   SET abalance = abalance + $1 WHERE aid = $2", Calls: 100, Share: 0.6, SharedHitPerCall: hit + float64(i)/100},
			}},
			Checks: []results.Check{{Name: "warmup", Status: "pass", Message: "warm-up of 10 s discarded"}},
		}
		runs[i] = compare.RunRef{Label: fmt.Sprintf("%s#%d", name, i+1), Dir: fmt.Sprintf("runs/%s-%d", name, i+1), Run: r, StartedAt: r.StartedAt}
	}
	return runs
}

func sampleComparison() *compare.Report {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	a := cmpSide("base", []float64{1000, 1010, 990, 1005}, []float64{20, 20.4, 19.8, 20.2}, 4, t0)
	b := cmpSide("new", []float64{700, 705, 698, 702}, []float64{26, 26.5, 25.7, 26.3}, 6, t0.Add(time.Minute))
	rep := compare.Build(compare.Options{NameA: "base", NameB: "new", Seed: 1, Top: compare.DefaultTop}, a, b)
	rep.Notes = []string{"scale: 10 (base#1); 100 (new#1)"}
	return rep
}

func TestCompare(t *testing.T) {
	rep := sampleComparison()
	out := text(t, Compare(rep))
	var p99 string
	for _, m := range rep.Metrics {
		if m.Metric == "p99" {
			p99 = m.Verdict.Text
		}
	}
	// The table's rows, blanks squeezed.
	wantAll(t, "table", squeeze(out),
		// Open runs: p99 is the primary metric (marked *); the others are
		// exploratory under Holm's correction, which 4 vs 4 runs cannot pass.
		"\ntps 1002.5 (990.0–1010.0) 701.0 (698.0–705.0) 0.70 [—] 0.029 inconclusive\n",
		"\n* p99 ms 20.100 (19.800–20.400) 26.150 (25.700–26.500) 1.30 [1.26, 1.34] 0.029 new slower\n",
		"\nskipped+dropped % 0 (0–0) 0 (0–0) — 1 inconclusive\n",
		"\nblocks/call s1 4.01 (4–4.03) 6.01 (6–6.03) 1.50 [—] 0.029 inconclusive\n",
	)
	wantAll(t, "report", out,
		"compare: base (4 runs) vs new (4 runs): tpcb-like, open model at 1000.0 tx/s, 8 clients\n  base#1 runs/base-1  started ",
		"\nnote: the runs differ in scale: 10 (base#1); 100 (new#1)\n\n",
		"\n\n  metric             base median (min–max)   new median (min–max)       new/base [interval]  MW p   verdict\n  tps ",
		"\nverdicts (per-run values; primary metric p99 at α = 0.05, 8 exploratory with Holm's correction, 9 tests in all; "+
			"two-sided Mann-Whitney U, its Hodges–Lehmann interval of new/base; equivalent: inside ±5 % by two one-sided tests):\n",
		"  primary: "+p99+"\n",
		"  exploratory, inconclusive: tps, p50, p95, p99.9, max, skipped+dropped %, failed %, blocks/call s1 (--json has each one's interval)\n",
		"\nstatements (shared blocks hit + read per call, matched by queryid):\n  s1  queryid 11: UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2\n",
		"\nchecklist (DESIGN §8; the runs' items with their worst status, and the comparison's):\n  pass  warmup ",
		"  pass  interleaved ",
	)
	if strings.Contains(out, "warning:") {
		t.Errorf("4 vs 4 open-model runs: unexpected warning:\n%s", out)
	}
	for line := range strings.Lines(out) {
		if strings.TrimRight(line, " \n") != strings.TrimSuffix(line, "\n") {
			t.Errorf("trailing blanks: %q", line)
		}
	}
}

// Warnings follow the checklist; --force's differences follow the runs; a
// side without values is missing with its reason.
func TestCompareWarningsAndMissing(t *testing.T) {
	rep := sampleComparison()
	rep.Notes = nil
	rep.Forced = []string{`workload: "a" (base#1); "b" (new#1)`}
	rep.Warnings = []string{"1 vs 1 runs: one run a side cannot separate a difference from noise"}
	rep.Metrics = append(rep.Metrics, compare.Metric{Metric: "IO wait %", Group: "waits", Unit: "%",
		Verdict: stats.VerdictResult{Direction: stats.DirNone, Text: "no difference beyond noise (IO wait %)", B: stats.Summarize([]float64{3})}})
	out := text(t, Compare(rep))
	wantAll(t, "report", out,
		"\n"+`warning: --force: the runs differ in workload: "a" (base#1); "b" (new#1)`+"\n\n",
		"\n  IO wait %          —                       3                          —                    —      —\n",
		"  base median (min–max) —: no run of base has this metric\n",
		"\nwarning: 1 vs 1 runs: one run a side cannot separate a difference from noise\n",
	)
	if i, j := strings.Index(out, "  pass  interleaved"), strings.Index(out, "warning: 1 vs 1"); i < 0 || j < i {
		t.Errorf("the warnings do not follow the checklist:\n%s", out)
	}
}

func TestCompareMarkdown(t *testing.T) {
	checkMarkdown(t, Compare(sampleComparison()),
		"# compare: base (4 runs) vs new (4 runs): tpcb-like, open model at 1000.0 tx/s, 8 clients\n",
		"| metric | base median (min–max) | new median (min–max) | new/base \\[interval\\] | MW p | verdict |\n| --- | --- | --- | --- | --- | --- |\n",
		"| \\* p99 ms | 20.100 (19.800–20.400) | 26.150 (25.700–26.500) | 1.30 \\[",
		"**statements (shared blocks hit + read per call, matched by queryid)**\n",
		"| pass | interleaved |",
	)
}

// squeeze is s with every run of blanks one blank.
func squeeze(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		b.WriteString(strings.Join(strings.Fields(line), " ") + "\n")
	}
	return b.String()
}

// What differs besides the variant follows the statements: a table of the
// items with each side's value and how many others matched; one line when
// nothing differs; nothing for a record without an environment.
func TestCompareEnvironment(t *testing.T) {
	rep := sampleComparison()
	rep.Environment = &compare.Environment{Compared: 18, Differs: []compare.EnvDiff{
		{Name: "server version", A: "17.2", B: "17.4"},
		{Name: "setting work_mem", A: "4MB", B: "64MB"},
		{Name: "host kernel", A: "2 values: 6.1.0-18-amd64 (base#1, base#2); 6.1.0-20-amd64 (base#3)", B: "6.1.0-18-amd64"},
	}}
	out := text(t, Compare(rep))
	t.Logf("\n%s", out)
	wantAll(t, "report", out,
		"\n\ndiffers besides the variant (from run.json; the variant itself is listed too if it is one of these):\n"+
			"  item              base                                                                new\n"+
			"  server version    17.2                                                                17.4\n"+
			"  setting work_mem  4MB                                                                 64MB\n"+
			"  host kernel       2 values: 6.1.0-18-amd64 (base#1, base#2); 6.1.0-20-amd64 (base#3)  6.1.0-18-amd64\n"+
			"  the other 15 of 18 recorded items matched (a size differs beyond 10 % and 1 MiB, the sides' ranges apart)\n\nchecklist",
	)
	if i, j := strings.Index(out, "\nstatements ("), strings.Index(out, "\ndiffers besides"); i < 0 || j < i {
		t.Errorf("the environment does not follow the statements:\n%s", out)
	}

	rep.Environment = &compare.Environment{Compared: 18, VariantKnown: true, VariantSettings: []string{"synchronous_commit"},
		Differs: []compare.EnvDiff{{Name: "server version", A: "17.2", B: "17.4"}}}
	wantAll(t, "experiment's", text(t, Compare(rep)),
		"\ndiffers besides the variant (from run.json; the variant's setting synchronous_commit left out):\n")

	rep.Environment.Differs = nil
	wantAll(t, "matched", text(t, Compare(rep)),
		"\n\nthe environments matched on 18 recorded items of run.json (server version and settings, data sizes, host, pgtrial version; "+
			"the variant's setting synchronous_commit left out)\n\nchecklist")

	// The experiment summary shows it under each comparison.
	rec := twoVariants()
	rec.Comparisons[0].Environment = &compare.Environment{Compared: 18, VariantKnown: true,
		Differs: []compare.EnvDiff{{Name: "server version", A: "17.2", B: "17.4"}}}
	wantAll(t, "experiment", text(t, Experiment(rec, "/tmp/x")),
		"  exploratory: higher: ratio 3.1\n  exploratory, inconclusive: calls of SELECT 1 (--json has each one's interval)\n\ndiffers besides the variant (from run.json):\n  item            a     b\n  server version  17.2  17.4\n")

	rep.Environment = nil
	if out := text(t, Compare(rep)); strings.Contains(out, "environments") || strings.Contains(out, "differs besides") {
		t.Errorf("a record without an environment:\n%s", out)
	}
}

// TestCompareFewBeyond: quantiles resting on a handful of transactions in
// some runs are named under the table.
func TestCompareFewBeyond(t *testing.T) {
	rep := sampleComparison()
	for i := range rep.Metrics {
		if rep.Metrics[i].Metric == "p99.9" {
			rep.Metrics[i].Few = []string{"base#1: 4 of 4210", "new#2: 9 of 9001"}
		}
	}
	wantAll(t, "report", text(t, Compare(rep)),
		"rests on fewer than 20 transactions beyond it: p99.9 in 2 runs (base#1: 4 of 4210, new#2: 9 of 9001); a handful of transactions decide such a quantile\n")
	if out := text(t, Compare(sampleComparison())); strings.Contains(out, "rests on fewer") {
		t.Errorf("a note without few transactions:\n%s", out)
	}
}
