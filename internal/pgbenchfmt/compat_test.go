package pgbenchfmt

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestAgainstPgbench runs command lines that pgbench rejects before connecting through
// the real pgbench and through Parse, and requires the same stderr, stdout and exit
// status. The installed pgbench may be older than 18; the lines avoid what changed
// since 15 (-d, --exit-on-abort, --continue-on-error), and two known differences are
// normalized: glibc names the program by its path, and 15.x before mid-2026 says
// "-c/--clients". pgtrial's one addition, the detail line that locates a condition
// error, is removed from its output before comparing.
func TestAgainstPgbench(t *testing.T) {
	pgbench := findPgbench()
	if pgbench == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("pgbench not found (CI=true)")
		}
		t.Skip("pgbench not installed")
	}
	dir := t.TempDir()
	for name, content := range map[string]string{
		"empty.sql":   "",
		"comment.sql": "-- only a comment\n\n",
		"ok.sql":      "select 1;\n",
		"ok@2.sql":    "select 2;\n",
		"params.sql":  "select " + strings.Repeat(":a, ", 255) + ":a;\n",
		"params2.sql": "select " + strings.Repeat(":a, ", 254) + ":a;\n",
		"endif.sql":   "\\if 1\nselect 1;\n",
		"syntax.sql":  "\\set i 1 +\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := func(name string) string { return filepath.Join(dir, name) }
	many := make([]string, 0, 129)
	for range 129 {
		many = append(many, "-S")
	}
	type tc struct {
		args []string
		env  map[string]string
	}
	cases := []tc{
		{args: []string{"-h", "home", "-p", "5432", "-U", "calvin", "---debug", "--bad-option"}},
		{args: []string{"--bad=3"}}, {args: []string{"-x"}}, {args: []string{"-nSx"}}, {args: []string{"-:"}},
		{args: []string{"-?x"}}, {args: []string{"-c"}}, {args: []string{"-nc"}}, {args: []string{"--client"}},
		{args: []string{"--cli"}}, {args: []string{"--connect=3"}}, {args: []string{"--pro", "1"}},
		{args: []string{"--pro=1"}}, {args: []string{"--s"}}, {args: []string{"--cli", "3", "-t"}},
		{args: []string{"-S", "-V"}}, {args: []string{"-S", "--help"}}, {args: []string{"-S", "--version"}},
		{args: []string{"-c", ""}}, {args: []string{"-c", "0x10"}}, {args: []string{"-c", "99999999999"}},
		{args: []string{"-c", " 7x"}}, {args: []string{"-c4x"}}, {args: []string{"-t", "-5"}}, {args: []string{"-T", "0"}},
		{args: []string{"-j", "eleven"}}, {args: []string{"-i", "-s", "two"}}, {args: []string{"-s", "0"}},
		{args: []string{"-P", "0"}}, {args: []string{"-F", "1"}}, {args: []string{"-i", "-F", "101"}},
		{args: []string{"--aggregate-interval=-3"}}, {args: []string{"-i", "--partitions", "-1"}},
		{args: []string{"-M", "Simple"}}, {args: []string{"--protocol=no-such-mode"}},
		{args: []string{"-R", "0"}}, {args: []string{"-R", "-5"}}, {args: []string{"--rate=abc"}},
		{args: []string{"-L", "abc"}}, {args: []string{"--latency-limit=0.0"}},
		{args: []string{"--sampling-rate=2"}}, {args: []string{"--sampling-rate=0"}},
		{args: []string{"--max-tries=abc"}}, {args: []string{"--max-tries", "-10"}}, {args: []string{"--max-tries", "0"}},
		{args: []string{"--max-tries=99999999999999999999"}}, {args: []string{"--max-tries=2147483648"}},
		{args: []string{"-Dfoo"}}, {args: []string{"-D=x"}}, {args: []string{"-D1a=x"}}, {args: []string{"-Dx="}},
		{args: []string{"-Da-b=1"}}, {args: []string{"-Da=1", "-D2=x"}},
		{args: []string{"-b", "s"}}, {args: []string{"-b", "zzz"}}, {args: []string{"-b", "list@1"}}, {args: []string{"-b", "@1"}},
		{args: []string{"--show-script=s"}}, {args: []string{"--show-script=zz"}}, {args: []string{"--show-script", "t"}},
		{args: []string{"--show-script=si"}}, {args: []string{"--show-script=se"}}, {args: []string{"-b", "list"}},
		{args: []string{"-n", "-b", "list", "-c", "x"}},
		{args: []string{"-I", ""}}, {args: []string{"-i", "-I", "dtx"}}, {args: []string{"-I", "dtg"}},
		{args: []string{"-i", "--partition-method=RANGE"}}, {args: []string{"-i", "--partition-method=foo"}},
		{args: []string{"-b", "select-only@99999999999"}}, {args: []string{"-b", "select-only@ 5x"}},
		{args: []string{"-b", "se@-0"}}, {args: []string{"-b", "se@"}}, {args: []string{"--builtin=select-only@one"}},
		{args: []string{"-b", "se@0", "-b", "si@0", "-b", "tpcb@0"}},
		{args: []string{"-i", "-c", "3"}}, {args: []string{"-i", "-S"}}, {args: []string{"-S", "-F", "90"}},
		{args: []string{"-i", "--unlogged-tables", "-T", "5"}}, {args: []string{"-q"}},
		{args: []string{"a", "b", "c"}}, {args: []string{"db", "--", "-S"}}, {args: []string{"--", "-x", "y"}},
		{args: []string{"a", "b", "-c", "x"}}, {args: []string{"-i", "-S", "a", "b"}},
		{args: []string{"-f", f("nonexistent@2")}}, {args: []string{"-f", f("nonexistent") + "@2"}},
		{args: []string{"-f", dir}}, {args: []string{"-f", f("empty.sql")}}, {args: []string{"-f", f("comment.sql") + "@3"}},
		{args: []string{"-f", "-"}}, {args: []string{"-f", f("ok.sql") + "@x"}}, {args: []string{"-f", f("ok@2.sql"), "-c", "x"}},
		{args: many},
		{args: []string{"-f", f("params.sql"), "-M", "extended"}}, {args: []string{"-M", "prepared", "-f", f("params.sql")}},
		{args: []string{"-i", "-M", "prepared", "-f", f("params.sql")}}, {args: []string{"-f", f("params.sql"), "-b", "se@0", "-M", "extended"}},
		{args: []string{"-f", f("params2.sql"), "-M", "extended", "-c", "x"}}, {args: []string{"-f", f("params.sql"), "-c", "x"}},
		{args: []string{"-f", f("endif.sql")}}, {args: []string{"-f", f("syntax.sql"), "-c", "x"}},
		{args: []string{"-c", "x", "-f", f("syntax.sql")}}, {args: []string{"-f", f("empty.sql"), "-f", f("syntax.sql")}},
		{args: []string{"--random-seed=12x"}}, {args: []string{"--random-seed= 12", "-c", "x"}}, {args: []string{"--random-seed=12 "}},
		{args: []string{"--random-seed=5", "-c", "x"}}, {args: []string{"--random-seed=-1", "-c", "x"}},
		{args: []string{"--random-seed=99999999999999999999999", "-c", "x"}},
		{args: []string{"-c", "x"}, env: map[string]string{"PGBENCH_RANDOM_SEED": ""}},
		{args: []string{"-c", "x"}, env: map[string]string{"PGBENCH_RANDOM_SEED": "bad"}},
		{args: []string{"--random-seed", "6", "-c", "x"}, env: map[string]string{"PGBENCH_RANDOM_SEED": "5"}},
		{args: []string{"db", "-c", "x"}, env: map[string]string{"POSIXLY_CORRECT": "1"}},
		{args: []string{"-N", "-l", "--aggregate-interval=5", "--log-prefix=notused", "-t", "1000", "-T", "1"}},
		{args: []string{"-P", "1", "--progress-timestamp", "-l", "--sampling-rate=0.001", "-T", "10", "-t", "1000"}},
		{args: []string{"-T", "10", "--aggregate-interval=3", "-l"}}, {args: []string{"-T", "10", "--aggregate-interval=20", "-l"}},
		{args: []string{"--progress-timestamp"}}, {args: []string{"--log-prefix=x"}}, {args: []string{"--aggregate-interval=3"}},
		{args: []string{"--sampling-rate=0.5", "-l", "--aggregate-interval=1"}}, {args: []string{"--sampling-rate=0.01"}},
		{args: []string{"-F", "50", "-t", "1", "-T", "1"}},
		{args: []string{"-c", "2147483647"}}, {args: []string{"-c", "4", "-j", "x"}},
	}
	normalize := regexp.MustCompile(`(?m)^\S*pgbench: `)
	located := regexp.MustCompile(`(?m)^pgbench: detail: the (command|unclosed \\if) is at \S+:\d+:\d+\n`)
	for _, c := range cases {
		env := []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
		for k, v := range c.env {
			env = append(env, k+"="+v)
		}
		cmd := exec.Command(pgbench, c.args...)
		cmd.Env = env
		cmd.Stdin = strings.NewReader("")
		var wantOut, wantErr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &wantOut, &wantErr
		wantCode := 0
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("pgbench %q: %v", c.args, err)
			}
			wantCode = ee.ExitCode()
		}
		want := normalize.ReplaceAllString(wantErr.String(), "pgbench: ")
		want = strings.ReplaceAll(want, "-c/--clients", "-c/--client")

		var out, errb bytes.Buffer
		_, perr := Parse(c.args, System{
			Stdin:  strings.NewReader(""),
			Stdout: &out,
			Stderr: &errb,
			LookupEnv: func(k string) (string, bool) {
				v, ok := c.env[k]
				return v, ok
			},
		})
		got := located.ReplaceAllString(errb.String(), "")
		code := ExitCode(perr)
		if perr == nil {
			code = -1 // accepted: pgbench went on to connect
		}
		if code != wantCode || got != want || out.String() != wantOut.String() {
			t.Errorf("pgbench %q (env %v):\n exit %d, want %d\n stderr:\n%s want:\n%s stdout %q, want %q",
				c.args, c.env, code, wantCode, got, want, out.String(), wantOut.String())
		}
	}
}

// findPgbench returns the pgbench binary to compare with: the one in PGTRIAL_PG_BIN,
// else the newest under /usr/lib/postgresql (Debian's /usr/bin/pgbench is a Perl
// wrapper that costs 30 ms a call), else the one in PATH; "" if none.
func findPgbench() string {
	if dir := os.Getenv("PGTRIAL_PG_BIN"); dir != "" {
		if p := filepath.Join(dir, "pgbench"); isExecutable(p) {
			return p
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	best, bestMajor := "", -1
	for _, m := range matches {
		major, err := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(m))))
		if err == nil && major > bestMajor && isExecutable(m) {
			best, bestMajor = m, major
		}
	}
	if best != "" {
		return best
	}
	p, _ := exec.LookPath("pgbench")
	return p
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
