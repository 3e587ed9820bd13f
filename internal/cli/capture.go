package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/capture"
	"github.com/pgtrial/pgtrial/internal/report"
	"github.com/pgtrial/pgtrial/internal/target"
)

// captureTimeout bounds a whole capture (catalogue and pg_stats reads).
const captureTimeout = 5 * time.Minute

func newCaptureCommand() *cobra.Command {
	var (
		url     string
		cfg     capture.Config
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "capture [URL] --out DIR",
		Short: "Capture a server's pg_stat_statements as a workload of weighted scripts (and compare a run with it)",
		Long: `capture reads pg_stat_statements of the target's database (every role's top-level
statements, summed by queryid) and writes a workload directory DIR:
  NN-name.sql   one pgbench-language script per statement, its $n parameters drawn
                from pg_stats of the column each is compared with (most common values
                with their frequencies, else the histogram)
  run.sh        pgtrial run with every script weighted by its calls (-f NN-name.sql@W)
  README.md     the statements, the command, how parameters are drawn, and the
                statements not parameterised and why (DDL, utility, unknown column, …)
  profile.json  the captured profile: per statement calls share, rows/call, shared
                blocks/call, mean ms, and the wait profile: active client sessions
                by wait_event_type, sampled from pg_stat_activity for --sample-waits
                (for "pgtrial capture compare")

A $n that is an operand (col = col + $n, col * $n: a delta, which pg_stats says nothing
of) or whose column has no statistics (an empty or never analysed table) and no column
to borrow them from (its foreign key's, else a same-named column's) is drawn uniformly
from [-R, R] (--default-range): the README lists it as approximated.

The source is only read: the session is read-only (default_transaction_read_only = on)
with a statement timeout, and reads pg_stat_statements, the catalogue and pg_stats, never
a table's rows. pgtrial's own statements and utility statements are left out.

After a run of the scripts, "pgtrial capture compare DIR RUN_DIR" prints how the run's
statement mix, rows/call, blocks/call and wait profile compare with the profile.

Target as for run: the argument or --url, else the libpq environment, else the local
cluster "default".`,
		Example: `  pgtrial capture postgres://app@prod/app --out captured
  ./captured/run.sh postgres://bench@copy/app -T 60s --rate 500 --run-dir replay
  pgtrial capture compare captured replay`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			arg, err := serverArg(args, url)
			if err != nil {
				return err
			}
			cfg.StatementTimeout = timeout
			return runCapture(cmd.Context(), cfg, arg, url, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Out, "out", "", "the workload directory to write (new or empty)")
	f.Int64Var(&cfg.MinCalls, "min-calls", 10, "leave out statements with fewer calls")
	f.IntVar(&cfg.Top, "top", 50, "at most this many statements, by calls (0: all)")
	f.Int64Var(&cfg.DefaultRange, "default-range", capture.DefaultRange, "R: a number parameter whose distribution cannot be known (a delta in col + $n, a column without statistics) is drawn uniformly from [-R, R] (listed as approximated)")
	f.DurationVar(&cfg.SampleWaits, "sample-waits", 5*time.Second, "sample the source's pg_stat_activity wait events for this long into the profile, for compare's wait profile (read-only; 0: none)")
	f.DurationVar(&timeout, "statement-timeout", 5*time.Second, "statement_timeout of capture's queries on the source")
	f.StringVar(&url, "url", "", `connection string (postgres:// URL or key=value) or database name; default: the libpq environment (PGHOST, …) if set, else the local cluster "default"`)
	cmd.AddCommand(newCaptureCompareCommand())
	return cmd
}

func runCapture(ctx context.Context, cfg capture.Config, arg, url string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if cfg.Out == "" {
		return errors.New("capture: give the workload directory to write with --out DIR")
	}
	ctx, _, stop := notifySignals(ctx, nil, signalPlan{})
	defer stop()
	res, err := target.Resolve(ctx, target.Request{Arg: arg, URL: url, Out: func(s string) { fmt.Fprintln(stderr, s) }})
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, captureTimeout)
	defer cancel()
	cfg.ConnString = res.ConnString
	out, err := capture.Capture(cctx, cfg)
	if err != nil {
		return err
	}
	return report.WriteText(stdout, captureDoc(out))
}

func newCaptureCompareCommand() *cobra.Command {
	th := capture.DefaultThresholds
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compare DIR RUN_DIR",
		Short: "Compare a run of a captured workload with its profile",
		Long: `compare reads the profile that "pgtrial capture" saved in DIR (profile.json) and the
run directory RUN_DIR of a run of its scripts (statements.csv, the measured phase) and
prints per statement its share of the calls captured (the scripts' mix) and in the run,
the run's rows/call and shared blocks/call against the profile's, and the share of
each wait type among the active client sessions' samples (waits.csv, whole run)
against the capture's, with what a difference suggests ("rows/call of Q7 is 10× the profile's: its parameters match more
rows than the captured ones did").

Exit status: 0 similar; 1 a flag was raised, or the directories could not be read.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			sim, err := capture.Compare(args[0], args[1], th)
			if err != nil {
				return err
			}
			if asJSON {
				if err := printJSON(cmd.OutOrStdout(), jsonCaptureCompare, newJSONCaptureCompare(sim)); err != nil {
					return err
				}
			} else if err := report.WriteText(cmd.OutOrStdout(), captureCompareDoc(sim)); err != nil {
				return err
			}
			if !sim.Similar {
				return &exitError{code: exitBadInput, err: fmt.Errorf("the run is not similar to the captured profile (%d flags, see above)", len(sim.Flags))}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Float64Var(&th.Share, "share", th.Share, "flag a statement whose share of calls differs by more than this (absolute: 0.03 = 3 points)")
	f.Float64Var(&th.WaitShare, "wait-share", th.WaitShare, "flag a wait type whose share of the active sessions' samples differs by more than this (absolute: 0.10 = 10 points)")
	f.BoolVar(&asJSON, "json", false, "print the comparison as JSON on stdout (the exit status is the same)")
	f.Float64Var(&th.Ratio, "ratio", th.Ratio, "flag rows/call or blocks/call more than this factor from the profile's")
	return cmd
}

// captureDoc is capture's result: the statements with their scripts and
// weights (or why not replayed), the approximated parameters, the command.
func captureDoc(out *capture.Result) *report.Doc {
	p := out.Profile
	doc := &report.Doc{Title: fmt.Sprintf("captured %d statements (%d calls) of database %s into %s", len(p.Statements), p.Calls, p.Database, out.Dir)}
	t := &report.Table{Head: []string{"id", "share", "script", "note"}, Attached: true}
	for _, s := range p.Statements {
		share := fmt.Sprintf("%.2f %%", 100*s.Share)
		switch {
		case s.Script == "":
			t.AddRow(s.ID, share, "—", "not replayed: "+s.Skipped)
		case len(s.Approximations) > 0:
			t.AddRow(s.ID, share, fmt.Sprintf("%s@%d", s.Script, s.Weight), "approximated: "+strings.Join(s.Approximations, "; "))
		default:
			t.AddRow(s.ID, share, fmt.Sprintf("%s@%d", s.Script, s.Weight), "")
		}
	}
	doc.Add(t)
	var lines []string
	if w := p.Waits; w != nil {
		lines = append(lines, fmt.Sprintf("waits: %d samples of active client sessions in %d samples of pg_stat_activity over %.1f s", w.Samples, w.Ticks, w.Seconds))
	}
	lines = append(lines, fmt.Sprintf("run it: %s/run.sh TARGET -T 60s (see %s/README.md)", out.Dir, out.Dir))
	doc.Add(&report.Lines{Lines: lines, Attached: true})
	return doc
}

// captureCompareDoc is capture compare's summary: per statement the share
// captured and in the run and the per-call ratios, the wait types' shares,
// and the verdict in a sentence.
func captureCompareDoc(s *capture.Similarity) *report.Doc {
	phase := cmp.Or(s.Phase, "whole run")
	doc := &report.Doc{Title: fmt.Sprintf("similarity of the run to the captured profile (%s; flags: share ±%.0f points, per call ×%g)", phase, 100*s.Thresholds.Share, s.Thresholds.Ratio)}
	t := &report.Table{Head: []string{"id", "captured", "run", "diff", "rows/call cap → run", "blocks/call cap → run", "mean ms cap → run"}, Attached: true}
	for _, st := range s.Statements {
		d := fmt.Sprintf("%+.1f%s", 100*(st.RunShare-st.CapturedShare), flagMark(st.ShareOff))
		if st.Calls == 0 {
			t.Rows = append(t.Rows, []report.Cell{report.Text(st.ID), report.Text(fmt.Sprintf("%.1f %%", 100*st.CapturedShare)), report.Text("0.0 %"), report.Text(d),
				report.Absent(st.ID + " was not run"), report.Absent(st.ID + " was not run"), report.Absent(st.ID + " was not run")})
			continue
		}
		t.AddRow(st.ID, fmt.Sprintf("%.1f %%", 100*st.CapturedShare), fmt.Sprintf("%.1f %%", 100*st.RunShare), d,
			fmt.Sprintf("%.2f → %.2f (%s)%s", st.CapturedRows, st.RunRows, capture.Times(st.RowsRatio), flagMark(st.RowsOff)),
			fmt.Sprintf("%.1f → %.1f (%s)%s", st.CapturedBlocks, st.RunBlocks, capture.Times(st.BlocksRatio), flagMark(st.BlocksOff)),
			fmt.Sprintf("%.3f → %.3f", st.CapturedMeanMs, st.RunMeanMs))
	}
	t.Notes = append(t.Notes, "! marks a flag")
	doc.Add(t)
	if s.WaitsNote == "" && len(s.Waits) > 0 {
		wt := &report.Table{Title: fmt.Sprintf("wait profile: share of the active client sessions' samples by wait type (flag ±%.0f points)", 100*cmp.Or(s.Thresholds.WaitShare, capture.DefaultThresholds.WaitShare)),
			Head: []string{"wait type", "captured", "run"}}
		for _, w := range s.Waits {
			wt.AddRow(w.Type, fmt.Sprintf("%.0f %%", 100*w.CapturedShare), fmt.Sprintf("%.0f %%%s", 100*w.RunShare, flagMark(w.Off)))
		}
		if s.WaitsCaveat != "" {
			wt.Notes = append(wt.Notes, s.WaitsCaveat)
		}
		doc.Add(wt)
	}
	var lines []string
	if s.Unmatched > 0 {
		lines = append(lines, fmt.Sprintf("the run made %d calls of statements that are not the profile's (left out of the shares)", s.Unmatched))
	}
	if s.WaitsNote != "" {
		lines = append(lines, s.WaitsNote)
	}
	lines = append(lines, s.Summary())
	doc.Add(&report.Lines{Lines: lines})
	return doc
}

func flagMark(off bool) string {
	if off {
		return " !"
	}
	return ""
}
