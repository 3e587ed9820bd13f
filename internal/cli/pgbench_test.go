package cli

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/pgbenchfmt"
)

// The pgbench command prints pgbench's own text and nothing of cobra's or pgtrial's.
func TestPgbenchCommand(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		code        int
		stdout      string
		stderr      string
		stderrStart string
	}{
		{name: "help", args: []string{"--help"}, stdout: pgbenchfmt.Usage()},
		{name: "help -?", args: []string{"-?"}, stdout: pgbenchfmt.Usage()},
		{name: "version", args: []string{"-V"}, stdout: "pgbench (PostgreSQL) 18.0 (pgtrial 1.2.3)\n"},
		{name: "builtin list", args: []string{"-b", "list"},
			stderr: "Available builtin scripts:\n      tpcb-like: <builtin: TPC-B (sort of)>\n  simple-update: <builtin: simple update>\n    select-only: <builtin: select only>\n\n"},
		{name: "show script", args: []string{"--show-script=se"},
			stderr: "-- select-only: <builtin: select only>\n\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n\n"},
		{name: "bad value", args: []string{"-c", "three"}, code: 1,
			stderr: "pgbench: error: invalid value \"three\" for option -c/--client\n"},
		{name: "-h is the host, not help", args: []string{"-h", "localhost", "-p", "5432", "--bad"}, code: 1,
			stderr: "pgbench: unrecognized option '--bad'\npgbench: hint: Try \"pgbench --help\" for more information.\n"},
		{name: "help only first", args: []string{"-n", "--help"}, code: 1,
			stderr: "pgbench: unrecognized option '--help'\npgbench: hint: Try \"pgbench --help\" for more information.\n"},
		{name: "too many arguments", args: []string{"a", "b"}, code: 1,
			stderr: "pgbench: error: too many command-line arguments (first is \"b\")\npgbench: hint: Try \"pgbench --help\" for more information.\n"},
		{name: "valid run", args: []string{"-S", "-c", "2", "-t", "5", "db"}, code: 1,
			stderrStart: "pgbench: error: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"pgbench"}, tt.args...)...)
			if code != tt.code || out != tt.stdout {
				t.Errorf("exit %d (want %d), stdout %q (want %q), stderr %q", code, tt.code, out, tt.stdout, errOut)
			}
			switch {
			case tt.stderrStart != "":
				if !strings.HasPrefix(errOut, tt.stderrStart) || strings.Count(errOut, "\n") != 1 {
					t.Errorf("stderr %q, want one line starting with %q", errOut, tt.stderrStart)
				}
			case errOut != tt.stderr:
				t.Errorf("stderr %q, want %q", errOut, tt.stderr)
			}
			if strings.Contains(errOut, "pgtrial: ") {
				t.Errorf("pgtrial's own error prefix leaked: %q", errOut)
			}
		})
	}
}
