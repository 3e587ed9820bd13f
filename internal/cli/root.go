// Package cli builds pgtrial's command tree: one file per command. Each command parses
// its flags into a config struct and calls the package that does the work.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// BuildInfo identifies the binary; main fills it from -ldflags.
type BuildInfo struct {
	Version string
	Commit  string
}

// Exit codes (DESIGN.md §9, pgbench's meaning).
const (
	exitOK       = 0
	exitBadInput = 1
	exitRunFail  = 2
	// The CI gate (compare --fail-on, an experiment's gate:): a rule's
	// threshold crossed by a real change, or a rule the runs cannot decide.
	exitGateFail         = 3
	exitGateInconclusive = 4
)

// exitError carries an exit code other than 1 through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// silentExit ends the process with its code after the command has printed its own
// messages (the pgbench front end prints pgbench's exact lines itself).
type silentExit int

func (e silentExit) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// Main runs the command line args and returns the process exit code.
func Main(args []string, info BuildInfo) int {
	return run(args, info, os.Stdout, os.Stderr)
}

func run(args []string, info BuildInfo, stdout, stderr io.Writer) int {
	root := newRootCommand(info)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var silent silentExit
	if errors.As(err, &silent) {
		return int(silent)
	}
	fmt.Fprintf(stderr, "pgtrial: error: %v\n", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitBadInput
}

func newRootCommand(info BuildInfo) *cobra.Command {
	root := &cobra.Command{
		Use:   "pgtrial",
		Short: "Load testing and performance analysis for PostgreSQL",
		Long: `pgtrial runs honest PostgreSQL benchmarks: pgbench's script language and numbers,
open-model load with latency from the intended start, server and OS evidence on one
clock, and experiments with repeats and statistical verdicts.

By default it works against a throwaway local cluster ("pgtrial local start").`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newVersionCommand(info),
		newLocalCommand(),
		newInitCommand(),
		newCheckCommand(),
		newAgeCommand(),
		newPgbenchCommand(info),
		newRunCommand(info),
		newCompareCommand(),
		newReportCommand(),
		newExperimentCommand(info),
		newDemoCommand(info),
		newCapacityCommand(info),
		newAdviseCommand(),
		newShapeCommand(),
		newMaskCommand(),
		newCaptureCommand(),
		newRunsCommand(),
		newAnalyzeCommand(info),
		newMergeCommand(info),
		newK8sCommand(info),
	)
	completions(root)
	return root
}
