package cli

// merge.go: `pgtrial merge DIR… -o OUT`, one run directory of the segments
// of one load (run --segment i/n); internal/merge reads and writes, this
// file takes the flags and prints the summary through internal/report.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/merge"
	"github.com/pgtrial/pgtrial/internal/report"
)

type mergeOptions struct {
	out          string
	allowPartial bool
	json         bool
}

const mergeLong = `merge makes one run directory of the run directories of the segments of one load
(pgtrial run --segment i/n on n machines or processes, best with one --start-at), so that
"pgtrial report", "pgtrial compare", the checklist and the findings read it as one run of
the whole load.

The segments' times are put on one clock: each segment's clock offset against the
server (run.json's segment.clock, the mean of its start and end readings) less segment
0's is added to its times. Each interval of a segment goes into the interval of segment
0's grid that holds its midpoint, where the HDR histograms of every script and kind add
exactly; counts are summed, rates recomputed over segment 0's measured window,
percentiles taken from the merged histograms (never averaged). The collectors' files
are segment 0's (the server is watched once); other segments' os.csv are kept in
segments/NNN/os.csv, their transaction logs (--txlog) in txlog/segNNN.*. run.json's
"merge" lists the segments, their clock offsets and counts, and how far apart their
starts were.

Refused, naming the two directories and the field: segments of different workloads or
script texts, schedules (model, rate, whole-load clients and threads, duration, warm-up,
interval, start), seeds or segment counts; a duplicate or missing segment; a directory
that is not a segment run; a crashed segment; an interrupted one unless --allow-partial.

Exit status: 0 the merged run directory was written; 1 the inputs were refused;
2 the directory could not be written.`

func newMergeCommand(info BuildInfo) *cobra.Command {
	o := &mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge [flags] DIR... -o OUT",
		Short: "Merge the run directories of the segments of one load (run --segment i/n) into one run directory",
		Long:  mergeLong,
		Example: `  pgtrial merge seg0 seg1 seg2 seg3 -o whole
  pgtrial merge pgtrial-runs/*-seg* -o merged --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(o, info, args, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVarP(&o.out, "out", "o", "", "the merged run directory to write (required; it must not hold a run)")
	f.BoolVar(&o.allowPartial, "allow-partial", false, "merge interrupted or aborted segments too (run.json then warns that the result is not the whole load)")
	f.BoolVar(&o.json, "json", false, "print the summary as JSON on stdout")
	return cmd
}

func runMerge(o *mergeOptions, info BuildInfo, dirs []string, stdout io.Writer) error {
	if o.out == "" {
		return &exitError{code: exitBadInput, err: errors.New("merge: give the merged run directory with -o OUT")}
	}
	run, err := merge.Merge(merge.Config{Dirs: dirs, Out: o.out, AllowPartial: o.allowPartial, Tool: info.tool(), CommandLine: os.Args})
	if err != nil {
		var re *merge.RefusalError
		if errors.As(err, &re) {
			return &exitError{code: exitBadInput, err: err}
		}
		return &exitError{code: exitRunFail, err: err}
	}
	if o.json {
		return printJSON(stdout, jsonRunSummary, jsonSummary{Schema: jsonSchemaID(jsonRunSummary), Summary: *run.Summary, Evidence: run.Evidence, Checks: run.Checks, RunDir: o.out})
	}
	m := run.Model
	model := fmt.Sprintf("closed model, %d clients on %d threads", m.Clients, m.Threads)
	if m.Kind == "open" {
		model = fmt.Sprintf("open model at %g tx/s (%s arrivals), %d clients on %d threads", m.Rate, m.Arrival, m.Clients, m.Threads)
	}
	ids := make([]string, len(run.Merge.Segments))
	for i, s := range run.Merge.Segments {
		ids[i] = s.RunID
	}
	v := &report.RunView{
		Workload: fmt.Sprintf("%s, merged from %d segments (%s; starts %.1f ms apart)", run.Workload.Name, len(ids), strings.Join(ids, ", "), run.Merge.StartSpreadMs),
		Model:    model,
		Closed:   m.Kind != "open",
		Summary:  run.Summary,
		Run:      run,
		Dir:      o.out,
		Measured: true,
	}
	for _, s := range run.Workload.Scripts {
		v.Scripts = append(v.Scripts, report.RunScript{Name: s.Name, Weight: s.Weight})
	}
	return report.WriteText(stdout, report.Run(v))
}
