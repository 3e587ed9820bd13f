package mask_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/mask"
	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// testKey is 32 bytes; tests check that it appears in no error.
var testKey = []byte("0123456789abcdef-test-key-32byte")

// cloneDB is a fresh database with pgcrypto available, marked as pgtrial's clone
// unless unmarked, after sqls ran. Without pgcrypto the test skips, except under
// CI=true (the Debian server package ships it).
func cloneDB(t *testing.T, marked bool, sqls ...string) string {
	t.Helper()
	url := pgtest.ConnString(t)
	var avail bool
	pgtest.QueryRow(t, url, "select exists (select 1 from pg_available_extensions where name = 'pgcrypto')", nil, &avail)
	if !avail {
		if os.Getenv("CI") == "true" {
			t.Fatal("pgcrypto is not installed with the test server (install postgresql-contrib)")
		}
		t.Skip("pgcrypto is not installed with the test server: install postgresql-contrib to run the masking tests")
	}
	if marked {
		sqls = append(sqls, `do $$ begin execute format('comment on database %I is %L', current_database(), 'pgtrial:clone'); end $$`)
	}
	pgtest.Exec(t, url, sqls...)
	waitAlone(t, url)
	return url
}

// waitAlone waits (≤ 10 s) until the sessions the setup closed have left
// pg_stat_activity: a backend ends a moment after its client closed.
func waitAlone(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn := pgtest.Connect(t, ctx, url)
	defer conn.Close(ctx)
	for {
		var n int
		if err := conn.QueryRow(ctx, `select count(*) from pg_stat_activity where datname = current_database()
		                               and pid <> pg_backend_pid() and backend_type = 'client backend'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d other sessions stay connected to the test database", n)
		case <-time.After(20 * time.Millisecond):
		}
		if _, err := conn.Exec(ctx, "select pg_stat_clear_snapshot()"); err != nil {
			t.Fatal(err)
		}
	}
}

func run(t *testing.T, cfg mask.Config) (*mask.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if cfg.Key == nil {
		cfg.Key = testKey
	}
	res, err := mask.Run(ctx, cfg)
	if err != nil && strings.Contains(err.Error(), string(testKey)) {
		t.Errorf("the error shows the key: %v", err)
	}
	return res, err
}

func count(t *testing.T, url, sql string) int64 {
	t.Helper()
	var n int64
	pgtest.QueryRow(t, url, sql, nil, &n)
	return n
}

// The acceptance: 100,000 distinct emails stay 100,000 distinct, a join between two
// tables on the masked column matches the same rows, NULLs stay NULL, and a pg_dump of
// the masked tables contains none of 1,000 sampled originals.
func TestMaskEmailsStayDistinctJoinAndDumpIsClean(t *testing.T) {
	t.Parallel()
	began := time.Now()
	url := cloneDB(t, true,
		`create table users (id int, email varchar(200))`,
		`insert into users select i, 'user' || i || '@example.com' from generate_series(1, 100000) i`, // 100,000 distinct emails
		`insert into users select i, null from generate_series(100001, 100100) i`,                     // and 100 NULLs
		`alter table users add primary key (id), add unique (email)`,
		`create table orders (id int primary key, email text)`,
		`insert into orders select i, 'user' || (i * 7 % 100000 + 1) || '@example.com' from generate_series(1, 10000) i`,
	)
	t.Logf("setup %v", time.Since(began))
	joinSQL := `select count(*) from orders o join users u on u.email = o.email`
	joinBefore := count(t, url, joinSQL)
	distinctBefore := count(t, url, `select count(distinct email) from users`)

	start := time.Now()
	res, err := run(t, mask.Config{ConnString: url, Columns: []string{"users.email", "public.orders.email"}, Prove: 1000, Out: func(s string) { t.Logf("%v %s", time.Since(start), s) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("masked and proven in %v; dump %d bytes", time.Since(start), res.DumpBytes)
	defer func() { t.Logf("checks %v", time.Since(start)) }()

	u := res.Columns[0]
	if u.DistinctBefore != distinctBefore || u.DistinctAfter != distinctBefore || distinctBefore != 100000 {
		t.Errorf("users.email distinct before %d, after %d; want 100000 both (%d in the table)", u.DistinctBefore, u.DistinctAfter, distinctBefore)
	}
	var distinct, nulls, unmasked int64
	pgtest.QueryRow(t, url, `select count(distinct email), count(*) - count(email),
	                                count(*) filter (where email like '%@example.com' or email !~ '^[0-9a-f]{64}$')
	                           from users`, nil, &distinct, &nulls, &unmasked)
	if distinct != 100000 || unmasked != 0 {
		t.Errorf("after masking the table has %d distinct emails (want 100000), %d that look unmasked", distinct, unmasked)
	}
	if u.Nulls != 100 || nulls != 100 {
		t.Errorf("NULLs: reported %d, in the table %d; want 100 kept", u.Nulls, nulls)
	}
	if got := count(t, url, joinSQL); got != joinBefore || joinBefore == 0 {
		t.Errorf("join on the masked emails matches %d rows, before masking %d", got, joinBefore)
	}
	if got := count(t, url, `select count(*) from orders where email like '%@example.com'`); got != 0 {
		t.Errorf("%d orders rows still hold an original", got)
	}
	for _, c := range res.Columns {
		if c.Sampled != 1000 || c.Short != 0 || c.Found != 0 {
			t.Errorf("%s.%s proof: sampled %d (short %d), found %d; want 1000, 0, 0", c.Table, c.Column, c.Sampled, c.Short, c.Found)
		}
	}
	if res.PgDump == "" || res.DumpBytes < 100000*64 {
		t.Errorf("the dump (%q) has %d bytes: too small to hold 100,000 masked emails", res.PgDump, res.DumpBytes)
	}

	// The same key gives the same value whatever the table (joins across tables).
	var want string
	pgtest.QueryRow(t, url, `select encode(hmac(convert_to('user8@example.com', 'UTF8'), $1::bytea, 'sha256'), 'hex')`, []any{testKey}, &want)
	if got := count(t, url, "select count(*) from orders where email = '"+want+"'"); got == 0 {
		t.Errorf("no orders row holds hmac('user8@example.com'), the mask of an email orders had")
	}
}

// The proof finds what masking left: an original copied into another, unmasked column
// of the table is in the dump, and is counted (of a partitioned table: its partitions
// are dumped).
func TestMaskProofFindsAnOriginalLeftInAnotherColumn(t *testing.T) {
	t.Parallel()
	url := cloneDB(t, true,
		`create table people (id int primary key, email text, contact text) partition by hash (id)`,
		`create table people_0 partition of people for values with (modulus 2, remainder 0)`,
		`create table people_1 partition of people for values with (modulus 2, remainder 1)`,
		`create function noop() returns trigger language plpgsql as $$ begin return new; end $$`,
		`create trigger audit_people before update on people for each row execute function noop()`,
		`insert into people select i, 'person' || i || '@example.org', 'person' || i || '@example.org' from generate_series(1, 2000) i`,
	)
	var said []string
	res, err := run(t, mask.Config{ConnString: url, Columns: []string{"people.email"}, Prove: 500, Out: func(s string) { said = append(said, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Columns[0]; c.Sampled != 500 || c.Found != 500 || res.Found() != 500 {
		t.Errorf("proof with the originals still in people.contact: sampled %d, found %d; want 500 and 500", c.Sampled, c.Found)
	}
	if out := strings.Join(said, "\n"); !strings.Contains(out, "fires its triggers (audit_people)") {
		t.Errorf("no warning about the table's trigger in:\n%s", out)
	}
}

// Refused while another session is connected; nothing is changed.
func TestMaskRefusesADatabaseWithOtherConnections(t *testing.T) {
	t.Parallel()
	url := cloneDB(t, true,
		`create table users (id int primary key, email text)`,
		`insert into users select i, 'user' || i || '@example.com' from generate_series(1, 100) i`,
	)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	other, err := pgx.Connect(ctx, url+"&application_name=the-app")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	_, err = run(t, mask.Config{ConnString: url, Columns: []string{"users.email"}, Prove: 10})
	if err == nil || !strings.Contains(err.Error(), "1 other connection(s) (the-app)") {
		t.Fatalf("err = %v; want a refusal naming the other connection", err)
	}
	if got := count(t, url, `select count(*) from users where email like '%@example.com'`); got != 100 {
		t.Errorf("after the refusal %d of 100 originals are left", got)
	}
}

// An unmarked database needs --i-am-on-a-clone; with it the masking runs.
func TestMaskRefusesAnUnmarkedDatabaseWithoutTheCloneFlag(t *testing.T) {
	t.Parallel()
	url := cloneDB(t, false,
		`create table users (id int primary key, email text)`,
		`insert into users select i, 'user' || i || '@example.com' from generate_series(1, 100) i`,
	)
	_, err := run(t, mask.Config{ConnString: url, Columns: []string{"users.email"}, Prove: 10})
	if err == nil || !strings.Contains(err.Error(), "--i-am-on-a-clone") || !strings.Contains(err.Error(), "pgtrial:clone") {
		t.Fatalf("err = %v; want a refusal that names --i-am-on-a-clone and the mark", err)
	}
	if got := count(t, url, `select count(*) from users where email like '%@example.com'`); got != 100 {
		t.Fatalf("after the refusal %d of 100 originals are left", got)
	}
	res, err := run(t, mask.Config{ConnString: url, Columns: []string{"users.email"}, OnClone: true, Prove: 0})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Columns[0]; c.DistinctAfter != 100 || res.PgDump != "" {
		t.Errorf("with --i-am-on-a-clone: distinct after %d (want 100), pg_dump %q (want none with --prove 0)", c.DistinctAfter, res.PgDump)
	}
}

// --keep-length keeps lengths; when that makes values collide, the whole masking is
// rolled back. --keep-domain keeps what follows the '@'.
func TestMaskKeepLengthAndDomain(t *testing.T) {
	t.Parallel()
	url := cloneDB(t, true,
		`create table codes (id int primary key, code varchar(3), email varchar(30))`,
		`insert into codes select i, (i + 99)::text, 'u' || i || '@corp.example' from generate_series(1, 900) i`,
	)
	_, err := run(t, mask.Config{ConnString: url, Columns: []string{"codes.code", "codes.email"}, KeepLength: true, Prove: 0})
	if err == nil || !strings.Contains(err.Error(), "collide") || !strings.Contains(err.Error(), "code 900 → ") {
		t.Fatalf("err = %v; want the collision of 900 codes of 3 hex digits", err)
	}
	if got := count(t, url, `select count(*) from codes where code::int between 100 and 999 and email like '%@corp.example'`); got != 900 {
		t.Fatalf("after the rollback %d of 900 rows are original", got)
	}
	// varchar(30) with the domain kept: the local part is cut to 30 − 13 = 17 hex digits.
	res, err := run(t, mask.Config{ConnString: url, Columns: []string{"codes.email"}, KeepDomain: true, Prove: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got := count(t, url, `select count(*) from codes where email ~ '^[0-9a-f]{17}@corp\.example$'`); got != 900 {
		t.Errorf("%d of 900 emails are 17 hex digits @corp.example", got)
	}
	if c := res.Columns[0]; c.DistinctAfter != 900 || c.Found != 0 || c.Sampled != 100 {
		t.Errorf("distinct after %d (want 900), proof found %d of %d", c.DistinctAfter, c.Found, c.Sampled)
	}
	// Both: the local part keeps its length; a value longer than 64 (no '@') repeats the hex.
	pgtest.Exec(t, url, `alter table codes add column contact text, add column len int`,
		`update codes set contact = case when id % 2 = 0 then 'employee.number.' || id || '@corp.example' else repeat('long', 20) || id end`,
		`update codes set len = char_length(contact)`)
	waitAlone(t, url)
	if _, err := run(t, mask.Config{ConnString: url, Columns: []string{"codes.contact"}, KeepDomain: true, KeepLength: true, Prove: 0}); err != nil {
		t.Fatal(err)
	}
	if got := count(t, url, `select count(*) from codes where char_length(contact) = len
	                            and (id % 2 = 0 and contact ~ '^[0-9a-f]+@corp\.example$' or id % 2 = 1 and contact ~ '^[0-9a-f]{80,}$')`); got != 900 {
		t.Errorf("%d of 900 contacts kept their length and (for emails) their domain", got)
	}
}

// A foreign key on a masked column: refused with what to do while it is checked at
// once; masked on both sides in one run once it is DEFERRABLE INITIALLY DEFERRED.
func TestMaskForeignKeyBothSidesInOneRun(t *testing.T) {
	t.Parallel()
	url := cloneDB(t, true,
		`create table users (id int primary key, email text unique)`,
		`insert into users select i, 'user' || i || '@example.com' from generate_series(1, 500) i`,
		`create table orders (id int primary key, email text constraint orders_email_fk references users (email))`,
		`insert into orders select i, 'user' || (i % 500 + 1) || '@example.com' from generate_series(1, 1000) i`,
	)
	cols := []string{"users.email", "orders.email"}
	_, err := run(t, mask.Config{ConnString: url, Columns: cols, Prove: 0})
	if err == nil || !strings.Contains(err.Error(), "DEFERRABLE INITIALLY DEFERRED") || !strings.Contains(err.Error(), "orders_email_fk") {
		t.Fatalf("err = %v; want the foreign key named and what to do", err)
	}
	pgtest.Exec(t, url, `alter table orders alter constraint orders_email_fk deferrable initially deferred`)
	waitAlone(t, url)
	if _, err := run(t, mask.Config{ConnString: url, Columns: cols, Prove: 100}); err != nil {
		t.Fatal(err)
	}
	if got := count(t, url, `select count(*) from orders o join users u using (email) where u.email !~ '@'`); got != 1000 {
		t.Errorf("%d of 1000 orders join their user on the masked email", got)
	}
}
