package cli

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, BuildInfo{Version: "1.2.3", Commit: "abc123"}, &out, &errb)
	return code, out.String(), errb.String()
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"1.2.3", "abc123", runtime.Version()} {
		if !strings.Contains(out, want) {
			t.Errorf("version output %q lacks %q", out, want)
		}
	}
}

func TestHelpListsCommands(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}} {
		code, out, _ := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		for _, cmd := range []string{"version", "local", "init"} {
			if !strings.Contains(out, "  "+cmd+" ") {
				t.Errorf("%v: help does not list %q:\n%s", args, cmd, out)
			}
		}
	}
}

// Every command's --help exits 0 and shows its own usage line.
func TestEveryCommandHasHelp(t *testing.T) {
	root := newRootCommand(BuildInfo{})
	for _, c := range root.Commands() {
		paths := [][]string{{c.Name()}}
		for _, sub := range c.Commands() {
			paths = append(paths, []string{c.Name(), sub.Name()})
		}
		for _, p := range paths {
			code, out, errOut := runCLI(t, append(p, "--help")...)
			if code != 0 {
				t.Errorf("%v --help: exit %d: %s", p, code, errOut)
				continue
			}
			want := "pgtrial " + strings.Join(p, " ")
			if p[0] == "pgbench" { // pgbench's own help text, word for word
				want = "Usage:\n  pgbench [OPTION]... [DBNAME]"
			}
			if !strings.Contains(out, want) {
				t.Errorf("%v --help: usage does not name the command:\n%s", p, out)
			}
		}
	}
}

func TestUnknownCommandIsBadInput(t *testing.T) {
	code, _, errOut := runCLI(t, "no-such-command")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(errOut, "unknown command") {
		t.Errorf("stderr %q", errOut)
	}
}
