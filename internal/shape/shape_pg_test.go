package shape

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestRunPadAndKeys: a JSON column of 3–6 KB values goes to TOAST, every
// row is rewritten (keyset batches), the same seed gives the same column.
func TestRunPadAndKeys(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url,
		`create table ev (id int primary key, k int not null default 0, doc jsonb)`,
		`insert into ev (id) select g from generate_series(1, 2500) g`,
		`comment on table ev is 'pgtrial:test'`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	d := Dist{Kind: Zipf, Param: 1.1, Min: 1}
	res, err := Run(ctx, conn, Config{Table: "ev", Column: "k", Dist: &d, Seed: 5, Batch: 300})
	if err != nil {
		t.Fatal(err)
	}
	if res.Updated != 2500 || res.Rows != 2500 || res.TopShare < 0.3 {
		t.Errorf("zipf keys: %+v", res)
	}
	var sum1, sum2 int64
	pgtest.QueryRow(t, url, "select sum(k::bigint * id) from ev", nil, &sum1)
	if _, err := Run(ctx, conn, Config{Table: "ev", Column: "k", Dist: &d, Seed: 5, Batch: 700}); err != nil {
		t.Fatal(err)
	}
	pgtest.QueryRow(t, url, "select sum(k::bigint * id) from ev", nil, &sum2)
	if sum1 != sum2 {
		t.Errorf("seed 5 twice (batches of 300, then 700): checksums %d and %d", sum1, sum2)
	}
	var zeros int64
	pgtest.QueryRow(t, url, "select count(*) from ev where k = 0", nil, &zeros)
	if zeros != 0 {
		t.Errorf("%d rows not rewritten", zeros)
	}
	z := Sizes{Kind: PadJSON, Min: 3000, Max: 6000}
	res, err = Run(ctx, conn, Config{Table: "ev", Column: "doc", Sizes: &z, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Updated != 2500 || res.ToastShare < 0.5 || res.AvgBytes < 1000 {
		t.Errorf("json 3–6 KB: %+v; want most of the table in TOAST", res)
	}
	t.Logf("json 3–6 KB: %.0f bytes stored a value, TOAST %.1f %% of %d bytes", res.AvgBytes, 100*res.ToastShare, res.TableBytes)
	var minLen, maxLen int
	pgtest.QueryRow(t, url, "select min(length(doc::text)), max(length(doc::text)) from ev", nil, &minLen, &maxLen)
	if minLen < 2900 || maxLen > 6100 {
		t.Errorf("json lengths %d–%d, want about 3000–6000", minLen, maxLen)
	}
}

// TestRunForeignTable: a table without pgtrial's mark is refused, and
// rewritten with Force; a key column cannot be the shaped one.
func TestRunForeignTable(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url, `create table theirs (id int primary key, k int)`, `insert into theirs select g, 0 from generate_series(1, 100) g`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	d := Dist{Kind: Uniform, Min: 1, Max: 10}
	cfg := Config{Table: "theirs", Column: "k", Dist: &d, MaxSet: true, Seed: 1}
	if _, err := Run(ctx, conn, cfg); err == nil || !strings.Contains(err.Error(), "not created by pgtrial") {
		t.Errorf("unmarked table: %v", err)
	}
	cfg.Force = true
	res, err := Run(ctx, conn, cfg)
	if err != nil || res.Updated != 100 || res.Distinct != 10 {
		t.Errorf("with Force: %+v, %v", res, err)
	}
	cfg.Column = "id"
	if _, err := Run(ctx, conn, cfg); err == nil || !strings.Contains(err.Error(), "part of) the primary key of theirs") {
		t.Errorf("shaping the primary key: %v", err)
	}
	cfg.Key = "k" // another key to walk by does not make the primary key shapeable
	if _, err := Run(ctx, conn, cfg); err == nil || !strings.Contains(err.Error(), "primary key") {
		t.Errorf("shaping the primary key by another key: %v", err)
	}
	cfg.Key = ""
	cfg.Table = "nosuch"
	if _, err := Run(ctx, conn, cfg); err == nil || !strings.Contains(err.Error(), `no table "nosuch"`) {
		t.Errorf("no table: %v", err)
	}
}
