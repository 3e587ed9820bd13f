package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// capacityOptions are `pgtrial capacity`'s flags.
type capacityOptions struct {
	arg            string // the argument: connection string or database name
	url            string
	builtin        string
	files          []string // -f FILE[@W], in command-line order
	slo            string
	clients        int
	threads        int
	protocol       string
	latencyLimit   durationFlag
	warmup         durationFlag
	window         durationFlag
	fractions      string
	ceilingRepeats int
	bracketRepeats int
	precision      float64
	maxSteps       int
	seed           string
	noCollect      bool
	dir            string
	json           bool
	quiet          bool
	force          bool
	noReport       bool
}

// Limits of the flags, as the experiment file's keys have them.
const (
	capacityMaxCeilingRepeats = 1000
	capacityMaxBracketRepeats = 100
	capacityMaxPrecision      = 0.5
	capacityMaxSteps          = 100
	capacityDefaultWindow     = 30 * time.Second
)

const capacityLong = `capacity finds the highest arrival rate the server holds within a latency SLO. It is
the capacity search of "pgtrial experiment" (its search: section) built from flags,
without an experiment file, against URL (default: the libpq environment when PGHOST,
PGPORT, … are set, else the local cluster "default").

The method:
  1. Ceiling: --ceiling-repeats closed-model runs with --clients clients; the ceiling
     is the median of their committed tx/s. Their latency is not judged: a closed
     model's latency counts from the actual start and understates what users see.
  2. Steps: open-model runs (Poisson arrivals; latency from the intended start, so
     queueing counts) at --fractions of the ceiling, lowest first, up to the first that
     misses the SLO; when all pass, one more at the ceiling itself. When the lowest
     misses, the rate is halved until a run meets the SLO.
  3. Bisection between the highest rate that meets the SLO and the lowest that misses
     it, one run per rate, until (high − low)/low ≤ --precision or --max-steps runs
     are spent.
  4. Repeats: each end is run until it has --bracket-repeats runs (default 3). The low
     end must meet the SLO in all of them and the high end miss it in all of them;
     an end whose repeat goes the other way is "mixed", the interval widens to the
     next rate that agrees, and the search goes on (bisection within --max-steps,
     then repeats at the new end).
A run meets the SLO when its quantile is within the limit, its schedule lag does not
grow over the window, it achieves its rate by the checklist's rule (the transactions
started fall short of the E expected by at most max(1 % of E, 3√E)), and at most 1 %
of its transactions are skipped or failed.

The answer is an interval, "between L and H tx/s": the rate C at which a run meets the
SLO half the time lies between them unless all the runs at an end were lucky (in
simulations with noisy p99, 3 runs per end contained C in 92–97 % of searches, single
runs in 43–65 %). --precision is where the bisection stops, the search's resolution;
it is not the precision of the capacity: the interval's width is.

Every run warms up for --warmup, then measures --window. An honest window is
max(2 × checkpoint_timeout, 60s), so that windows hold checkpoints; the 30s default
is for a first look, and a shorter window than the honest one gets a checklist warning.

The output: the closed-model ceiling runs, the table of open-model steps (run, phase,
target tx/s, fraction of the ceiling, achieved tx/s, the SLO's quantile, lag, skipped
+ failed, pass or FAIL, the interval's end it belongs to, why), the rates tried with
how many of their runs met the SLO, then the conclusion
  capacity: between L and H tx/s at p99 ≤ 50 ms (3 runs each): L tx/s meets it in
  3 of 3 runs (p99 41 ms ≤ 50 ms, run …); H tx/s in 0 of 3 (p99 73 ms > 50 ms, run …)
why the search ended, and the checklist. DIR/experiment.json holds all of it (--json prints it instead), and
every run is a run directory under DIR/runs.

Exit status: 0 the search ran; 1 bad flags or setup (nothing was run); 2 it ended
early (interrupted, a run failed).`

func newCapacityCommand(info BuildInfo) *cobra.Command {
	o := &capacityOptions{
		builtin:        experiment.DefaultBuiltin,
		clients:        8,
		protocol:       "prepared",
		latencyLimit:   durationFlag{unit: time.Millisecond},
		warmup:         durationFlag{d: 10 * time.Second, unit: time.Second},
		window:         durationFlag{d: capacityDefaultWindow, unit: time.Second},
		fractions:      "0.3,0.6,0.9",
		ceilingRepeats: experiment.DefaultCeilingRepeats,
		bracketRepeats: experiment.DefaultBracketRepeats,
		precision:      experiment.DefaultPrecision,
		maxSteps:       experiment.DefaultMaxSteps,
	}
	cmd := &cobra.Command{
		Use:   "capacity [flags] --slo QUANTILE=LIMIT [URL]",
		Short: "Find the highest rate that meets a latency SLO: closed ceiling, open steps, bisection",
		Long:  capacityLong,
		Example: `  pgtrial capacity --slo p99=50ms
  pgtrial capacity postgres://bench@db1/bench -b select-only -c 32 --slo p95=10ms --window 2m
  pgtrial capacity -f mix.sql@9 -f report.sql@1 --slo p99=100ms --json > capacity.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if o.arg, err = serverArg(args, o.url); err != nil {
				return err
			}
			spec, err := capacitySpec(o, cmd.Flags().Changed)
			if err != nil {
				return err
			}
			return runCapacity(cmd.Context(), o, spec, info, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.url, "url", "", `connection string (postgres:// URL or key=value) or database name; default: the libpq environment (PGHOST, …) if set, else the local cluster "default"`)
	f.StringVarP(&o.builtin, "builtin", "b", o.builtin, "built-in script NAME (tpcb-like, simple-update, select-only; a prefix works)")
	f.StringArrayVarP(&o.files, "file", "f", nil, "pgbench-language script FILE with optional @WEIGHT; repeatable; instead of -b")
	f.StringVar(&o.slo, "slo", "", "required: the latency to meet, QUANTILE=LIMIT with QUANTILE p50, p90, p95, p99 or p99.9 (e.g. p99=50ms)")
	f.IntVarP(&o.clients, "clients", "c", o.clients, "clients (connections) of every run, closed and open")
	f.IntVarP(&o.threads, "threads", "j", 0, "client threads; 0 = min(clients, CPUs)")
	f.StringVarP(&o.protocol, "protocol", "M", o.protocol, `query protocol: "simple", "extended" or "prepared"`)
	f.VarP(&o.latencyLimit, "latency-limit", "L", "open runs skip slots already later than this, and count slower transactions as late (a bare number is ms; 0 = none)")
	f.Var(&o.warmup, "warmup", "warm-up before every run's measured window, excluded")
	f.Var(&o.window, "window", "measured window of every run; the honest one is max(2 × checkpoint_timeout, 60s), shorter gets a checklist warning")
	f.StringVar(&o.fractions, "fractions", o.fractions, "open-model steps as fractions of the ceiling, increasing, each in (0, 1]")
	f.IntVar(&o.ceilingRepeats, "ceiling-repeats", o.ceilingRepeats, "closed-model runs for the ceiling (their median)")
	f.IntVar(&o.bracketRepeats, "bracket-repeats", o.bracketRepeats, "runs at each end of the capacity interval; all of an end's runs must agree (1: single runs, noise can move the interval)")
	f.Float64Var(&o.precision, "precision", o.precision, "stop bisecting when (high − low)/low ≤ this: the search's resolution, not the capacity's precision")
	f.IntVar(&o.maxSteps, "max-steps", o.maxSteps, "halving and bisection runs at most")
	f.StringVar(&o.seed, "seed", "", "seed of the random streams, an unsigned integer (default: chosen and recorded)")
	f.BoolVar(&o.noCollect, "no-collect", false, "collect no server or OS evidence during the runs")
	f.StringVar(&o.dir, "dir", "", "directory of the search (default ./pgtrial-runs/<time>-capacity)")
	f.BoolVar(&o.json, "json", false, "print experiment.json on stdout instead of the text summary")
	f.BoolVar(&o.quiet, "quiet", false, "no status line")
	f.BoolVar(&o.noReport, "no-report", false, "do not write the reports (report.html, report.md) of the search and its runs")
	f.BoolVar(&o.force, "force", false, "start although the server's postgresql.auto.conf holds an experiment's unrestored values (pgtrial.unrestored; see pgtrial experiment --restore)")
	return cmd
}

// capacitySpec checks the flags without connecting and builds the
// experiment that runs the search. changed says which flags were given.
func capacitySpec(o *capacityOptions, changed func(string) bool) (*experiment.Spec, error) {
	slo, err := parseSLOFlag(o.slo)
	if err != nil {
		return nil, err
	}
	// The clients and threads follow engine.Load's rules, as for pgtrial run
	// and the experiment file.
	if errs := (engine.Load{Clients: o.clients, Threads: o.threads}).Validate(); len(errs) > 0 {
		var fe *engine.FieldError
		if !errors.As(errs[0], &fe) {
			return nil, errs[0]
		}
		example := map[string]string{engine.FieldClients: "-c 8", engine.FieldThreads: "-j 4"}[fe.Field]
		return nil, fmt.Errorf("invalid %s %s: %s, e.g. %s", fe.Flag(), fe.Value, fe.Rule, example)
	}
	mode, ok := script.ParseMode(strings.ToLower(o.protocol))
	if !ok {
		return nil, fmt.Errorf("invalid --protocol %q: expecting \"simple\", \"extended\" or \"prepared\", e.g. -M prepared", o.protocol)
	}
	if o.window.d < time.Second {
		return nil, fmt.Errorf("invalid --window %v: use at least 1s, e.g. --window 2m (the honest window is max(2 × checkpoint_timeout, 60s))", o.window.d)
	}
	fractions, err := parseFractions(o.fractions)
	if err != nil {
		return nil, err
	}
	if o.ceilingRepeats < 1 || o.ceilingRepeats > capacityMaxCeilingRepeats {
		return nil, fmt.Errorf("invalid --ceiling-repeats %d: use 1 to %d closed-model runs, e.g. --ceiling-repeats 3", o.ceilingRepeats, capacityMaxCeilingRepeats)
	}
	if o.bracketRepeats < 1 || o.bracketRepeats > capacityMaxBracketRepeats {
		return nil, fmt.Errorf("invalid --bracket-repeats %d: use 1 to %d runs at each end of the interval, e.g. --bracket-repeats 3", o.bracketRepeats, capacityMaxBracketRepeats)
	}
	if !(o.precision > 0 && o.precision <= capacityMaxPrecision) {
		return nil, fmt.Errorf("invalid --precision %v: a relative width above 0 and at most %g, e.g. --precision 0.05 (5 %%)", o.precision, capacityMaxPrecision)
	}
	if o.maxSteps < 1 || o.maxSteps > capacityMaxSteps {
		return nil, fmt.Errorf("invalid --max-steps %d: use 1 to %d halving and bisection runs, e.g. --max-steps 8", o.maxSteps, capacityMaxSteps)
	}
	var seed *uint64
	if o.seed != "" {
		v, err := strconv.ParseUint(strings.TrimSpace(o.seed), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("invalid --seed %q: expecting an unsigned integer, e.g. --seed 42 (leave it out to have one chosen and recorded)", o.seed)
		}
		seed = &v
	}
	wl := experiment.Workload{Protocol: mode, MaxTries: 1}
	if err := capacityScripts(o, changed, &wl); err != nil {
		return nil, err
	}
	target := experiment.Target{Local: localpg.DefaultName}
	switch {
	case o.arg != "":
		target = experiment.Target{URL: o.arg, Given: "the argument"}
	case o.url != "":
		target = experiment.Target{URL: o.url, Given: "--url"}
	}
	if o.dir != "" {
		if _, err := os.Stat(filepath.Join(o.dir, experiment.File)); err == nil {
			return nil, fmt.Errorf("--dir %s already holds an experiment (%s): choose a new directory, or leave --dir out for ./pgtrial-runs/<time>-capacity", o.dir, experiment.File)
		}
	}
	return &experiment.Spec{
		File:        "capacity",
		Name:        "capacity",
		Description: fmt.Sprintf("the highest open-model rate that meets %s, %d clients", slo, o.clients),
		Target:      target,
		Workload:    wl,
		Load: experiment.LoadSpec{
			Clients:      o.clients,
			Threads:      o.threads,
			Arrival:      engine.Poisson,
			Overload:     engine.Queue,
			LatencyLimit: o.latencyLimit.d,
		},
		Protocol: experiment.Protocol{Warmup: o.warmup.d, Window: o.window.d, Repeats: 1, Interleave: true},
		Variants: []experiment.Variant{{Name: experiment.DefaultVariant}},
		Search: &experiment.Search{
			SLO:            slo,
			Fractions:      fractions,
			CeilingRepeats: o.ceilingRepeats,
			BracketRepeats: o.bracketRepeats,
			Precision:      o.precision,
			MaxSteps:       o.maxSteps,
		},
		Seed:     seed,
		Interval: experiment.DefaultInterval,
		Collect: experiment.Collect{
			Off:          o.noCollect,
			WaitInterval: experiment.DefaultWaitInterval,
			WaitSource:   collect.WaitSourceAuto,
		},
	}, nil
}

// capacityScripts checks -b or the -f files (not both) and puts them in wl.
func capacityScripts(o *capacityOptions, changed func(string) bool, wl *experiment.Workload) error {
	if len(o.files) == 0 {
		sc, err := trial.LoadScript(true, o.builtin, 1)
		if err != nil {
			return fmt.Errorf("invalid -b/--builtin: %w", err)
		}
		wl.Builtin = sc.Name
		return nil
	}
	if changed("builtin") {
		return errors.New("-b/--builtin and -f/--file exclude each other: search with a built-in script (-b select-only) or with script files (-f mix.sql@9 -f report.sql@1)")
	}
	if len(o.files) > engine.MaxScripts {
		return fmt.Errorf("%d -f/--file scripts: at most %d are allowed", len(o.files), engine.MaxScripts)
	}
	total := int64(0)
	for _, arg := range o.files {
		sc, err := trial.ParseScriptArg(false, arg)
		if err != nil {
			return fmt.Errorf("invalid -f/--file %q: %w", arg, err)
		}
		total += int64(sc.Weight)
		wl.Scripts = append(wl.Scripts, experiment.Script{File: sc.Name, Path: sc.Name, Weight: sc.Weight})
	}
	if total == 0 {
		return errors.New("the -f/--file scripts' weights add up to 0: give at least one a positive @WEIGHT, e.g. -f mix.sql@1")
	}
	return nil
}

// parseSLOFlag parses --slo QUANTILE=LIMIT, e.g. p99=50ms.
func parseSLOFlag(s string) (experiment.SLO, error) {
	if strings.TrimSpace(s) == "" {
		return experiment.SLO{}, errors.New("--slo is required: give the latency to meet as QUANTILE=LIMIT, e.g. --slo p99=50ms")
	}
	key, limit, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return experiment.SLO{}, fmt.Errorf("invalid --slo %q: expecting QUANTILE=LIMIT, e.g. --slo p99=50ms", s)
	}
	key = strings.ToLower(strings.TrimSpace(key))
	slo := experiment.SLO{}
	q, ok := metrics.QuantileNamed(key) // the experiment file's quantile keys
	if !ok {
		names := metrics.QuantileNames()
		return experiment.SLO{}, fmt.Errorf("invalid --slo %q: the quantile is one of %s or %s, e.g. --slo p99=50ms", s,
			strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
	slo.Quantile = q
	d, err := time.ParseDuration(strings.TrimSpace(limit))
	if err != nil {
		return experiment.SLO{}, fmt.Errorf("invalid --slo %q: the limit is a duration in Go syntax with its unit, e.g. --slo %s=50ms (or 1.5s)", s, key)
	}
	if d <= 0 {
		return experiment.SLO{}, fmt.Errorf("invalid --slo %q: the limit must be above 0, e.g. --slo %s=50ms", s, key)
	}
	slo.Limit = d
	return slo, nil
}

// parseFractions parses --fractions, e.g. 0.3,0.6,0.9.
func parseFractions(s string) ([]float64, error) {
	const example = "e.g. --fractions 0.3,0.6,0.9"
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("invalid --fractions %q: give fractions of the closed-model ceiling, %s", s, example)
	}
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(v) {
			return nil, fmt.Errorf("invalid --fractions %q: %q is not a number; give comma-separated fractions of the ceiling, %s", s, strings.TrimSpace(part), example)
		}
		if !(v > 0 && v <= 1) {
			return nil, fmt.Errorf("invalid --fractions %q: %g is not a fraction of the ceiling above 0 and at most 1, %s", s, v, example)
		}
		if n := len(out); n > 0 && v <= out[n-1] {
			return nil, fmt.Errorf("invalid --fractions %q: %g is not above %g: list them in increasing order, %s", s, v, out[n-1], example)
		}
		out = append(out, v)
	}
	return out, nil
}

// runCapacity runs the search as runExperiment runs an experiment file.
func runCapacity(ctx context.Context, o *capacityOptions, spec *experiment.Spec, info BuildInfo, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	return runExperimentJob(ctx, &experimentJob{
		what:     "capacity search",
		target:   spec.Target,
		dir:      o.dir,
		dirName:  "capacity",
		stopping: "queries in flight are cancelled and the runs so far written",
		started: func(dir string) string {
			return fmt.Sprintf("pgtrial: capacity search for %s: writing %s", spec.Search.SLO, dir)
		},
		notStarted: "nothing was run",
		json:       o.json,
		quiet:      o.quiet,
		force:      o.force,
		noReport:   o.noReport,
		run: func(ctx context.Context, env experiment.Env) (*experiment.Record, error) {
			return experiment.Execute(ctx, spec, env)
		},
		text: experimentText,
	}, info, stdout, stderr)
}
