package pgbenchfmt

import (
	"strings"
	"testing"
)

// TestExtensionsRefused: pgtrial's extensions to the script language
// (\while, \endwhile, \think, \tally) are unknown to pgbench, and the
// front end says so exactly as pgbench does of any unknown meta-command.
func TestExtensionsRefused(t *testing.T) {
	for _, line := range []string{`\while :ol <= 10`, `\endwhile`, `\think 18 s`, `\tally key :k`} {
		word := strings.Fields(line)[0][1:]
		files := map[string]string{"x.sql": "SELECT 1;\n" + line + "\n", "u.sql": "SELECT 1;\n" + strings.Replace(line, word, "nosuch", 1) + "\n"}
		_, code, _, errOut := parseArgs(t, fakeSys{files: files}, "-f", "x.sql")
		want := "pgbench: error: x.sql:2: invalid command in command \"" + word + "\"\n" + line + "\npgbench: detail: the command is at x.sql:2:1\n"
		if code != 1 || errOut != want {
			t.Errorf("%s: exit %d, stderr\n%s\nwant\n%s", line, code, errOut, want)
		}
		_, _, _, unknown := parseArgs(t, fakeSys{files: files}, "-f", "u.sql")
		if strings.ReplaceAll(strings.ReplaceAll(unknown, "nosuch", word), "u.sql", "x.sql") != errOut {
			t.Errorf("%s: unlike an unknown command:\n%s\n%s", line, errOut, unknown)
		}
	}
}
