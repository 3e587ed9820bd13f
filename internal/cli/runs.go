package cli

import (
	"github.com/pgtrial/pgtrial/internal/report"
	"github.com/pgtrial/pgtrial/internal/runlist"
	"github.com/spf13/cobra"
)

type runsOptions struct {
	depth int
	json  bool
}

func newRunsCommand() *cobra.Command {
	var o runsOptions
	cmd := &cobra.Command{
		Use:   "runs [DIR]",
		Short: "List the run and experiment directories under a folder: date, workload, model, tps, p99, verdicts",
		Long: `runs lists every run directory (run.json) and experiment directory (experiment.json)
under DIR (default the current directory), oldest first: when it started (UTC), its
workload and load model, tps and response p99 (an experiment's: the median over the runs of
its first variant), and an experiment's verdicts (each variant against the first on the
primary metric, with the ratio B/A and its interval) or a run's checklist counts. An
experiment's own runs are counted in its row, not listed apart. Directories whose files
cannot be read are listed under the table with the reason. --json prints the same entries
as a JSON array (field names as in run.json).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := "."
			if len(args) == 1 {
				root = args[0]
			}
			entries, err := runlist.Scan(root, o.depth)
			if err != nil {
				if entries == nil {
					return err
				}
				// The scan stopped at its limit: print what it found, then fail.
				defer cmd.PrintErrln("pgtrial: warning: " + err.Error())
			}
			if entries == nil {
				entries = []runlist.Entry{}
			}
			if o.json {
				return printJSON(cmd.OutOrStdout(), jsonRuns, jsonRunsList{Schema: jsonSchemaID(jsonRuns), Root: root, Entries: entries})
			}
			return report.WriteText(cmd.OutOrStdout(), report.Runs(root, entries))
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.depth, "depth", runlist.DefaultDepth, "how many levels below DIR to look")
	f.BoolVar(&o.json, "json", false, "print the entries as a JSON array on stdout")
	return cmd
}
