package loader

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// TestDropMarked: a relation without the mark stops the drop with nothing dropped;
// with force, marked and unmarked tables and sequences all go; names that do not
// exist are skipped.
func TestDropMarked(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	c, err := connect(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll(c)
	if err := exec(ctx, c, `create table t_marked (a int); comment on table t_marked is 'pgtrial:x';
		create sequence s_marked; comment on sequence s_marked is 'pgtrial:x';
		create table t_other (a int)`); err != nil {
		t.Fatal(err)
	}
	objs := markedObjects{tables: []string{"t_other", "t_marked", "t_absent"}, sequences: []string{"s_marked"}, mark: "pgtrial:x"}
	count := func() int64 {
		rows, err := queryStrings(ctx, c, "select count(*) from pg_class where relname in ('t_marked', 't_other', 's_marked')")
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseInt(rows[0][0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	err = dropMarked(ctx, c, cfg.Database, objs, false)
	if err == nil || !strings.Contains(err.Error(), "refusing to drop t_other in database") || !strings.Contains(err.Error(), `"pgtrial:x"`) {
		t.Fatalf("unmarked t_other: err = %v, want a refusal naming it and the mark", err)
	}
	if n := count(); n != 3 {
		t.Fatalf("after the refusal %d of the 3 relations are left, want all", n)
	}
	if err := dropMarked(ctx, c, cfg.Database, objs, true); err != nil {
		t.Fatalf("force: %v", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("after the forced drop %d relations are left, want none", n)
	}
	if err := dropMarked(ctx, c, cfg.Database, objs, false); err != nil {
		t.Fatalf("nothing to drop: %v", err)
	}
}

// TestWorkersFirstError: a failing task cancels the tasks still running and not yet
// started, and run returns its error; a cancelled context is an error even when no
// task failed.
func TestWorkersFirstError(t *testing.T) {
	url := pgtest.ConnString(t)
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	boom := errors.New("boom")
	var started atomic.Int64
	start := time.Now()
	err = workers{conn: cfg, jobs: 2}.run(ctx, 100, func(ctx context.Context, c *pgconn.PgConn, i int) error {
		started.Add(1)
		if i == 0 {
			return boom
		}
		return exec(ctx, c, "select pg_sleep(20)")
	})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the first task's", err)
	}
	if n := started.Load(); n > 2 {
		t.Errorf("%d tasks started after the failure, want at most 2", n)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("run took %v: the sleeping task was not cancelled", d)
	}
	done, stop := context.WithCancel(ctx)
	stop()
	if err := (workers{conn: cfg, jobs: 2}).run(done, 3, func(context.Context, *pgconn.PgConn, int) error { return nil }); err == nil {
		t.Error("a cancelled context returned no error")
	}
}
