package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/report"
)

// experimentOptions are `pgtrial experiment`'s flags.
type experimentOptions struct {
	dir      string
	url      string
	check    bool
	json     bool
	quiet    bool
	force    bool
	noReport bool
	restore  string
	// calibrate is --calibrate: "" (the file's protocol.calibrate), warn,
	// adjust or off; calibrateRuns --calibrate-runs (0: the file's or 4).
	calibrate     string
	calibrateRuns int
	explain       explainFlag
	metrics       metricsOptions
}

const experimentLong = `experiment runs the experiment described by FILE.yaml and says whether its
variants differ beyond noise.

The file names the target, the workload, the load (open model at a rate, closed
model, or a ramp), the protocol (warm-up before every run, measured window, repeats,
interleaving), the variants (server settings applied with ALTER SYSTEM and a reload,
or a restart; setup and teardown SQL such as extra indexes), injected stalls (an
ACCESS EXCLUSIVE lock, a CHECKPOINT, a VACUUM at a time of the window), SLOs and
capacity search; see internal/experiment's documentation (go doc
./internal/experiment) for every key. The whole file is checked before anything
touches the database, and so are the settings and tables it names (against the
server); every problem is reported with its file:line:column and key.

The target is --url, else the file's target section, else the libpq environment when
any of PGHOST, PGHOSTADDR, PGPORT, PGDATABASE, PGUSER or PGSERVICE is set, else the
local cluster "default"; the first line on stderr says which and why.

The runs are interleaved A B A B … by default, each after its warm-up; the default
window is max(2 × checkpoint_timeout, 60 s) so that windows hold checkpoints. Each
run is a run directory (as "pgtrial run" writes) under DIR/runs; DIR/experiment.json
holds the plan, every run's figures and the conclusions, rewritten after every run.
Settings changed by a variant are put back when it is done, also on errors and
interrupts. Before a variant's first ALTER SYSTEM (and its setup SQL), DIR/restore.json
records the settings' earlier postgresql.auto.conf entries and the teardown SQL, and
postgresql.auto.conf gets pgtrial.unrestored = 'DIR' beside them; both go once the
variant is undone. An experiment refuses to start on a server whose
postgresql.auto.conf still holds pgtrial.unrestored (unless --force).

SIGINT, SIGTERM and SIGHUP: the first stops the experiment, puts the server back
and writes experiment.json with its end and "interrupted"; a second one does the
same at once, putting the settings back and running the teardown under a 20 s
limit, and the process exits a minute later at the latest. After a crash or a
kill -9, "pgtrial experiment --restore DIR" puts back what restore.json records
(ALTER SYSTEM back or RESET, a reload, or a restart when a setting needs one and
the target can be restarted; else it says so), runs the teardown SQL, marks
experiment.json ended and interrupted, and removes restore.json (a second
--restore says there is nothing to restore).

At the end (also when it ended early) the reports: DIR/report.html and DIR/report.md,
and each run's own in its directory; the path of DIR/report.html is the last line
(--no-report: none; "pgtrial report DIR" writes them later).

The summary shows each variant's figures as median (min–max) over its repeats,
each variant against the first with the ratio of medians, its bootstrap interval
and Mann-Whitney's p ("pgtrial compare"), the ramp's levels with waits by type, the
capacity search's steps, the SLOs, and the checklist.

--calibrate (or protocol.calibrate in the file) first makes A/A runs of the first
variant (4 by default, --calibrate-runs N) with the experiment's warm-up and window:
run directories in DIR/runs like the others, recorded in experiment.json's
calibration object and left out of every comparison. Their run-to-run coefficient
of variation of the primary metric (the standard deviation of its logarithms) gives
the runs a side that detect the equivalence margin (default ±5 %) at 80 % power,
printed before the real runs:

  calibration: 4 runs of baseline: tps CV 2.1 %; detecting ±5 % needs 6 runs a side at 80 % power (the experiment has 5)

For tps it also says how much of the spread a window twice as long would average
away (Kalibera & Jones 2013). When the repeats are fewer than needed the experiment
warns and runs as planned; --calibrate=adjust raises the repeats to the runs needed
(at most 30), --calibrate=off skips the file's calibration.

Exit status: 0 the experiment ran (--restore: restored, or nothing to restore); 1
bad file or setup (nothing was changed), or --restore could not put everything
back; 2 it ended early (interrupted, a run failed); with a gate: key (the rules of
compare --fail-on, judged on each variant against the first; docs/ci-gate.md), 3 a
rule fails and 4 none fails but one is inconclusive.`

func newExperimentCommand(info BuildInfo) *cobra.Command {
	o := &experimentOptions{}
	cmd := &cobra.Command{
		Use:   "experiment [flags] FILE.yaml | --restore DIR",
		Short: "Run an experiment: variants, repeats interleaved, injections, ramps, capacity search, verdicts",
		Long:  experimentLong,
		Example: `  pgtrial experiment sync-commit.yaml
  pgtrial experiment --check indexes.yaml
  pgtrial experiment --url postgres://bench@db1/bench --dir results/sb capacity.yaml
  pgtrial experiment --restore pgtrial-runs/20260101-1200-experiment-sb`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.restore != "" {
				if len(args) > 0 {
					return fmt.Errorf("--restore DIR takes no experiment file (got %q)", args[0])
				}
				return nil
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.restore != "" {
				return runExperimentRestore(cmd.Context(), o.restore, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			return runExperiment(cmd.Context(), o, args[0], info, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.dir, "dir", "", "experiment directory (default ./pgtrial-runs/<time>-<name>)")
	f.StringVar(&o.url, "url", "", "run against this server instead of the file's target (no restart_command: settings that need a restart are refused); "+
		"with neither, the libpq environment (PGHOST, …) if set, else the local cluster \"default\"")
	f.BoolVar(&o.check, "check", false, "only check the file (and nothing else): no connection is made")
	f.BoolVar(&o.json, "json", false, "print experiment.json on stdout instead of the text summary")
	f.BoolVar(&o.quiet, "quiet", false, "no status line")
	f.BoolVar(&o.force, "force", false, "start although the server's postgresql.auto.conf holds another experiment's unrestored values (pgtrial.unrestored)")
	f.BoolVar(&o.noReport, "no-report", false, "do not write the reports (report.html, report.md) of the experiment and its runs")
	f.StringVar(&o.calibrate, "calibrate", "", "A/A runs of the first variant first, to measure the run-to-run spread and the repeats needed: `warn` (the default when given without a value) warns when the repeats are fewer, adjust raises them, off skips the file's protocol.calibrate")
	f.Lookup("calibrate").NoOptDefVal = "warn"
	f.IntVar(&o.calibrateRuns, "calibrate-runs", 0, "calibration runs (default 4, at least 3); implies --calibrate")
	addExplainFlag(f, &o.explain, "every run's findings and the experiment's are computed with it")
	addMetricsFlags(f, &o.metrics)
	f.StringVar(&o.restore, "restore", "", "put back what the experiment in `DIR` changed and did not undo (a crash, kill -9): DIR/restore.json; no FILE")
	return cmd
}

// runExperimentRestore is --restore DIR.
func runExperimentRestore(ctx context.Context, dir string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	say := func(line string) { fmt.Fprintln(stderr, line) }
	lines, err := experiment.Restore(ctx, dir, say)
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
	}
	if errors.Is(err, experiment.ErrNothingToRestore) {
		fmt.Fprintf(stdout, "pgtrial: %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pgtrial: %s: the server is back as it was before the experiment changed it\n", dir)
	return nil
}

func runExperiment(ctx context.Context, o *experimentOptions, file string, info BuildInfo, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	spec, err := experiment.Load(file)
	if err != nil {
		return err
	}
	if err := applyCalibrate(spec, o); err != nil {
		return err
	}
	if o.check {
		fmt.Fprintf(stdout, "%s: the file is valid (experiment %s, %d variants, model %s)\n", file, spec.Name, len(spec.Variants), spec.Model())
		return nil
	}
	if o.url != "" {
		spec.Target = experiment.Target{URL: o.url, Given: "--url", NodeExporter: spec.Target.NodeExporter}
	}
	return runExperimentJob(ctx, &experimentJob{
		what:       "experiment",
		target:     spec.Target,
		dir:        o.dir,
		dirName:    "experiment-" + spec.Name,
		stopping:   "queries in flight are cancelled, the server's settings restored and the results so far written",
		started:    func(dir string) string { return fmt.Sprintf("pgtrial: experiment %s: writing %s", spec.Name, dir) },
		notStarted: "nothing was changed",
		json:       o.json,
		quiet:      o.quiet,
		force:      o.force,
		noReport:   o.noReport,
		explain:    o.explain.config(),
		metrics:    o.metrics,
		run: func(ctx context.Context, env experiment.Env) (*experiment.Record, error) {
			return experiment.Execute(ctx, spec, env)
		},
		text: experimentText,
		exit: func(rec *experiment.Record) error { return gateExit(rec.Gate) },
	}, info, stdout, stderr)
}

// applyCalibrate puts --calibrate and --calibrate-runs over the file's
// protocol.calibrate.
func applyCalibrate(spec *experiment.Spec, o *experimentOptions) error {
	c := spec.Protocol.Calibrate
	switch o.calibrate {
	case "":
	case "warn", "adjust":
		if c.Runs == 0 {
			c.Runs = experiment.DefaultCalibrationRuns
		}
		c.Adjust = o.calibrate == "adjust"
	case "off":
		if o.calibrateRuns != 0 {
			return errors.New("--calibrate=off and --calibrate-runs exclude each other")
		}
		c = experiment.Calibrate{}
	default:
		return fmt.Errorf("--calibrate=%s: use --calibrate (warn when the repeats are fewer than needed), --calibrate=adjust (raise them) or --calibrate=off", o.calibrate)
	}
	if o.calibrateRuns != 0 {
		c.Runs = o.calibrateRuns
	}
	if c == spec.Protocol.Calibrate {
		return nil
	}
	if err := spec.SetCalibrate(c); err != nil {
		if o.calibrateRuns != 0 {
			return fmt.Errorf("--calibrate-runs %d: %w", o.calibrateRuns, err)
		}
		return fmt.Errorf("--calibrate: %w", err)
	}
	return nil
}

// experimentJob is what `experiment`, `capacity` and `demo` share: signals
// handled, the target resolved, the experiment run, its record printed.
type experimentJob struct {
	what       string // in messages: "experiment", "capacity search", "demo"
	target     experiment.Target
	dir        string // "": ./pgtrial-runs/<time>-<dirName>
	dirName    string
	stopping   string                  // what the first signal does
	started    func(dir string) string // the line before the runs; nil: none
	notStarted string                  // said of a signal before the start ("": the error as it is)
	json       bool                    // experiment.json instead of text
	quiet      bool                    // no status line
	force      bool                    // start despite another experiment's marker (Env.Force)
	noReport   bool                    // no report.html and report.md at the end
	explain    *explain.Config         // --explain: the findings' settings (nil: the defaults)
	metrics    metricsOptions          // --metrics-addr, --metrics-allow-remote
	run        func(context.Context, experiment.Env) (*experiment.Record, error)
	text       func(io.Writer, *experiment.Record, string) error // the text report
	// exit is the status of a job that finished: nil, or the gate's
	// (gateExit); nil exit: 0.
	exit func(*experiment.Record) error
}

// experimentText writes the summary of an experiment or a capacity search.
func experimentText(w io.Writer, rec *experiment.Record, dir string) error {
	return report.WriteText(w, report.Experiment(rec, dir))
}

// demoText writes the demo's report.
func demoText(w io.Writer, rec *experiment.Record, dir string) error {
	return report.WriteText(w, report.Demo(rec, dir))
}

func runExperimentJob(ctx context.Context, j *experimentJob, info BuildInfo, stdout, stderr io.Writer) error {
	out := &liveOut{w: stderr, tty: isTerminal(stderr)}
	ctx, sigs, stop := notifySignals(ctx, out, signalPlan{
		stopping: j.stopping,
		hurrying: "the server's settings are restored and the teardown run, each under a short timeout",
		grace:    time.Minute,
	})
	defer stop()
	live, err := startLiveMetrics(j.metrics, out.println) // livemetrics.go
	if err != nil {
		return err
	}
	defer live.close()

	env, err := experiment.ResolveTarget(ctx, j.target, out.println)
	if err != nil {
		return err
	}
	dir := j.dir
	if dir == "" {
		dir = defaultRunDir(time.Now(), j.dirName)
	}
	env.Dir, env.Tool, env.CommandLine = dir, info.tool(), os.Args
	env.Out, env.Interrupt = out.println, sigs.get
	env.Urgent, env.Force = sigs.Urgent(), j.force
	env.Explain = j.explain
	if live != nil {
		env.OnRun = live.attach
	}
	if !j.quiet && out.tty {
		env.Status = out.status // a line a second is noise in a log: only on a terminal
	}
	if j.started != nil {
		out.println(j.started(dir))
	}
	rec, err := j.run(ctx, env)
	out.end()
	if rec == nil {
		if reason, _ := sigs.get(); reason != "" && j.notStarted != "" {
			return &exitError{code: exitRunFail, err: fmt.Errorf("interrupted by %s before the %s started; %s", reason, j.what, j.notStarted)}
		}
		return err
	}
	if j.json {
		if jerr := printJSON(stdout, jsonExperiment, rec); jerr != nil {
			return jerr
		}
	} else if terr := j.text(stdout, rec, dir); terr != nil {
		return terr
	}
	// The reports of what was made, also when it ended early; the path
	// last (on stderr with --json).
	if !j.noReport {
		w := stdout
		if j.json {
			w = stderr
		}
		endReport(w, stderr, func() (report.Written, error) { return writeExperimentReports(dir, rec, stderr) })
	}
	if err != nil {
		return &exitError{code: exitRunFail, err: fmt.Errorf("the %s ended early: %w; the runs made are in %s", j.what, err, filepath.Join(dir, experiment.RunsDir))}
	}
	if j.exit != nil {
		return j.exit(rec)
	}
	return nil
}
