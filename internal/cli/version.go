package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/spf13/cobra"
)

func newVersionCommand(info BuildInfo) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print pgtrial's version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			version, commit := info.Version, info.Commit
			if commit == "" {
				commit = vcsRevision()
			}
			if commit == "" {
				commit = "unknown"
			}
			if asJSON {
				t := info.tool()
				t.Commit = commit
				return printJSON(cmd.OutOrStdout(), jsonVersion, versionJSON{Schema: jsonSchemaID(jsonVersion), Tool: t, OS: runtime.GOOS, Arch: runtime.GOARCH})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "pgtrial %s (commit %s, %s %s/%s)\n",
				version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the version as JSON on stdout (run.json's \"tool\", with os and arch)")
	return cmd
}

// versionJSON is version --json: run.json's "tool" and the platform.
type versionJSON struct {
	Schema string `json:"schema"` // jsonSchemaID(jsonVersion)
	results.Tool
	OS   string `json:"os"`
	Arch string `json:"arch"`
}

// vcsRevision reads the commit that `go build` stamped into the binary, if any.
func vcsRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// tool is run.json's and experiment.json's "tool": this binary's version,
// its commit (the stamped one, else the one go build recorded) and Go.
func (info BuildInfo) tool() results.Tool {
	commit := info.Commit
	if commit == "" {
		commit = vcsRevision()
	}
	return results.Tool{Name: "pgtrial", Version: info.Version, Commit: commit, Go: runtime.Version()}
}
