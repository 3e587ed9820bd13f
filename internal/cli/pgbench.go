package cli

import "github.com/spf13/cobra"

// newPgbenchCommand: placeholder, replaced by the pgbench front end.
func newPgbenchCommand(info BuildInfo) *cobra.Command {
	return &cobra.Command{
		Use:                "pgbench [pgbench options]",
		Short:              "pgbench-compatible front end (same options, scripts, output)",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && (args[0] == "--help" || args[0] == "-?") {
				cmd.Print("Usage:\n  pgbench [OPTION]... [DBNAME]\n")
				return nil
			}
			return silentExit(1)
		},
	}
}
