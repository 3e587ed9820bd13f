package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/age"
	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestParseShare(t *testing.T) {
	for in, want := range map[string]float64{"1/3": 1.0 / 3, "0.5": 0.5, "1": 1, " 2 / 8 ": 0.25} {
		if got, err := parseShare(in); err != nil || got != want {
			t.Errorf("parseShare(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "1/0", "4/3", "-0.1", "a/3", "nan"} {
		if _, err := parseShare(in); err == nil || !strings.Contains(err.Error(), "--daily") {
			t.Errorf("parseShare(%q): err %v, want one naming --daily", in, err)
		}
	}
}

// age on a small pgtrial-marked pgbench_accounts: a target the days cannot reach is
// exit 2 with the result still printed (--json); a foreign table is exit 1.
func TestAgeCommandExitCodes(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url,
		"create table pgbench_accounts (aid int primary key, bid int, abalance int, filler char(84)) with (fillfactor = 100)",
		"comment on table pgbench_accounts is 'pgtrial:pgbench'",
		"insert into pgbench_accounts select g, 1, 0, '' from generate_series(1, 4000) g",
		"create table mine (id int primary key, n int)",
		"vacuum analyze pgbench_accounts")
	code, out, errOut := runCLI(t, "age", "--days", "2", "--until-size", "20", "--daily", "1/2", "--json", url)
	if code != 2 || !strings.Contains(errOut, "raise --days") || !strings.Contains(errOut, "day 2:") {
		t.Fatalf("unreachable target: exit %d, stderr %q; want 2 and the days' lines", code, errOut)
	}
	var r age.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if r.Days != 2 || r.Reached || r.Before.Rows != 4000 || r.After.Pages <= r.Before.Pages {
		t.Errorf("result %+v: want 2 days, not reached, 4000 rows, grown", r)
	}
	code, _, errOut = runCLI(t, "age", "--table", "mine", "--set", "n = n + 1", url)
	if code != 1 || !strings.Contains(errOut, "--i-own-this-data") {
		t.Errorf("foreign table: exit %d, stderr %q; want 1 and the refusal", code, errOut)
	}
}
