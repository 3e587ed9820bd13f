package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The completion scripts are generated for each shell, bash's loads into a
// real bash and registers pgtrial, and the value completions name what the
// flags accept.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, errOut := runCLI(t, "completion", sh)
		if code != 0 || !strings.Contains(out, "pgtrial") || len(out) < 1000 {
			t.Fatalf("completion %s: exit %d, %d bytes: %s", sh, code, len(out), errOut)
		}
		if sh == "bash" {
			if _, err := exec.LookPath("bash"); err != nil {
				t.Log("no bash to load the script into")
				continue
			}
			f := filepath.Join(t.TempDir(), "pgtrial.bash")
			if err := os.WriteFile(f, []byte(out), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := exec.Command("bash", "-c", "source "+f+" && complete -p pgtrial").CombinedOutput()
			if err != nil || !strings.Contains(string(got), "__start_pgtrial") {
				t.Errorf("bash does not register the completion: %v: %s", err, got)
			}
		}
	}
	cases := []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"run", "-b", ""}, []string{"tpcb-like", "select-only", "tpcc", "ycsb-a"}, nil},
		{[]string{"run", "--collect", ""}, []string{"waits", "statements", "server", "os"}, nil},
		{[]string{"advise", "--workload", ""}, []string{"oltp", "dw"}, []string{"tpcb-like"}},
		{[]string{"init", "-w", ""}, []string{"pgbench", "tpcc", "ycsb"}, nil},
		{[]string{"compare", ""}, []string{":16"}, nil}, // ShellCompDirectiveFilterDirs
		{[]string{"experiment", ""}, []string{"yaml", ":8"}, nil},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, append([]string{"__complete"}, c.args...)...)
		if code != 0 {
			t.Errorf("__complete %v: exit %d: %s", c.args, code, errOut)
			continue
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		for _, w := range c.want {
			if !slices.Contains(lines, w) {
				t.Errorf("__complete %v: %q not among %q", c.args, w, lines)
			}
		}
		for _, w := range c.not {
			if slices.Contains(lines, w) {
				t.Errorf("__complete %v: %q should not be offered", c.args, w)
			}
		}
	}
}
