package cli

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func countRows(t *testing.T, url, table string) int64 {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var n int64
	if err := c.QueryRow(context.Background(), "select count(*) from "+table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

func TestInitCommand(t *testing.T) {
	url := pgtest.ConnString(t)
	_, errOut := mustRun(t, 0, "init", "-s", "2", "-q", "--url", url)
	if !strings.HasPrefix(lastLine(errOut), "done in ") || !strings.Contains(errOut, "vacuuming...") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if n := countRows(t, url, "pgbench_accounts"); n != 200000 {
		t.Errorf("%d accounts, want 200000", n)
	}
	// -n drops v; --foreign-keys appends f; -I with spaces.
	_, errOut = mustRun(t, 0, "init", "-I", "d t g p", "-n", "--foreign-keys", "-d", url)
	if strings.Contains(errOut, "vacuuming") || !strings.Contains(errOut, "creating foreign keys...") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

// TestInitBadInput: each bad input exits 1 with a clear message and changes nothing.
func TestInitBadInput(t *testing.T) {
	url := pgtest.ConnString(t)
	mustRun(t, 0, "init", "-q", "-d", url)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-s", "0"}, "invalid scale 0"},
		{[]string{"-s", "-5"}, "invalid scale -5"},
		{[]string{"-s", "abc"}, "invalid argument"},
		{[]string{"-I", "dtx"}, `unrecognized initialization step "x"`},
		{[]string{"-I", ""}, "no initialization steps"},
		{[]string{"--partitions", "-1"}, "invalid number of partitions -1"},
		{[]string{"--partition-method", "hash"}, "--partition-method requires greater than zero --partitions"},
		{[]string{"--partitions", "2", "--partition-method", "list"}, `expecting "range" or "hash", got: "list"`},
		{[]string{"-F", "5"}, "10..100"},
		{[]string{"-F", "101"}, "10..100"},
		{[]string{"--jobs", "-1"}, "invalid --jobs"},
		{[]string{"--tablespace", "no_such_ts"}, `tablespace "no_such_ts" does not exist`},
		{[]string{"--index-tablespace", "no_such_ts"}, `tablespace "no_such_ts" does not exist (--index-tablespace)`},
	}
	for _, tt := range tests {
		args := append([]string{"init", "-q", "-d", url}, tt.args...)
		_, errOut := mustRun(t, 1, args...)
		if !strings.Contains(errOut, "pgtrial: error: ") || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: stderr %q, want %q", tt.args, errOut, tt.want)
		}
		if strings.Contains(errOut, "dropping old tables") {
			t.Errorf("%v: dropped tables before failing", tt.args)
		}
		if n := countRows(t, url, "pgbench_accounts"); n != 100000 {
			t.Fatalf("%v: pgbench_accounts has %d rows after a bad input, want 100000", tt.args, n)
		}
	}
}

func TestInitUnreachableServer(t *testing.T) {
	_, errOut := mustRun(t, 1, "init", "-d", "postgres://postgres@127.0.0.1:1/nowhere?connect_timeout=5")
	for _, want := range []string{"pgtrial: error: connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n",
		"hint: is a server running at 127.0.0.1, port 1?"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
}

// TestInitRefusesPgbenchTables: tables made by pgbench -i (or by hand) are not dropped
// without --force, and the error says which and what to do.
func TestInitRefusesPgbenchTables(t *testing.T) {
	url := pgtest.ConnString(t)
	if pgbench, err := exec.LookPath("pgbench"); err == nil {
		if out, err := exec.Command(pgbench, "-i", "-s", "1", "-q", url).CombinedOutput(); err != nil {
			t.Fatalf("pgbench -i: %v\n%s", err, out)
		}
	} else {
		if os.Getenv("CI") == "true" {
			t.Fatal("pgbench not found (CI=true)")
		}
		c, err := pgx.Connect(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Exec(context.Background(), `create table pgbench_accounts(aid int not null, bid int, abalance int, filler char(84));
			insert into pgbench_accounts select g, 1, 0, '' from generate_series(1, 100000) g;
			create table pgbench_branches(bid int not null, bbalance int, filler char(88));
			create table pgbench_history(tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
			create table pgbench_tellers(tid int not null, bid int, tbalance int, filler char(84))`)
		c.Close(context.Background())
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, steps := range []string{"dtgvp", "g"} {
		_, errOut := mustRun(t, 1, "init", "-q", "-s", "2", "-I", steps, "-d", url)
		for _, want := range []string{"refusing to drop or overwrite pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers", "use --force"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("-I %s: stderr %q lacks %q", steps, errOut, want)
			}
		}
		if n := countRows(t, url, "pgbench_accounts"); n != 100000 {
			t.Fatalf("-I %s: pgbench_accounts has %d rows after the refusal, want 100000", steps, n)
		}
	}
	// -I f and -I v change the tables too: refused alike (they ran on the old code).
	for steps, want := range map[string]string{"f": "init -I f: refusing to add foreign keys to pgbench_accounts", "v": "init -I v: refusing to vacuum pgbench_accounts"} {
		_, errOut := mustRun(t, 1, "init", "-q", "-I", steps, "-d", url)
		if !strings.Contains(errOut, want) || !strings.Contains(errOut, "use --force") {
			t.Errorf("-I %s: stderr %q lacks %q", steps, errOut, want)
		}
	}
	mustRun(t, 0, "init", "-q", "-s", "2", "--force", "-d", url)
	if n := countRows(t, url, "pgbench_accounts"); n != 200000 {
		t.Errorf("after --force: %d accounts, want 200000", n)
	}
	// Now the tables are pgtrial's: no --force needed.
	mustRun(t, 0, "init", "-q", "-s", "1", "-d", url)
}

// TestInitHostPortUser connects the way pgbench users do: -h (a socket directory),
// -p, -U and the database name as the argument, without a URL.
func TestInitHostPortUser(t *testing.T) {
	url := pgtest.ConnString(t)
	cl := pgtest.Cluster(t)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, 0, "init", "-q", "-s", "1",
		"-h", cl.SocketDir(), "-p", strconv.Itoa(cl.Port()), "-U", "postgres", cfg.Database)
	if n := countRows(t, url, "pgbench_tellers"); n != 10 {
		t.Errorf("%d tellers, want 10", n)
	}
	// A wrong port is an unreachable server: exit 1, and the error names the target.
	_, errOut := mustRun(t, 1, "init", "-q", "-h", cl.SocketDir(), "-p", "1", "-U", "postgres", cfg.Database)
	if !strings.Contains(errOut, "pgtrial: error:") {
		t.Errorf("stderr:\n%s", errOut)
	}
}
