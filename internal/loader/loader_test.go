package loader

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/workload"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// load runs init against a fresh database and returns its URL.
func load(t *testing.T, url string, schema workload.Pgbench, steps string, format workload.CopyFormat) (Result, string) {
	t.Helper()
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{Conn: cfg, Schema: schema, Steps: steps, Format: format, Out: &out})
	if err != nil {
		t.Fatalf("init %s: %v\n%s", steps, err, out.String())
	}
	return res, out.String()
}

func dbConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func queryInt(t *testing.T, c *pgx.Conn, sql string) int64 {
	t.Helper()
	var v int64
	if err := c.QueryRow(context.Background(), sql).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// checkContents asserts pgbench's rows: counts, keys, the bid mapping, zero balances,
// fillers (accounts: 84 blanks; branches and tellers: NULL), an empty history.
func checkContents(t *testing.T, c *pgx.Conn, scale int64) {
	t.Helper()
	checks := []struct {
		sql  string
		want int64
	}{
		{"select count(*) from pgbench_branches", scale},
		{"select count(*) from pgbench_tellers", 10 * scale},
		{"select count(*) from pgbench_accounts", 100000 * scale},
		{"select count(*) from pgbench_history", 0},
		{"select count(distinct aid) from pgbench_accounts where aid between 1 and " + fmt.Sprint(100000*scale), 100000 * scale},
		{"select count(*) from pgbench_accounts where bid <> (aid - 1) / 100000 + 1", 0},
		{"select count(*) from pgbench_tellers where bid <> (tid - 1) / 10 + 1", 0},
		{"select sum(bid) from pgbench_branches", scale * (scale + 1) / 2},
		{"select coalesce(sum(abs(abalance)), 0) from pgbench_accounts", 0},
		{"select coalesce(sum(abs(tbalance)), 0) + (select coalesce(sum(abs(bbalance)), 0) from pgbench_branches) from pgbench_tellers", 0},
		{"select count(*) from pgbench_accounts where filler is distinct from repeat(' ', 84)::char(84) or octet_length(filler::text::bytea) <> 0 and false", 0},
		{"select count(*) from pgbench_accounts where octet_length(filler) <> 84", 0},
		{"select count(*) from pgbench_tellers where filler is not null", 0},
		{"select count(*) from pgbench_branches where filler is not null", 0},
		{"select count(*) from pg_description d join pg_class c on c.oid = d.objoid where d.classoid = 'pg_class'::regclass and d.description = 'pgtrial:pgbench' and c.relname like 'pgbench_%'", 4},
	}
	for _, ch := range checks {
		if got := queryInt(t, c, ch.sql); got != ch.want {
			t.Errorf("%s = %d, want %d", ch.sql, got, ch.want)
		}
	}
}

func TestInitContents(t *testing.T) {
	for _, format := range []workload.CopyFormat{workload.CopyBinary, workload.CopyText} {
		for _, scale := range []int64{1, 2} {
			t.Run(fmt.Sprintf("%s/scale%d", format, scale), func(t *testing.T) {
				url := pgtest.ConnString(t)
				s := workload.DefaultPgbench()
				s.Scale = scale
				res, out := load(t, url, s, DefaultSteps, format)
				c := dbConn(t, url)
				checkContents(t, c, scale)
				// Primary keys exist with pgbench's names; statistics were gathered.
				if n := queryInt(t, c, `select count(*) from pg_constraint where contype = 'p' and conname in
					('pgbench_accounts_pkey', 'pgbench_branches_pkey', 'pgbench_tellers_pkey')`); n != 3 {
					t.Errorf("%d primary keys, want 3", n)
				}
				if n := queryInt(t, c, "select count(*) from pg_stats where tablename = 'pgbench_accounts'"); n != 4 {
					t.Errorf("pg_stats has %d columns of pgbench_accounts, want 4 (ANALYZE ran)", n)
				}
				// Loaded with COPY FREEZE: every page all-visible and all-frozen (PG ≥ 14).
				if n := queryInt(t, c, "select count(*) from pg_class where relname = 'pgbench_accounts' and relallvisible = relpages and relpages > 0"); n != 1 {
					t.Error("pgbench_accounts is not all-visible after init")
				}
				for _, want := range []string{"dropping old tables...", "creating tables...", "generating data (client-side)...",
					"vacuuming...", "creating primary keys..."} {
					if !strings.Contains(out, want) {
						t.Errorf("output lacks %q:\n%s", want, out)
					}
				}
				sum := res.Summary()
				if !strings.HasPrefix(sum, "done in ") || !strings.Contains(sum, "client-side generate ") || !strings.Contains(sum, "primary keys ") {
					t.Errorf("summary %q", sum)
				}
			})
		}
	}
}

func TestInitTwiceDropsItsOwnTables(t *testing.T) {
	url := pgtest.ConnString(t)
	s := workload.DefaultPgbench()
	load(t, url, s, "dtgvpf", workload.CopyBinary)
	s.Scale = 2
	load(t, url, s, DefaultSteps, workload.CopyBinary) // drops the first set, FKs included
	c := dbConn(t, url)
	checkContents(t, c, 2)
	if n := queryInt(t, c, "select count(*) from pg_namespace where nspname like 'pgtrial_trash_%'"); n != 0 {
		t.Errorf("%d trash schemas left behind", n)
	}
}

func TestPartitions(t *testing.T) {
	for _, method := range []string{workload.PartitionRange, workload.PartitionHash} {
		t.Run(method, func(t *testing.T) {
			url := pgtest.ConnString(t)
			s := workload.DefaultPgbench()
			s.Partitions, s.PartitionMethod = 3, method
			_, out := load(t, url, s, DefaultSteps, workload.CopyBinary)
			if !strings.Contains(out, "creating 3 partitions...") {
				t.Errorf("output lacks the partitions line:\n%s", out)
			}
			c := dbConn(t, url)
			checkContents(t, c, 1)
			rows, err := c.Query(context.Background(), `select c.relname, pg_get_expr(c.relpartbound, c.oid),
				(select count(*) from pgbench_accounts a where a.tableoid = c.oid)
				from pg_inherits i join pg_class c on c.oid = i.inhrelid
				where i.inhparent = 'pgbench_accounts'::regclass order by c.relname`)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var total int64
			for rows.Next() {
				var name, bound string
				var n int64
				if err := rows.Scan(&name, &bound, &n); err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%s %s %d", name, bound, n))
				total += n
				if n == 0 {
					t.Errorf("partition %s is empty", name)
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if method == workload.PartitionRange {
				want := []string{
					"pgbench_accounts_1 FOR VALUES FROM (MINVALUE) TO (33335) 33334",
					"pgbench_accounts_2 FOR VALUES FROM (33335) TO (66669) 33334",
					"pgbench_accounts_3 FOR VALUES FROM (66669) TO (MAXVALUE) 33332",
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("partitions:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				// Each range partition was loaded frozen by its own connection.
				if n := queryInt(t, c, `select count(*) from pg_class where relname like 'pgbench_accounts_%' and relkind = 'r' and relallvisible = relpages and relpages > 0`); n != 3 {
					t.Errorf("%d of 3 partitions all-visible", n)
				}
			} else {
				if len(got) != 3 || !strings.Contains(got[2], "FOR VALUES WITH (modulus 3, remainder 2)") {
					t.Errorf("partitions: %q", got)
				}
				// Each hash partition too, with the keys the server's hash routes to it.
				if n := queryInt(t, c, `select count(*) from pg_class where relname like 'pgbench_accounts_%' and relkind = 'r' and relallvisible = relpages and relpages > 0`); n != 3 {
					t.Errorf("%d of 3 partitions all-visible", n)
				}
			}
			if total != 100000 {
				t.Errorf("partitions hold %d rows", total)
			}
			// Every partition got its key, attached to the parent's primary key.
			if n := queryInt(t, c, `select count(*) from pg_index x join pg_class c on c.oid = x.indrelid
				where c.relname like 'pgbench_accounts_%' and x.indisprimary`); n != 3 {
				t.Errorf("%d partition primary keys, want 3", n)
			}
			if n := queryInt(t, c, `select count(*) from pg_inherits where inhparent = 'pgbench_accounts_pkey'::regclass`); n != 3 {
				t.Errorf("%d partition keys attached to pgbench_accounts_pkey, want 3", n)
			}
		})
	}
}

func TestInitStepVariants(t *testing.T) {
	t.Run("dtGvp", func(t *testing.T) {
		url := pgtest.ConnString(t)
		res, out := load(t, url, workload.DefaultPgbench(), "dtGvp", workload.CopyBinary)
		if !strings.Contains(out, "generating data (server-side)...") || !strings.Contains(res.Summary(), "server-side generate") {
			t.Errorf("output:\n%s\n%s", out, res.Summary())
		}
		c := dbConn(t, url)
		checkContents(t, c, 1)
		// VACUUM skips a page whose cleanup lock it cannot get at once (the background
		// writer may hold a pin), so a loaded machine can leave a few pages behind.
		if n := queryInt(t, c, "select count(*) from pg_class where relname = 'pgbench_accounts' and relpages > 0 and relallvisible * 10 >= relpages * 9"); n != 1 {
			t.Error("VACUUM did not run after server-side generation")
		}
	})
	t.Run("dtgvpf", func(t *testing.T) {
		url := pgtest.ConnString(t)
		res, _ := load(t, url, workload.DefaultPgbench(), "dtgvpf", workload.CopyBinary)
		c := dbConn(t, url)
		checkContents(t, c, 1)
		if n := queryInt(t, c, `select count(*) from pg_constraint where contype = 'f' and conname in ('pgbench_tellers_bid_fkey',
			'pgbench_accounts_bid_fkey', 'pgbench_history_bid_fkey', 'pgbench_history_tid_fkey', 'pgbench_history_aid_fkey')`); n != 5 {
			t.Errorf("%d foreign keys, want 5", n)
		}
		if !strings.Contains(res.Summary(), "foreign keys ") {
			t.Errorf("summary %q", res.Summary())
		}
	})
	t.Run("steps in pieces", func(t *testing.T) {
		url := pgtest.ConnString(t)
		load(t, url, workload.DefaultPgbench(), "dt", workload.CopyBinary)
		load(t, url, workload.DefaultPgbench(), "g", workload.CopyBinary) // marked tables: no --force needed
		res, _ := load(t, url, workload.DefaultPgbench(), "vp", workload.CopyBinary)
		checkContents(t, dbConn(t, url), 1)
		if len(res.Steps) != 2 || res.Steps[0].Op != "vacuum" {
			t.Errorf("steps %+v", res.Steps)
		}
	})
}

func TestTableOptions(t *testing.T) {
	url := pgtest.ConnString(t)
	s := workload.DefaultPgbench()
	s.Unlogged, s.Fillfactor = true, 80
	load(t, url, s, DefaultSteps, workload.CopyBinary)
	c := dbConn(t, url)
	if n := queryInt(t, c, "select count(*) from pg_class where relname in ('pgbench_accounts','pgbench_branches','pgbench_tellers','pgbench_history') and relpersistence = 'u'"); n != 4 {
		t.Errorf("%d unlogged tables, want 4", n)
	}
	if n := queryInt(t, c, "select count(*) from pg_class where relname in ('pgbench_accounts','pgbench_branches','pgbench_tellers') and reloptions = '{fillfactor=80}'"); n != 3 {
		t.Errorf("%d tables with fillfactor=80, want 3", n)
	}
	if n := queryInt(t, c, "select count(*) from pg_class where relname = 'pgbench_history' and reloptions is null"); n != 1 {
		t.Error("pgbench_history has a fillfactor; pgbench gives it none")
	}
	checkContents(t, c, 1)
}

// pgbench's TAP cases 001-006/007: unlogged, partitioned, with foreign keys. Before
// PostgreSQL 18 the partitioned parent must be unlogged as well, or the foreign keys
// between it and the other unlogged tables are refused. PostgreSQL 18 refuses an
// unlogged partitioned table, and then a foreign key from the (permanent) parent to
// the unlogged pgbench_branches too (18.4: "constraints on permanent tables may
// reference only permanent tables"), as it refuses pgbench 18's same DDL: the load
// must fail with the server's reason, after the tables and the data.
func TestUnloggedPartitionsForeignKeys(t *testing.T) {
	url := pgtest.ConnString(t)
	s := workload.DefaultPgbench()
	s.Unlogged, s.Partitions, s.PartitionMethod = true, 2, workload.PartitionHash
	if pgtest.Cluster(t).Major() >= 18 {
		cfg, _ := pgconn.ParseConfig(url)
		_, err := Run(context.Background(), Config{Conn: cfg, Schema: s, Steps: "dtgvpf", Format: workload.CopyBinary, Out: io.Discard})
		if err == nil || !strings.Contains(err.Error(), "may reference only permanent tables") || !strings.Contains(err.Error(), "foreign keys") {
			t.Fatalf("PostgreSQL 18: error %v, want the server's refusal of the foreign key", err)
		}
		c := dbConn(t, url)
		if n := queryInt(t, c, "select count(*) from pg_class where relname like 'pgbench_accounts_%' and relkind = 'r' and relpersistence = 'u'"); n != 2 {
			t.Errorf("%d unlogged partitions, want 2", n)
		}
		return
	}
	load(t, url, s, "dtgvpf", workload.CopyBinary)
	c := dbConn(t, url)
	if n := queryInt(t, c, "select count(*) from pg_constraint where contype = 'f' and conname like 'pgbench_%_fkey' and conparentid = 0"); n != 5 {
		t.Errorf("%d foreign keys, want 5", n)
	}
	if n := queryInt(t, c, "select count(*) from pg_class where relname like 'pgbench_accounts_%' and relkind = 'r' and relpersistence = 'u'"); n != 2 {
		t.Errorf("%d unlogged partitions, want 2", n)
	}
	checkContents(t, c, 1)
}

func TestUnknownTablespace(t *testing.T) {
	url := pgtest.ConnString(t)
	cfg, _ := pgconn.ParseConfig(url)
	s := workload.DefaultPgbench()
	s.Tablespace = "no_such_ts"
	_, err := Run(context.Background(), Config{Conn: cfg, Schema: s, Steps: DefaultSteps})
	if err == nil || !strings.Contains(err.Error(), `tablespace "no_such_ts" does not exist`) || !strings.Contains(err.Error(), "--tablespace") {
		t.Fatalf("error %v", err)
	}
	if n := queryInt(t, dbConn(t, url), "select count(*) from pg_class where relname like 'pgbench_%'"); n != 0 {
		t.Errorf("%d pgbench relations left after the failed create", n)
	}
}

func TestRefusesForeignTables(t *testing.T) {
	url := pgtest.ConnString(t)
	c := dbConn(t, url)
	if _, err := c.Exec(context.Background(), "create table pgbench_branches(bid int not null, bbalance int, filler char(88)); insert into pgbench_branches values (7, 7, 'mine')"); err != nil {
		t.Fatal(err)
	}
	cfg, _ := pgconn.ParseConfig(url)
	for _, steps := range []string{"dtgvp", "t", "g", "G"} {
		_, err := Run(context.Background(), Config{Conn: cfg, Schema: workload.DefaultPgbench(), Steps: steps})
		if err == nil || !strings.Contains(err.Error(), "pgbench_branches") || !strings.Contains(err.Error(), "--force") {
			t.Errorf("-I %s: error %v, want a refusal naming pgbench_branches and --force", steps, err)
		}
		if n := queryInt(t, c, "select count(*) from pgbench_branches where bid = 7"); n != 1 {
			t.Fatalf("-I %s: the user's table was changed", steps)
		}
	}
	// v, p and f act on the tables too (on the old code they ran: a VACUUM, a
	// primary key, foreign keys on the user's tables).
	for steps, act := range map[string]string{"v": "refusing to vacuum pgbench_branches", "p": "refusing to add primary keys to pgbench_branches",
		"f": "refusing to add foreign keys to pgbench_branches", "vf": "refusing to vacuum and add foreign keys to pgbench_branches"} {
		_, err := Run(context.Background(), Config{Conn: cfg, Schema: workload.DefaultPgbench(), Steps: steps})
		if err == nil || !strings.Contains(err.Error(), "init -I "+steps+": "+act) || !strings.Contains(err.Error(), "--force") {
			t.Errorf("-I %s: error %v, want %q and --force", steps, err, act)
		}
		// contype n: PostgreSQL 18 keeps the user's NOT NULL as a constraint.
		if n := queryInt(t, c, "select count(*) from pg_constraint where conrelid = 'pgbench_branches'::regclass and contype <> 'n'"); n != 0 {
			t.Fatalf("-I %s: the user's table got %d constraints", steps, n)
		}
		if n := queryInt(t, c, "select vacuum_count + analyze_count from pg_stat_user_tables where relname = 'pgbench_branches'"); n != 0 {
			t.Fatalf("-I %s: the user's table was vacuumed", steps)
		}
	}
	_, err := Run(context.Background(), Config{Conn: cfg, Schema: workload.DefaultPgbench(), Steps: DefaultSteps, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	checkContents(t, c, 1)
}

// TestPgbenchRunsOnOurTables runs pgbench's own built-in scripts against tables made by
// init: the proof that the schema is pgbench's.
func TestPgbenchRunsOnOurTables(t *testing.T) {
	pgbench, err := osexec.LookPath("pgbench")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pgbench not found (CI=true)")
		}
		t.Skip("pgbench not found")
	}
	url := pgtest.ConnString(t)
	s := workload.DefaultPgbench()
	s.Partitions, s.PartitionMethod = 2, workload.PartitionRange
	load(t, url, s, "dtgvpf", workload.CopyBinary)
	for _, script := range []string{"tpcb-like", "simple-update", "select-only"} {
		cmd := osexec.Command(pgbench, "-n", "-t", "20", "-b", script, url)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pgbench -b %s: %v\n%s", script, err, out)
		}
		if !strings.Contains(string(out), "number of transactions actually processed: 20/20") ||
			!strings.Contains(string(out), "number of failed transactions: 0") {
			t.Errorf("pgbench -b %s:\n%s", script, out)
		}
	}
	if n := queryInt(t, dbConn(t, url), "select count(*) from pgbench_history"); n != 40 {
		t.Errorf("history has %d rows after 20 tpcb-like and 20 simple-update transactions, want 40", n)
	}
}

func TestParseSteps(t *testing.T) {
	tests := []struct {
		in       string
		noVacuum bool
		fk       bool
		want     string
		err      string
	}{
		{"dtgvp", false, false, "dtgvp", ""},
		{"dtpvGvv", true, false, "dtpG", ""},
		{"d t g", false, true, "dtgf", ""},
		{"dtgf", false, true, "dtgf", ""},
		{"", false, false, "", "no initialization steps"},
		{"   ", false, false, "", "no initialization steps"},
		{"dtx", false, false, "", `unrecognized initialization step "x"`},
	}
	for _, tt := range tests {
		got, err := ParseSteps(tt.in, tt.noVacuum, tt.fk)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseSteps(%q): error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSteps(%q, %v, %v) = %q, %v; want %q", tt.in, tt.noVacuum, tt.fk, got, err, tt.want)
		}
	}
}

func TestParseRangeBound(t *testing.T) {
	from, to, ok := parseRangeBound("FOR VALUES FROM (MINVALUE) TO (33335)")
	if !ok || from != -1<<63 || to != 33335 {
		t.Errorf("got %d %d %v", from, to, ok)
	}
	from, to, ok = parseRangeBound("FOR VALUES FROM ('5') TO (MAXVALUE)")
	if !ok || from != 5 || to != 1<<63-1 {
		t.Errorf("got %d %d %v", from, to, ok)
	}
	if _, _, ok := parseRangeBound("FOR VALUES WITH (modulus 3, remainder 0)"); ok {
		t.Error("hash bound parsed as range")
	}
}

// A run killed during its background drop leaves pgtrial_trash_<pid> behind; the next
// run drops it when that pid is gone, and leaves a live backend's schema alone.
func TestStaleTrashSchemaDropped(t *testing.T) {
	url := pgtest.ConnString(t)
	c := dbConn(t, url)
	var live int
	if err := c.QueryRow(context.Background(), "select pg_backend_pid()").Scan(&live); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		"create schema pgtrial_trash_999999999",
		"create table pgtrial_trash_999999999.pgbench_accounts (aid int)",
		fmt.Sprintf("create schema pgtrial_trash_%d", live),
	} {
		if _, err := c.Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}
	load(t, url, workload.DefaultPgbench(), "dt", workload.CopyBinary)
	if n := queryInt(t, c, "select count(*) from pg_namespace where nspname = 'pgtrial_trash_999999999'"); n != 0 {
		t.Error("stale trash schema not dropped")
	}
	if n := queryInt(t, c, fmt.Sprintf("select count(*) from pg_namespace where nspname = 'pgtrial_trash_%d'", live)); n != 1 {
		t.Error("a live backend's trash schema was dropped")
	}
}

// After step v the statistics count the loaded rows as vacuumed and analyzed, so
// autovacuum has nothing due when the first benchmark starts (pgbench -i leaves
// n_ins_since_vacuum and n_mod_since_analyze at the table size when its COPY's
// counters reach the shared statistics after its VACUUM).
func TestVacuumLeavesNoAutovacuumDue(t *testing.T) {
	url := pgtest.ConnString(t)
	load(t, url, workload.DefaultPgbench(), DefaultSteps, workload.CopyBinary)
	c := dbConn(t, url)
	if queryInt(t, c, "select current_setting('server_version_num')::int") < 150000 {
		t.Skip("statistics cannot be flushed on demand before PostgreSQL 15")
	}
	for _, tbl := range workload.PgbenchTables {
		sql := fmt.Sprintf(`select n_ins_since_vacuum + n_mod_since_analyze
		                      from pg_stat_user_tables where relid = '%s'::regclass`, tbl)
		if n := queryInt(t, c, sql); n != 0 {
			t.Errorf("%s: %d rows inserted since vacuum + modified since analyze, want 0", tbl, n)
		}
	}
}
