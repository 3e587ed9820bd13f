package cli

import "github.com/spf13/cobra"

// newLocalCommand: placeholder, replaced by the localpg work.
func newLocalCommand() *cobra.Command {
	return &cobra.Command{Use: "local", Short: "Manage a throwaway local PostgreSQL cluster"}
}
