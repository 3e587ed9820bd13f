package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/gate"
	"github.com/pgtrial/pgtrial/internal/report"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// compareOptions are `pgtrial compare`'s flags.
type compareOptions struct {
	a, b         []string // --a, --b
	nameA, nameB string
	force        bool
	json         bool
	seed         uint64
	top          int
	primary      string
	margin       float64
	failOn       string // --fail-on: the gate's rules
	markdown     string // --markdown FILE: the gate's summary
}

const compareLong = `compare says whether the runs of B differ from the runs of A beyond the noise
between runs of the same setup.

Runs: A's directories before "--", B's after it:
  pgtrial compare A1 A2 A3 A4 -- B1 B2 B3 B4
or with flags (repeatable): pgtrial compare --a A1 --a A2 --b B1 --b B2;
or two directories, one run a side: pgtrial compare A1 B1 (which cannot separate a
difference from noise: each side's spread is unknown; repeat each side, 4 runs at least).
Each DIR is a run directory (it holds run.json). A directory without run.json whose
subdirectories hold run.json (a folder of runs) stands for those runs, in the order of
their names; only its direct subdirectories are looked at. An experiment directory
(experiment.json, runs/) as a side stands for all the runs in its runs/. A path to a
run.json file stands for its directory.

One experiment directory alone compares its variants, as the experiment did: its runs
grouped by variant (from experiment.json), each variant against the first, or the two
named with --name-a and --name-b:
  pgtrial compare EXPDIR
  pgtrial compare --name-a base --name-b wal-compression EXPDIR
(a ramp's or a capacity search's runs are at different loads: compare two of their
run directories instead). Runs without a summary are left out, and said so.

The runs must be of the same workload (name and scripts with their weights) and load
model (closed or open, rate, clients): otherwise compare lists what differs and exits
with status 1, unless --force (the differences are then printed with the results). A
different scale or latency limit is noted, not refused.

Per metric, from each run's summary of its measured window: tps (higher is better);
the response-time percentiles p50, p95, p99, p99.9 and max in ms (lower is better;
in the closed model they are service times, which hide stalls); the skipped+dropped
share of the scheduled transactions and the failed share of those taken, in per cent; and when the runs have evidence
(collectors), the shared blocks (hit + read) per call of the top statements (--top, by
share of execution time), matched by queryid (or, for a statement whose queryid is on
one side only, by identical query text), and the share in per cent of the wait samples
of active sessions by wait_event_type (Lock, LWLock, IO, CPU, ...; higher or lower,
neither better nor worse).

For each metric it prints the median over the runs of each side with its range
(min-max), the typical ratio B/A with its interval (the Hodges–Lehmann shift of the log
values, by inverting the two-sided Mann-Whitney U test, so that the interval excludes 1
exactly when the test rejects), the test's p-value (exact for small samples) and one of
three outcomes:
  B slower: p99 +38 %, 97.1 % interval [+21 %, +57 %], Mann-Whitney exact p = 0.029, 4 vs 4 runs
  equivalent within ±5 %: tps ratio 1.01, 90 % interval [0.99, 1.03], 5 vs 5 runs
  inconclusive: p99 changes from -4.0 % to +14 % are not excluded (95 % interval), ...;
    these runs detect ±9.1 % at 80 % power, ±5 % needs 14 runs a side
"Equivalent" needs two one-sided tests to put the change inside ±--margin; anything else
is inconclusive, with what the runs could have detected. One metric is primary (--primary;
default tps for closed runs, p99 for open runs) and tested at 0.05; every other metric is
exploratory, held to Holm's step-down correction over all of them, so that the chance of
any false "differs" in a comparison stays at 0.05 (exploratory metrics without a difference
are listed on one line). The title says how many tests were made. With m vs n runs the
exact test cannot go below 2/C(m+n, m): 3 vs 3 reaches 0.10 at best, 4 vs 4 0.029.
Percentiles of different runs are never averaged: each run's percentile (nearest rank)
is one value, and the runs are compared run by run.

The checklist combines the runs' own checklists (the worst status of each item) with
the comparison's: at least 4 runs a side, and the runs interleaved in time (A B A B ...).

--json prints the same as JSON on stdout (for an experiment directory, an array of
comparisons, one per variant compared). Exit status: 0 when the comparison was made
(whatever it found); 1 bad input (missing or unreadable directories, runs that differ).

A CI gate: --fail-on 'tps<-3%,p99>+5%' judges each rule METRIC<CHANGE% (a decrease
beyond CHANGE fails) or METRIC>CHANGE% (an increase beyond it fails), for tps, p50, p95,
p99, p99.9 and max, on the runs' values of the metric (for an experiment directory, on
every variant against the first):
  fail          the change is real (two-sided Mann-Whitney at 0.05, Holm's correction
                over the rules) in the rule's direction and its estimate B/A is beyond
                the threshold;
  pass          the one-sided 95 % bound (the 90 % interval's end on the bad side)
                excludes the threshold: the runs rule out a change as bad as it;
  inconclusive  neither: more runs a side, or less noise, would decide (4 runs a side
                is the fewest that can pass or fail).
The gate's table follows the comparison, and --markdown FILE writes it as Markdown for
a pull-request comment (docs/ci-gate.md); of an experiment directory whose file had a
gate: key, --markdown alone applies its rules. Exit status with --fail-on: 0 every rule
passes; 3 a rule fails; 4 none fails and one is inconclusive (a pipeline chooses
whether 4 blocks); 1 and 2 as above.`

// defaultCompareOptions are compare's flags before the command line.
func defaultCompareOptions() *compareOptions {
	return &compareOptions{nameA: "A", nameB: "B", seed: 1, top: compare.DefaultTop}
}

func newCompareCommand() *cobra.Command {
	o := defaultCompareOptions()
	cmd := &cobra.Command{
		Use:   "compare [flags] A_DIR... -- B_DIR...",
		Short: "Compare runs of A and B: medians, ranges, ratio with its interval, rank test, verdict",
		Long:  compareLong,
		Example: `  pgtrial compare runs/a1 runs/a2 runs/a3 runs/a4 -- runs/b1 runs/b2 runs/b3 runs/b4
  pgtrial compare --name-a sync-on --name-b sync-off exp/on -- exp/off
  pgtrial compare --a runs/a1 --a runs/a2 --b runs/b1 --b runs/b2 --json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			expDir := len(o.a) == 0 && len(o.b) == 0 && cmd.ArgsLenAtDash() < 0 && len(args) == 1 && compare.IsExperimentDir(args[0])
			if expDir && o.failOn == "" && o.markdown != "" {
				// The experiment file's gate: its rules, as recorded.
				if err := recordedGateRules(o, args[0]); err != nil {
					return err
				}
			}
			rules, err := compareGateRules(o)
			if err != nil {
				return err
			}
			if expDir {
				f := cmd.Flags()
				return runCompareExperiment(o, rules, args[0], f.Changed("name-a") || f.Changed("name-b"), cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			aDirs, bDirs, err := compareSides(o, args, cmd.ArgsLenAtDash())
			if err != nil {
				return err
			}
			return runCompare(o, rules, aDirs, bDirs, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	addCompareFlags(f, o)
	f.BoolVar(&o.json, "json", false, "print the comparison as JSON on stdout")
	f.StringVar(&o.failOn, "fail-on", "", `a CI gate: rules such as 'tps<-3%,p99>+5%'; exit 3 when a real change crosses a threshold, 4 when the runs cannot decide`)
	f.StringVar(&o.markdown, "markdown", "", "write the gate's summary as Markdown to FILE (a pull-request comment; needs --fail-on, or an experiment directory whose file had a gate:)")
	return cmd
}

// addCompareFlags defines the flags that choose and compare the runs, which
// `compare` and `report A -- B` share.
func addCompareFlags(f *pflag.FlagSet, o *compareOptions) {
	f.StringArrayVar(&o.a, "a", nil, "a run (or experiment) directory of A; repeatable (instead of the arguments)")
	f.StringArrayVar(&o.b, "b", nil, "a run (or experiment) directory of B; repeatable")
	f.StringVar(&o.nameA, "name-a", o.nameA, "what A is called in the output")
	f.StringVar(&o.nameB, "name-b", o.nameB, `what B is called in the output and the verdicts ("sync-off slower: …")`)
	f.BoolVar(&o.force, "force", false, "compare runs of different workloads or load models anyway (the differences are printed)")
	f.IntVar(&o.top, "top", o.top, "number of statements whose blocks per call are compared (0: none)")
	f.StringVar(&o.primary, "primary", "", "the metric the comparison is about, tested at α = 0.05 (tps, p50, p95, p99, p99.9, max, \"failed %\", …; default: tps for closed runs, p99 for open runs); the others are exploratory, with Holm's correction")
	f.Float64Var(&o.margin, "margin", stats.DefaultMargin, "equivalence margin: \"equivalent\" needs the change inside ±margin (a share: 0.05 is ±5 %)")
	f.Uint64Var(&o.seed, "seed", o.seed, "a seed recorded in the report")
}

// compareSides splits the command line into A's and B's directories: --a
// and --b, or the arguments split at "--" (dash is cobra's ArgsLenAtDash:
// the number of arguments before "--", -1 without one), or two arguments,
// one a side.
func compareSides(o *compareOptions, args []string, dash int) (aDirs, bDirs []string, err error) {
	const usage = `give A's directories, "--", then B's (pgtrial compare A1 A2 -- B1 B2), or --a DIR and --b DIR`
	switch {
	case len(o.a) > 0 || len(o.b) > 0:
		if len(args) > 0 {
			return nil, nil, fmt.Errorf("give the directories either as arguments or with --a/--b, not both (arguments: %s)", strings.Join(args, " "))
		}
		if len(o.a) == 0 || len(o.b) == 0 {
			return nil, nil, fmt.Errorf("both sides need runs: %d directories with --a, %d with --b", len(o.a), len(o.b))
		}
		aDirs, bDirs = o.a, o.b
	case dash >= 0:
		aDirs, bDirs = args[:dash], args[dash:]
		for _, b := range bDirs {
			if strings.HasPrefix(b, "-") {
				if _, err := os.Stat(b); err != nil {
					return nil, nil, fmt.Errorf("%q after \"--\" is taken as a B directory: options go before the directories (pgtrial compare --fail-on 'tps<-3%%' A1 A2 -- B1 B2)", b)
				}
			}
		}
		if len(aDirs) == 0 || len(bDirs) == 0 {
			return nil, nil, fmt.Errorf("both sides need runs: %d directories before \"--\", %d after it", len(aDirs), len(bDirs))
		}
	case len(args) == 2:
		aDirs, bDirs = args[:1], args[1:]
	case len(args) < 2:
		return nil, nil, fmt.Errorf("nothing to compare: %s; or one experiment directory (experiment.json) to compare its variants", usage)
	default:
		return nil, nil, fmt.Errorf("%d directories and no \"--\": which are A's and which B's? %s", len(args), usage)
	}
	if strings.TrimSpace(o.nameA) == "" || strings.TrimSpace(o.nameB) == "" {
		return nil, nil, errors.New("--name-a and --name-b must not be empty")
	}
	if o.nameA == o.nameB {
		return nil, nil, fmt.Errorf("--name-a and --name-b are both %q: the two sides need different names", o.nameA)
	}
	if o.top < 0 {
		return nil, nil, fmt.Errorf("--top %d: it must be 0 or more", o.top)
	}
	return aDirs, bDirs, nil
}

// runCompare loads both sides, checks that they are comparable, compares
// every metric and prints the result.
func runCompare(o *compareOptions, rules []gate.Rule, aDirs, bDirs []string, stdout, stderr io.Writer) error {
	rep, err := buildComparison(o, o.nameA, o.nameB, aDirs, bDirs)
	if err != nil {
		return err
	}
	if o.json {
		err = writeCompareJSON(stdout, newJSONCompare(rep))
	} else {
		err = writeCompareText(stdout, rep)
	}
	if err != nil || rules == nil {
		return err
	}
	return runGate(o, rules, []*compare.Report{rep}, stdout, stderr)
}

// recordedGateRules sets --fail-on to the rules of the experiment in dir
// (experiment.json's gate), when it had a gate.
func recordedGateRules(o *compareOptions, dir string) error {
	var rec experiment.Record
	if err := results.ReadExperiment(dir, &rec); err != nil {
		return err
	}
	if len(rec.Gate) == 0 {
		return nil
	}
	var rules []string
	for _, rr := range rec.Gate[0].Rules {
		rules = append(rules, rr.Rule)
	}
	o.failOn = strings.Join(rules, ",")
	return nil
}

// compareGateRules parses --fail-on (nil without it) and refuses
// --markdown without it.
func compareGateRules(o *compareOptions) ([]gate.Rule, error) {
	if o.failOn == "" {
		if o.markdown != "" {
			return nil, errors.New("--markdown writes the gate's summary: give the rules with --fail-on (e.g. --fail-on 'tps<-3%')")
		}
		return nil, nil
	}
	rules, err := gate.Parse(o.failOn)
	if err != nil {
		return nil, fmt.Errorf("--fail-on: %w", err)
	}
	return rules, nil
}

// runGate judges the rules on each comparison, prints the gate's table
// (on stderr under --json, whose stdout is JSON), writes --markdown and
// returns the gate's exit status: nil (pass), exitGateFail or
// exitGateInconclusive.
func runGate(o *compareOptions, rules []gate.Rule, reps []*compare.Report, stdout, stderr io.Writer) error {
	var results []*gate.Result
	for _, rep := range reps {
		results = append(results, gate.Evaluate(rules, rep))
	}
	doc := report.Gate(results)
	out := stdout
	if o.json {
		out = stderr
	} else {
		fmt.Fprintln(stdout)
	}
	if err := report.WriteText(out, doc); err != nil {
		return &exitError{code: exitRunFail, err: fmt.Errorf("write the gate: %w", err)}
	}
	if o.markdown != "" {
		if err := writeMarkdownFile(o.markdown, doc); err != nil {
			return &exitError{code: exitRunFail, err: err}
		}
	}
	return gateExit(results)
}

// gateExit is the exit status of the gate's results: nil when every rule
// passes, else silentExit(exitGateFail) or silentExit(exitGateInconclusive)
// (the gate's table has said why).
func gateExit(results []*gate.Result) error {
	code := exitOK
	for _, r := range results {
		switch {
		case r.Outcome == gate.Fail:
			code = exitGateFail
		case r.Outcome == gate.Inconclusive && code == exitOK:
			code = exitGateInconclusive
		}
	}
	if code == exitOK {
		return nil
	}
	return silentExit(code)
}

// writeMarkdownFile writes doc as Markdown into path (created or replaced).
func writeMarkdownFile(path string, doc *report.Doc) error {
	var b bytes.Buffer
	if err := report.WriteMarkdown(&b, doc); err != nil {
		return fmt.Errorf("write the gate's Markdown: %w", err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write the gate's Markdown (--markdown): %w", err)
	}
	return nil
}

// runCompareExperiment compares the variants of the experiment in dir: its
// runs grouped by variant (experiment.json's records), each variant against
// the first, or only --name-a against --name-b when named (named). Ramp and
// search experiments are refused: their runs are at different loads.
func runCompareExperiment(o *compareOptions, rules []gate.Rule, dir string, named bool, stdout, stderr io.Writer) error {
	if o.top < 0 {
		return fmt.Errorf("--top %d: it must be 0 or more", o.top)
	}
	var rec experiment.Record
	if err := results.ReadExperiment(dir, &rec); err != nil {
		return err
	}
	if rec.Model == "ramp" || rec.Model == "search" {
		runs := filepath.Join(dir, results.ExperimentRunsDir)
		return fmt.Errorf("%s is a %s experiment: its runs are at different loads, so its variants cannot be compared as a whole; compare runs of one load, several a side: pgtrial compare %[3]s/A_RUN_1 %[3]s/A_RUN_2 -- %[3]s/B_RUN_1 %[3]s/B_RUN_2",
			dir, rec.Model, runs)
	}
	// The runs of each variant at the experiment's load, in the order run.
	byVariant := map[string][]string{}
	var names, skipped []string
	for _, v := range rec.Variants {
		names = append(names, v.Name)
	}
	for _, rr := range rec.Runs {
		if rr.Level != 0 || rr.Phase != "" || rr.Dir == "" {
			continue
		}
		p := filepath.Join(dir, rr.Dir)
		if run, err := results.Load(p); err != nil || run.Summary == nil {
			skipped = append(skipped, p)
			continue
		}
		byVariant[rr.Variant] = append(byVariant[rr.Variant], p)
	}
	for _, p := range skipped {
		fmt.Fprintf(stderr, "pgtrial: %s left out: it has no summary (nothing was measured, or it did not finish)\n", p)
	}
	var with []string
	for _, n := range names {
		if len(byVariant[n]) > 0 {
			with = append(with, n)
		}
	}
	type pair struct{ a, b string }
	var pairs []pair
	switch {
	case named:
		for _, n := range []string{o.nameA, o.nameB} {
			if !slices.Contains(names, n) {
				return fmt.Errorf("experiment %s has no variant %q (--name-a/--name-b name the variants to compare); its variants: %s", dir, n, strings.Join(names, ", "))
			}
			if len(byVariant[n]) == 0 {
				return fmt.Errorf("variant %q of experiment %s has no run with a summary: nothing to compare", n, dir)
			}
		}
		if o.nameA == o.nameB {
			return fmt.Errorf("--name-a and --name-b are both %q: name two variants of %s", o.nameA, dir)
		}
		pairs = append(pairs, pair{o.nameA, o.nameB})
	case len(with) < 2:
		return fmt.Errorf("experiment %s has %d variant(s) with measured runs (%s): nothing to compare within it; compare it with other runs: pgtrial compare %s -- OTHER_DIR",
			dir, len(with), strings.Join(with, ", "), dir)
	default:
		for _, n := range with[1:] {
			pairs = append(pairs, pair{with[0], n})
		}
	}
	var reps []*compare.Report
	for _, pr := range pairs {
		rep, err := buildComparison(o, pr.a, pr.b, byVariant[pr.a], byVariant[pr.b])
		if err != nil {
			return fmt.Errorf("variant %s against %s: %w", pr.b, pr.a, err)
		}
		reps = append(reps, rep)
	}
	if o.json {
		list := make([]jsonCompareReport, len(reps))
		for i, rep := range reps {
			list[i] = newJSONCompare(rep)
		}
		if err := writeCompareJSON(stdout, list); err != nil {
			return err
		}
	} else {
		for i, rep := range reps {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			if err := writeCompareText(stdout, rep); err != nil {
				return err
			}
		}
	}
	if rules == nil {
		return nil
	}
	return runGate(o, rules, reps, stdout, stderr)
}

// buildComparison loads A's and B's runs (named nameA and nameB), checks
// that they are comparable and compares them.
func buildComparison(o *compareOptions, nameA, nameB string, aDirs, bDirs []string) (*compare.Report, error) {
	runsA, err := compare.LoadSide(nameA, aDirs)
	if err != nil {
		return nil, err
	}
	runsB, err := compare.LoadSide(nameB, bDirs)
	if err != nil {
		return nil, err
	}
	all := append(slices.Clone(runsA), runsB...)
	if err := compare.CheckDistinct(all); err != nil {
		return nil, err
	}
	refusals, notes := compare.Differences(all)
	if len(refusals) > 0 && !o.force {
		var b strings.Builder
		b.WriteString("the runs differ in workload or load model, so a difference would not be the change under test; compare runs of one workload and model, or use --force:")
		for _, r := range refusals {
			b.WriteString("\n  " + r)
		}
		for _, r := range all {
			fmt.Fprintf(&b, "\n    %s = %s", r.Label, r.Dir)
		}
		return nil, errors.New(b.String())
	}
	if !(o.margin > 0 && o.margin <= 0.5) {
		return nil, fmt.Errorf("--margin %v: give a share above 0 and at most 0.5 (0.05 is ±5 %%)", o.margin)
	}
	rep := compare.Build(compare.Options{NameA: nameA, NameB: nameB, Seed: o.seed, Top: o.top, Primary: o.primary, Margin: o.margin}, runsA, runsB)
	if o.primary != "" && rep.Primary != o.primary {
		names := make([]string, len(rep.Metrics))
		for i, m := range rep.Metrics {
			names[i] = m.Metric
		}
		return nil, fmt.Errorf("--primary %q is not among the compared metrics: %s", o.primary, strings.Join(names, ", "))
	}
	rep.Forced = refusals
	rep.Notes = append(rep.Notes, notes...)
	return rep, nil
}

// writeCompareJSON prints compare --json's document.
func writeCompareJSON(stdout io.Writer, v any) error {
	return printJSON(stdout, jsonCompare, v)
}

// writeCompareText prints a comparison for people.
func writeCompareText(stdout io.Writer, rep *compare.Report) error {
	if err := report.WriteText(stdout, report.Compare(rep)); err != nil {
		return &exitError{code: exitRunFail, err: fmt.Errorf("write the comparison: %w", err)}
	}
	return nil
}
