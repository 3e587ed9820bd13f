package cli

import "github.com/spf13/cobra"

// newInitCommand: placeholder, replaced by the loader work.
func newInitCommand() *cobra.Command {
	return &cobra.Command{Use: "init", Short: "Create and load the pgbench schema"}
}
