package age_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/age"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/pgtest/pgbenchdb"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func connConfig(t *testing.T, url string) *pgx.ConnConfig {
	t.Helper()
	cc, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	return cc
}

// The seed's month: a third of pgbench_accounts a day with a weekly VACUUM grows the
// same 100,000 rows to at least 1.5× their fresh pages, and the free space that growth
// is made of is measured.
func TestAgeGrowsTheSameRowsToOneAndAHalfTimesTheirPages(t *testing.T) {
	t.Parallel()
	url, _ := pgbenchdb.Scale1(t)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	res, err := age.Run(ctx, connConfig(t, url), age.Config{UntilSize: 1.5, Out: &out})
	if err != nil {
		t.Fatalf("age: %v\n%s", err, out.String())
	}
	res.Write(&out)
	t.Logf("%.1f s\n%s", time.Since(start).Seconds(), out.String())
	if !res.Before.Exact || !res.After.Exact {
		t.Fatalf("pgstattuple was not used: %s", res.Missing)
	}
	if res.Before.Rows != 100000 || res.After.Rows != 100000 {
		t.Errorf("rows before %d, after %d: want 100000 both (the same rows)", res.Before.Rows, res.After.Rows)
	}
	if res.After.Pages*2 < res.Before.Pages*3 {
		t.Errorf("pages %d → %d (%.2f×): want ≥ 1.5×", res.Before.Pages, res.After.Pages, res.Growth())
	}
	if res.After.FreePercent < 10 || res.After.FreePercent <= res.Before.FreePercent {
		t.Errorf("free space %.1f %% → %.1f %%: want the aged table's free space (≥ 10 %%) reported", res.Before.FreePercent, res.After.FreePercent)
	}
	if res.Days < 1 || res.Days > age.DefaultDays || !res.Reached {
		t.Errorf("aged %d days, reached %v (%s)", res.Days, res.Reached, res.Stopped)
	}
	// A day updates a third of the rows, give or take the binomial's spread (σ ≈ 149).
	perDay := float64(res.Updated) / float64(res.Days)
	if perDay < 32000 || perDay > 34700 {
		t.Errorf("%.0f updates a day: want about 33,333", perDay)
	}
	if want := res.Days / 7; res.Vacuums != want {
		t.Errorf("%d VACUUMs in %d days: want %d (weekly)", res.Vacuums, res.Days, want)
	}
	if len(res.After.Indexes) != 1 || res.After.Indexes[0].Pages < res.Before.Indexes[0].Pages {
		t.Errorf("indexes before %v, after %v: want pgbench_accounts_pkey, not smaller", res.Before.Indexes, res.After.Indexes)
	}
	for _, w := range []string{"day 1:", "before:", "free space", "× the starting pages"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q", w)
		}
	}
}

// A table pgtrial did not make is refused unless the user owns its data; with
// --i-own-this-data, --set and --key it ages, and --no-autovacuum leaves the table's
// setting as it was.
func TestAgeRefusesForeignTableUnlessOwned(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url,
		"create table orders (code text primary key, qty int not null) with (autovacuum_enabled = true)",
		"insert into orders select 'o' || lpad(g::text, 6, '0'), 0 from generate_series(1, 3000) g")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cc := connConfig(t, url)
	_, err := age.Run(ctx, cc, age.Config{Table: "orders", Set: "qty = qty + 1", Days: 2})
	if err == nil || !strings.Contains(err.Error(), "--i-own-this-data") {
		t.Fatalf("foreign table: err %v, want a refusal naming --i-own-this-data", err)
	}
	_, err = age.Run(ctx, cc, age.Config{Table: "orders", Days: 2, OwnData: true})
	if err == nil || !strings.Contains(err.Error(), "--set") {
		t.Fatalf("no --set: err %v, want one asking for --set", err)
	}
	var said strings.Builder
	res, err := age.Run(ctx, cc, age.Config{Table: "orders", Set: "qty = qty + 1", Days: 3, Daily: 0.5, VacuumEvery: 2,
		Batch: 700, OwnData: true, NoAutovacuum: true, UntilSize: 50, Out: &said})
	if !errors.Is(err, age.ErrNotReached) {
		t.Fatalf("50× in 3 days: err %v, want ErrNotReached", err)
	}
	// The first line says what the run does with autovacuum: off, as asked.
	if first, _, _ := strings.Cut(said.String(), "\n"); !strings.Contains(first, "autovacuum off on the table during aging") {
		t.Errorf("first line %q, want it to say autovacuum is off during aging", first)
	}
	if res.Days != 3 || res.Vacuums != 1 || res.Key != "code" {
		t.Errorf("days %d, vacuums %d, key %s: want 3, 1, code", res.Days, res.Vacuums, res.Key)
	}
	var sum int64
	var opts []string
	pgtest.QueryRow(t, url, "select sum(qty), (select reloptions from pg_class where relname = 'orders') from orders", nil, &sum, &opts)
	if sum != res.Updated || sum < 3000 || sum > 6000 {
		t.Errorf("sum(qty) %d, updates %d: want equal, about 4500 (half of 3000 rows on 3 days)", sum, res.Updated)
	}
	if len(opts) != 1 || opts[0] != "autovacuum_enabled=true" {
		t.Errorf("reloptions after aging %v: want autovacuum_enabled=true back", opts)
	}
}

// Without the right to create or use pgstattuple, aging still runs and says that free
// space is not measured; rows and dead rows are the statistics' estimates; --until-free
// is refused before any update.
func TestAgeWithoutPgstattupleSaysSo(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url,
		"create role age_plain login",
		"create table plain (id int primary key, n int)",
		"comment on table plain is 'pgtrial:test'",
		"insert into plain select g, 0 from generate_series(1, 2000) g",
		"alter table plain owner to age_plain")
	cc := connConfig(t, url)
	cc.User = "age_plain"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := age.Run(ctx, cc, age.Config{Table: "plain", Set: "n = n + 1", UntilFree: 30}); err == nil || !strings.Contains(err.Error(), "--until-free needs pgstattuple") {
		t.Fatalf("--until-free without pgstattuple: err %v", err)
	}
	var out bytes.Buffer
	res, err := age.Run(ctx, cc, age.Config{Table: "plain", Set: "n = n + 1", Days: 2, VacuumEvery: 1, Out: &out})
	if err != nil {
		t.Fatalf("age: %v\n%s", err, out.String())
	}
	res.Write(&out)
	t.Log(out.String())
	if res.After.Exact || !strings.Contains(res.Missing, "pgstattuple") || !strings.Contains(out.String(), "free space is not measured") {
		t.Errorf("exact %v, missing %q:\n%s", res.After.Exact, res.Missing, out.String())
	}
	if res.Before.Rows != 2000 || res.Vacuums != 2 {
		t.Errorf("rows (estimate) %d, vacuums %d: want 2000, 2\n%s", res.Before.Rows, res.Vacuums, out.String())
	}
}
