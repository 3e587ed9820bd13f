package collect

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// On a server pgtrial owns (CreateExtensions), a fresh database gets
// pg_stat_statements on first use and statements.csv is written; the
// collector leaves any other server's database as it is (the test of that
// is TestStatementsNotInstalled).
func TestCreateExtensionsOnFirstUse(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url := pgtest.ConnString(t)
	conn := pgtest.Connect(t, ctx, url)
	var preload string
	if err := conn.QueryRow(ctx, "SHOW shared_preload_libraries").Scan(&preload); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(preload, extStatements) {
		t.Skipf("the test cluster does not preload pg_stat_statements (shared_preload_libraries = %q)", preload)
	}
	installed := func(name string) bool {
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = $1)", name).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if installed(extStatements) {
		t.Fatal("a fresh test database already has pg_stat_statements: the test cannot tell")
	}

	var w testWarnings
	cfg := &Config{ConnString: url, Dir: t.TempDir(), RunStart: time.Now(), CreateExtensions: true}
	s, err := newStatements(ctx, cfg, w.warn)
	if err != nil {
		t.Fatalf("statements collector with CreateExtensions: %v", err)
	}
	if err := s.finish(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if !installed(extStatements) {
		t.Error("pg_stat_statements not created")
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, results.StatementsFile)); err != nil {
		t.Errorf("%s: %v", results.StatementsFile, err)
	}
	if ws := w.list(); len(ws) > 0 {
		t.Errorf("warnings: %q", ws)
	}
	// Created again: nothing to do.
	if created, err := ensureExtension(ctx, conn, extStatements); err != nil || created {
		t.Errorf("second ensureExtension: created %v, %v", created, err)
	}
	// A library that is not preloaded is not created.
	if created, err := ensureExtension(ctx, conn, "pg_trgm"); err != nil || created || installed("pg_trgm") {
		t.Errorf("ensureExtension of a library not preloaded: created %v, %v", created, err)
	}
	// pg_wait_sampling: created only when the cluster preloads it.
	if strings.Contains(preload, extWaitSampling) {
		wcfg := &Config{ConnString: url, Dir: t.TempDir(), RunStart: time.Now(), Interval: time.Second, WaitInterval: 100 * time.Millisecond,
			WaitSource: WaitSourceAuto, CreateExtensions: true}
		wt, err := newWaits(ctx, wcfg, w.warn)
		if err != nil {
			t.Fatal(err)
		}
		defer wt.close()
		if wt.source != WaitSourceProfile || !installed(extWaitSampling) {
			t.Errorf("pg_wait_sampling preloaded: source %q, installed %v", wt.source, installed(extWaitSampling))
		}
	}
}

// fileSink writes events as events.jsonl lines into a run directory.
type fileSink struct {
	mu  sync.Mutex
	dir string
}

func (s *fileSink) Event(e results.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.dir, results.EventsFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(append(b, '\n'))
	return err
}

// Without pg_stat_statements in the database (and without CreateExtensions),
// the evidence says the statements are missing and why, rather than 0
// calls; the collectors that were not asked for are missing too.
func TestSummarizeMissingStatements(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url := pgtest.ConnString(t)
	if err := execSQL(ctx, url, "DROP EXTENSION IF EXISTS pg_stat_statements"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	start := time.Now()
	c, err := Start(ctx, Config{ConnString: url, Dir: dir, RunStart: start, Kinds: []string{KindStatements}, Events: &fileSink{dir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	c.Mark(results.PhaseMeasure, start)
	end := time.Now()
	c.Stop(ctx, end)
	ev := Summarize(dir, start, end, time.Second, 10)
	reason, ok := ev.MissingReason(results.EvidenceStatements)
	if !ok || !strings.Contains(reason, "pg_stat_statements is not installed in database") {
		t.Errorf("statements missing: %q %v, want the collector's reason", reason, ok)
	}
	if ev.Calls != 0 || ev.Statements != nil {
		t.Errorf("calls %d, statements %v", ev.Calls, ev.Statements)
	}
	if r, ok := ev.MissingReason(results.EvidenceWaits); !ok || !strings.Contains(r, "did not run") {
		t.Errorf("waits missing: %q %v", r, ok)
	}
}

func execSQL(ctx context.Context, url, sql string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}
