package pgbenchfmt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
)

// System is what parsing needs from outside the argument list. The zero value of a
// field means the real thing (os.Stdin, os.LookupEnv, …).
type System struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	LookupEnv      func(string) (string, bool)
	ReadFile       func(string) ([]byte, error)
	// NoFileLimit returns the hard RLIMIT_NOFILE (pgbench checks it for -c).
	NoFileLimit func() (uint64, error)
	// UserName is the OS user name, the last resort for the database name.
	UserName func() (string, error)
	// ToolVersion is pgtrial's version, shown by --version.
	ToolVersion string
}

func (s System) withDefaults() System {
	if s.Stdin == nil {
		s.Stdin = os.Stdin
	}
	if s.Stdout == nil {
		s.Stdout = os.Stdout
	}
	if s.Stderr == nil {
		s.Stderr = os.Stderr
	}
	if s.LookupEnv == nil {
		s.LookupEnv = os.LookupEnv
	}
	if s.ReadFile == nil {
		s.ReadFile = os.ReadFile
	}
	if s.NoFileLimit == nil {
		s.NoFileLimit = noFileLimit
	}
	if s.UserName == nil {
		s.UserName = func() (string, error) {
			u, err := user.Current()
			if err != nil {
				return "", err
			}
			return u.Username, nil
		}
	}
	return s
}

// Exit means the command line was handled completely (help, version, -b list,
// --show-script) or rejected: the messages are printed and the process should exit
// with Code.
type Exit struct{ Code int }

func (e *Exit) Error() string { return fmt.Sprintf("pgbench: exit status %d", e.Code) }

// ExitCode returns the code of an *Exit error, or 1 for any other non-nil error.
func ExitCode(err error) int {
	var e *Exit
	if errors.As(err, &e) {
		return e.Code
	}
	if err != nil {
		return 1
	}
	return 0
}

// logger prints pgbench's log lines ("pgbench: error: …").
type logger struct{ w io.Writer }

func (l logger) line(label, format string, args ...any) {
	msg := strings.TrimSuffix(fmt.Sprintf(format, args...), "\n") // as pg_log_generic
	fmt.Fprintf(l.w, "pgbench: %s%s\n", label, msg)
}
func (l logger) Error(format string, args ...any)  { l.line("error: ", format, args...) }
func (l logger) Detail(format string, args ...any) { l.line("detail: ", format, args...) }
func (l logger) Hint(format string, args ...any)   { l.line("hint: ", format, args...) }
func (l logger) Info(format string, args ...any)   { l.line("", format, args...) }

// fatal logs an error and returns the exit-1 result (pgbench's pg_fatal).
func (l logger) fatal(format string, args ...any) error {
	l.Error(format, args...)
	return &Exit{Code: 1}
}
