package cli

// analyze.go: `pgtrial analyze LOG…`, a run directory from pgbench's -l logs
// (internal/analyze reads them and writes it; this file takes the flags and
// prints the summary through internal/report).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/analyze"
	"github.com/pgtrial/pgtrial/internal/report"
)

// analyzeMemoryLimit is analyze's soft memory limit (GOMEMLIMIT overrides it).
const analyzeMemoryLimit = 64 << 20

type analyzeOptions struct {
	dir          string
	samplingRate float64
	col7         string
	interval     time.Duration
	json         bool
}

const analyzeLong = `analyze reads the logs pgbench wrote with -l (per-transaction lines, with or without
the lag and retries columns, skipped and failed lines; or --aggregate-interval lines),
plain or gzip-compressed, one file per pgbench thread, and makes a run directory of
them: run.json (the summary, and what the logs can and cannot tell), latency.hlog and
timeline.csv, so that "pgtrial report", "pgtrial compare" and the findings work on
pgbench results of the past.

The summary's percentiles of the total response time are exact (every latency counted
by its µs value: the sorted latencies' v[ceil(n*q)-1]); those of each script and of
the timeline are HDR histograms' (within 0.1 %). An aggregate log has no percentiles:
only count, mean, standard deviation, minimum and maximum per interval.

What a log cannot say, give or read with care: --sampling-rate (pgbench's, recorded;
the counts are of the logged lines), --col7 (a 7-column line's last column is the
schedule lag under -R, the retries under --max-tries without -R).

Exit status: 0 the run directory was written; 1 bad input (a line that is not
pgbench's, files of both kinds); 2 the directory could not be written.`

func newAnalyzeCommand(info BuildInfo) *cobra.Command {
	o := &analyzeOptions{}
	cmd := &cobra.Command{
		Use:   "analyze [flags] LOG...",
		Short: "Make a run directory from pgbench's -l logs (report, compare and the findings then work on it)",
		Long:  analyzeLong,
		Example: `  pgtrial analyze pgbench_log.12345 pgbench_log.12345.1
  pgtrial analyze --dir runs/old-r500 --sampling-rate 0.1 logs/pgbench_log.*.gz`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAnalyze(cmd.Context(), o, info, args, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVarP(&o.dir, "dir", "o", "", "the run directory to write (default ./pgtrial-runs/<time>-pgbench-log)")
	f.Float64Var(&o.samplingRate, "sampling-rate", 0, "pgbench's --sampling-rate of the run, in (0, 1] (the log cannot tell it)")
	f.StringVar(&o.col7, "col7", "lag", "the 7th column of 7-column lines: lag (pgbench -R) or retries (--max-tries without -R)")
	f.DurationVar(&o.interval, "interval", time.Second, "the timeline's interval for per-transaction logs")
	f.BoolVar(&o.json, "json", false, "print the summary as JSON on stdout")
	return cmd
}

func runAnalyze(ctx context.Context, o *analyzeOptions, info BuildInfo, files []string, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, _, stop := notifySignals(ctx, nil, signalPlan{}) // the reading stops; nothing is written
	defer stop()
	if o.col7 != "lag" && o.col7 != "retries" {
		return &exitError{code: exitBadInput, err: fmt.Errorf("--col7 %q: want lag or retries", o.col7)}
	}
	if o.samplingRate < 0 || o.samplingRate > 1 {
		return &exitError{code: exitBadInput, err: fmt.Errorf("--sampling-rate %g: want a rate in (0, 1], as pgbench's", o.samplingRate)}
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return &exitError{code: exitBadInput, err: fmt.Errorf("analyze: %w", err)}
		}
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft limit: the collector works harder near it instead of
		// letting the heap double (the histograms of a 10-million-line
		// log are ~40 MB live). A log that needs more still runs.
		debug.SetMemoryLimit(analyzeMemoryLimit)
	}
	dir := o.dir
	if dir == "" {
		dir = defaultRunDir(time.Now(), "pgbench-log")
	}
	res, err := analyze.Analyze(ctx, analyze.Config{
		Files: files, Dir: dir, Interval: o.interval, SamplingRate: o.samplingRate,
		Col7Retries: o.col7 == "retries", Tool: info.tool(), CommandLine: os.Args,
	})
	if err != nil {
		if res == nil && !errors.Is(err, context.Canceled) {
			return &exitError{code: exitBadInput, err: err}
		}
		return &exitError{code: exitRunFail, err: err}
	}
	run := res.Run
	if o.json {
		return printJSON(stdout, jsonRunSummary, jsonSummary{Schema: jsonSchemaID(jsonRunSummary), Summary: *run.Summary, Evidence: run.Evidence, Checks: run.Checks, RunDir: dir})
	}
	clients := fmt.Sprintf("%d clients", run.Model.Clients)
	if run.Model.Clients == 0 {
		clients = "clients not in the log"
	}
	model := "closed model (no schedule lag in the log), " + clients
	if run.Model.Kind == "open" {
		model = "open model (pgbench -R: the log has the schedule lag, not the rate), " + clients
	}
	v := &report.RunView{
		Workload: fmt.Sprintf("pgbench log (%d files, %d lines, %s)", len(files), res.Lines, run.Logs.Format),
		Model:    model,
		Closed:   run.Model.Kind != "open",
		Summary:  run.Summary,
		Run:      run,
		Dir:      dir,
		Measured: true,
	}
	for _, s := range run.Workload.Scripts {
		v.Scripts = append(v.Scripts, report.RunScript{Name: s.Name})
	}
	return report.WriteText(stdout, report.Run(v))
}
