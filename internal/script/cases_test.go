package script

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
)

// tapCase is a record of the pgbench TAP cases (see
// /work/shared/reference/pgbench-cases/README.md).
type tapCase struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Files []struct {
		Name    string `json:"name"`
		Content string `json:"content"`
	} `json:"files"`
	Options        []string `json:"options"`
	ExitStatus     int      `json:"expect_exit_status"`
	StderrRegexps  []string `json:"expect_stderr_regexps"`
	ObservedDebug  []string `json:"observed_pg15_debug_lines"`
	NeedsPCRE      bool     `json:"regexps_need_pcre"`
	NeedsServerSQL bool     `json:"-"`
}

// loadCases reads the shared cases file (PGTRIAL_PGBENCH_CASES, or the
// repository's reference directory), falling back to the subset copied into
// testdata so that the tests never skip.
func loadCases(t *testing.T) []tapCase {
	t.Helper()
	path := os.Getenv("PGTRIAL_PGBENCH_CASES")
	if path == "" {
		path = filepath.Join("..", "..", "..", "shared", "reference", "pgbench-cases", "cases.json")
	}
	if data, err := os.ReadFile(path); err == nil {
		var cases []tapCase
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return cases
	}
	data, err := os.ReadFile(filepath.Join("testdata", "pgbench_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sub struct {
		Cases []tapCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &sub); err != nil {
		t.Fatal(err)
	}
	return sub.Cases
}

// runScript runs one transaction of a single script the way pgbench does
// without a server: options --random-seed, -D, -M and --debug are honoured,
// 1 client, 1 thread, scale 1; SQL commands are not executed (none of the
// scripts used here read SQL results in later meta-commands), \setshell and
// \shell run through sh -c. It returns what pgbench prints on stderr for
// parse, static-check and meta-command errors, the debug() lines and, with
// --debug, the "client 0 sending" lines, in order; and the exit status.
func runScript(name, content string, options []string) (stderr string, debug []string, exit int) {
	var seed uint64
	var defs [][2]string
	mode := Simple
	trace := false
	for k := 0; k < len(options); k++ {
		o := options[k]
		if (o == "-M" || o == "-D") && k+1 < len(options) {
			k++
			o += options[k]
		}
		switch {
		case strings.HasPrefix(o, "--random-seed="):
			s, err := prng.ParseSeed(strings.TrimPrefix(o, "--random-seed="))
			if err != nil {
				return "pgbench: error: " + err.Error() + "\n", nil, 1
			}
			seed = s.Value
		case strings.HasPrefix(o, "-D"):
			kv := strings.SplitN(strings.TrimPrefix(o, "-D"), "=", 2)
			defs = append(defs, [2]string{kv[0], kv[1]})
		case strings.HasPrefix(o, "-M"):
			m, ok := ParseMode(strings.TrimPrefix(o, "-M"))
			if !ok {
				panic(o)
			}
			mode = m
		case o == "--debug":
			trace = true
		}
	}
	var out strings.Builder
	s, err := Parse(name, content)
	if err == nil {
		err = s.CheckEmpty()
	}
	if err == nil {
		err = s.CheckConditionals()
	}
	if err == nil {
		_, err = s.Prepare(mode, 0)
	}
	if err != nil {
		if pe, ok := err.(*ParseError); ok {
			return "pgbench: error: " + pe.Pgbench() + "\n", nil, 1 // pgbench's bytes
		}
		return "pgbench: error: " + err.Error() + "\n", nil, 1
	}
	prog := NewProgram(s)
	defaultSeedGiven := false
	for _, d := range defs {
		defaultSeedGiven = defaultSeedGiven || d[0] == "default_seed"
	}
	st := prng.Derive(seed, 1, 1, defaultSeedGiven)
	c := prog.NewClient(0, st.Clients[0], &out)
	for _, d := range defs {
		if err := c.SetString("option", d[0], d[1]); err != nil {
			return "pgbench: error: " + err.Error() + "\n", nil, 1
		}
	}
	for _, auto := range []struct {
		name string
		v    int64
	}{{"scale", 1}, {"client_id", 0}, {"default_seed", st.DefaultSeed}, {"random_seed", st.RandomSeed}} {
		if !c.Defined(auto.name) {
			if err := c.SetInt("startup", auto.name, auto.v); err != nil {
				panic(err)
			}
		}
	}
	c.Begin(0)
	cmds := s.Commands
	for i := 0; i < len(cmds); i = c.Next(i) {
		cmd := cmds[i]
		var err error
		switch {
		case cmd.Kind == SQLCommand:
			if trace {
				switch mode {
				case Simple:
					fmt.Fprintf(&out, "pgbench: client 0 sending %s\n", c.AppendSQL(nil, i))
				case Extended:
					fmt.Fprintf(&out, "pgbench: client 0 sending %s\n", cmd.Query.SQL)
				case Prepared:
					fmt.Fprintf(&out, "pgbench: client 0 sending %s\n", cmd.Query.Name)
				}
			}
		case cmd.Meta == MetaSleep:
			_, err = c.SleepMicros(i)
		case cmd.Meta == MetaShell || cmd.Meta == MetaSetShell:
			var line string
			line, err = c.ShellCommand(i)
			if err == nil {
				outp, runErr := exec.Command("sh", "-c", line).Output()
				if cmd.Meta == MetaShell && runErr != nil {
					err = &ExecError{Msg: cmd.Args[1] + ": could not launch shell command", Cmd: "shell", Reason: reasonExec}
				} else if cmd.Meta == MetaSetShell {
					err = c.StoreShellResult(i, outp)
				}
			}
		default:
			err = c.Exec(i)
		}
		if err != nil {
			var ee *ExecError
			if !errors.As(err, &ee) {
				panic(err)
			}
			if ee.Msg != "" {
				fmt.Fprintf(&out, "pgbench: error: %s\n", ee.Msg)
			}
			fmt.Fprintf(&out, "pgbench: error: %s\n", ee.AbortLine(0, i, 0))
			exit = 2
			break
		}
	}
	var debugLines []string
	for _, l := range splitLines(out.String()) {
		if strings.HasPrefix(l, "debug(") {
			debugLines = append(debugLines, l)
		}
	}
	return out.String(), debugLines, exit
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// TestCaseExpressions is case 001-020: pgbench's expression test script run
// with --random-seed=5432 and its -D options must produce exactly the
// debug() lines pgbench 15.18 printed.
func TestCaseExpressions(t *testing.T) {
	var tc *tapCase
	for _, c := range loadCases(t) {
		if c.ID == "001-020" {
			tc = &c
			break
		}
	}
	if tc == nil {
		t.Fatal("case 001-020 not found")
	}
	stderr, lines, exit := runScript(tc.Files[0].Name, tc.Files[0].Content, tc.Options)
	if exit != 0 {
		t.Fatalf("exit %d: %s", exit, stderr)
	}
	want := tc.ObservedDebug
	if len(lines) != len(want) {
		t.Errorf("got %d debug lines, want %d", len(lines), len(want))
	}
	for i := 0; i < len(lines) || i < len(want); i++ {
		var g, w string
		if i < len(lines) {
			g = lines[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d: got %q, want %q", i+1, g, w)
		}
	}
	// The case's own regexps (matched against the debug output).
	all := strings.Join(lines, "\n")
	for _, re := range tc.StderrRegexps {
		if strings.HasPrefix(re, "setting random seed") {
			continue // printed by the front end
		}
		if !regexp.MustCompile(re).MatchString(all) {
			t.Errorf("stderr regexp %q does not match", re)
		}
	}
}

// TestCaseScriptErrors runs the TAP cases whose scripts fail in pgbench's
// script handling (syntax errors, static checks, meta-command errors) and
// checks the exit status and pgbench's stderr regexps. Cases that need a
// server for the failure (SQL errors, \gset results) are skipped.
func TestCaseScriptErrors(t *testing.T) {
	serverOnly := regexp.MustCompile(`(?i)expected one row|error storing|gset no SQL|ERROR:|prepared statement|pipeline`)
	n := 0
	for _, tc := range loadCases(t) {
		if len(tc.Files) != 1 || tc.ExitStatus == 0 || tc.NeedsPCRE {
			continue
		}
		if !strings.HasPrefix(tc.ID, "002") && !strings.HasPrefix(tc.Name, "pgbench script error") {
			continue
		}
		if serverOnly.MatchString(strings.Join(tc.StderrRegexps, " ")) && tc.ExitStatus == 2 {
			continue
		}
		if strings.Contains(tc.Files[0].Content, "SELECT") || strings.Contains(tc.Files[0].Content, "DROP") {
			if tc.ExitStatus == 2 {
				continue
			}
		}
		tc := tc
		n++
		t.Run(tc.ID+" "+tc.Name, func(t *testing.T) {
			stderr, _, exit := runScript(tc.Files[0].Name, tc.Files[0].Content, tc.Options)
			if exit != tc.ExitStatus {
				t.Errorf("exit %d, want %d; stderr:\n%s", exit, tc.ExitStatus, stderr)
			}
			for _, re := range tc.StderrRegexps {
				if !regexp.MustCompile(re).MatchString(stderr) {
					t.Errorf("stderr regexp %q does not match:\n%s", re, stderr)
				}
			}
		})
	}
	if n < 30 {
		t.Errorf("only %d cases run", n)
	}
}
