package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/target"
	"github.com/pgtrial/pgtrial/internal/tpcc"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// checkTimeout bounds the consistency checks (whole-table scans).
const checkTimeout = 10 * time.Minute

func newCheckCommand() *cobra.Command {
	var url, wl string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check -w tpcc [flags] [URL]",
		Short: "Check a workload's tables for consistency (TPC-C-like: the specification's conditions 1-4)",
		Long: `check runs a workload's consistency checks against its tables. For -w tpcc, the
TPC-C specification's conditions (clause 3.3.2), per warehouse and district:
  1  W_YTD = sum(D_YTD)
  2  D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)
  3  count(NEW_ORDER) = max(NO_O_ID) - min(NO_O_ID) + 1
  4  sum(O_OL_CNT) = count(ORDER_LINE)
in one read-only snapshot. A failed condition names the warehouse/district and the
values. They also run after "pgtrial run -b tpcc" (--no-check skips them) and after an
experiment whose workload is tpcc.

Target as for run: the argument or --url, else the libpq environment, else the local
cluster "default".

Exit status: 0 every condition holds; 1 a condition failed, or the check could not run
(no TPC-C tables, no connection).`,
		Example: `  pgtrial init -w tpcc --warehouses 4
  pgtrial check -w tpcc
  pgtrial check -w tpcc postgres://bench@db1/bench`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			arg, err := serverArg(args, url)
			if err != nil {
				return err
			}
			return runCheck(cmd.Context(), wl, arg, url, asJSON, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&wl, "workload", "w", "", `the workload whose tables to check: "tpcc"`)
	f.BoolVar(&asJSON, "json", false, "print the conditions as JSON on stdout (as run.json's tpcc.checks; the exit status is the same)")
	f.StringVar(&url, "url", "", `connection string (postgres:// URL or key=value) or database name; default: the libpq environment (PGHOST, …) if set, else the local cluster "default"`)
	return cmd
}

func runCheck(ctx context.Context, wl, arg, url string, asJSON bool, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if strings.ToLower(wl) != "tpcc" {
		return fmt.Errorf("check: unknown workload %q: -w tpcc is the one with consistency checks", wl)
	}
	ctx, _, stop := notifySignals(ctx, nil, signalPlan{})
	defer stop()
	res, err := target.Resolve(ctx, target.Request{Arg: arg, URL: url, Out: func(s string) { fmt.Fprintln(stderr, s) }})
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	conn, err := tpcc.Connect(cctx, res.ConnString)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	cs, err := tpcc.Check(cctx, conn)
	if err != nil {
		return err
	}
	if asJSON {
		if err := printJSON(stdout, jsonCheck, jsonChecks{Schema: jsonSchemaID(jsonCheck), Checks: cs}); err != nil {
			return err
		}
	} else {
		printChecks(stdout, cs)
	}
	if n := tpcc.Failed(cs); n > 0 {
		return &exitError{code: exitBadInput, err: fmt.Errorf("TPC-C consistency: %d of %d conditions failed (see above)", n, len(cs))}
	}
	return nil
}

// printChecks writes one line per condition, its failures under it.
func printChecks(w io.Writer, cs []results.TPCCCheck) {
	for _, c := range cs {
		if c.Pass {
			fmt.Fprintf(w, "condition %d pass: %s (%d checked)\n", c.Condition, c.What, c.Checked)
			continue
		}
		fmt.Fprintf(w, "condition %d FAILED: %s (%d of %d violate it)\n", c.Condition, c.What, c.Violations, c.Checked)
		for _, f := range c.Failures {
			fmt.Fprintln(w, "  "+f)
		}
		if c.Violations > int64(len(c.Failures)) {
			fmt.Fprintf(w, "  … and %d more\n", c.Violations-int64(len(c.Failures)))
		}
	}
}

// tpccMode is the TPC-C-like mode of a run's -b scripts ("" for another
// workload).
func tpccMode(scripts []scriptSpec) string {
	for _, s := range scripts {
		if !s.builtin {
			continue
		}
		name, _, _ := strings.Cut(s.arg, "@")
		if m, ok := tpcc.ModeOf(name); ok {
			return m
		}
	}
	return ""
}

// addTPCC makes tc a TPC-C-like run's: NOPM's window query, and at the end
// the figures and (unless noCheck) the consistency checks in run.json's
// tpcc. The run fails when a check fails (tpccFailed).
func addTPCC(tc *trial.Config, mode string, noCheck bool) {
	tc.WindowQueries = append(tc.WindowQueries, tpcc.NOPMQuery)
	connString, clients := tc.ConnString, tc.Clients
	tc.BeforeFinish = func(run *results.Run, r *trial.Result) {
		in := tpcc.Input{Mode: mode, Clients: clients, Summary: r.Summary, NextOID: tpcc.WindowValue(r.WindowValues, tpcc.NOPMQuery)}
		skip := ""
		switch {
		case noCheck:
			skip = "--no-check"
		case r.Interrupted:
			skip = "the run was interrupted"
		}
		ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
		defer cancel()
		run.TPCC = tpcc.Finish(ctx, connString, in, skip)
	}
}

// tpccFailed is the error of a run whose consistency checks failed; nil
// otherwise.
func tpccFailed(t *results.TPCC, dir string) error {
	if !t.ChecksFailed() {
		return nil
	}
	return &exitError{code: exitRunFail, err: fmt.Errorf("TPC-C consistency checks failed (%d of %d conditions; see the summary): the run failed; the results are in %s",
		tpcc.Failed(t.Checks), len(t.Checks), dir)}
}
