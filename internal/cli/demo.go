package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/localpg"
)

type demoOptions struct {
	full     bool
	scale    int
	clients  int
	dir      string
	json     bool
	quiet    bool
	force    bool
	noReport bool
	explain  explainFlag
	metrics  metricsOptions
}

const demoLong = `demo shows the honest method on the throwaway local cluster in about 3 minutes
(plus loading the tables the first time): the protocol of the method's first seed.

  1. The pgbench tables (tpcb-like) at --scale (default 20, about 300 MB). When the data
     fits in shared_buffers, shared_buffers is set to 128MB for the demo (a restart) and
     put back afterwards, so that reads reach the operating system.
  2. The closed model's ceiling: 3 runs.
  3. The open model at 30, 60 and 90 % of the ceiling, 3 runs each, interleaved by repeat,
     with a 100 ms latency limit: p50, p95, p99 and the skipped share as
     median (min–max) over the repeats.
  4. A stall: a 5 s ACCESS EXCLUSIVE lock on pgbench_branches, in a closed-model run and
     in an open-model run at 60 % of the ceiling: the closed model hides it (its clients
     stop sending), the open model's p99 shows it.

Then the checklist and where the run directories are, and last the path of the demo's
report.html (the page with the three-level table and chart and the stall comparison;
--no-report: none). --full uses the seed's lengths (120 s warm-up, 120 s windows, a
60 s stall run; about 30 minutes).`

func newDemoCommand(info BuildInfo) *cobra.Command {
	o := &demoOptions{scale: 20, clients: 8}
	cmd := &cobra.Command{
		Use:   "demo [flags]",
		Short: "Show the method on the local cluster: ceiling, open model at 30/60/90 %, a stall (about 3 minutes)",
		Long:  demoLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(cmd.Context(), o, info, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.BoolVar(&o.full, "full", false, "the seed's lengths: 120 s warm-up and windows, 60 s stall runs (about 30 minutes)")
	f.IntVarP(&o.scale, "scale", "s", o.scale, "pgbench scale of the tables (about 15 MB each)")
	f.IntVarP(&o.clients, "clients", "c", o.clients, "clients")
	f.StringVar(&o.dir, "dir", "", "directory of the demo's runs (default ./pgtrial-runs/<time>-demo)")
	f.BoolVar(&o.json, "json", false, "print experiment.json instead of the report")
	f.BoolVar(&o.quiet, "quiet", false, "no status line")
	f.BoolVar(&o.noReport, "no-report", false, "do not write the reports (report.html, report.md) of the demo and its runs")
	addExplainFlag(f, &o.explain, "every run's findings and the demo's are computed with it")
	f.BoolVar(&o.force, "force", false, "start although the server's postgresql.auto.conf holds an experiment's unrestored values (pgtrial.unrestored; see pgtrial experiment --restore)")
	addMetricsFlags(f, &o.metrics)
	return cmd
}

func runDemo(ctx context.Context, o *demoOptions, info BuildInfo, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.scale < 1 || o.scale > 10000 {
		return fmt.Errorf("invalid --scale %d: use 1 to 10000", o.scale)
	}
	if o.clients < 1 || o.clients > 1000 {
		return fmt.Errorf("invalid --clients %d: use 1 to 1000", o.clients)
	}
	cfg := experiment.DemoConfig{Full: o.full, Scale: o.scale, Clients: o.clients}
	return runExperimentJob(ctx, &experimentJob{
		what:     "demo",
		target:   experiment.Target{Local: localpg.DefaultName, Given: "the demo always uses it"},
		dir:      o.dir,
		dirName:  "demo",
		stopping: "queries in flight are cancelled, shared_buffers put back and the runs so far written",
		json:     o.json,
		quiet:    o.quiet,
		force:    o.force,
		noReport: o.noReport,
		explain:  o.explain.config(),
		metrics:  o.metrics,
		run: func(ctx context.Context, env experiment.Env) (*experiment.Record, error) {
			return experiment.Demo(ctx, cfg, env)
		},
		text: demoText,
	}, info, stdout, stderr)
}
