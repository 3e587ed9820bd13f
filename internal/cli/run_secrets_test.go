package cli

import (
	"context"
	"fmt"
	"io/fs"
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

// secretMark starts every password the other sessions set.
const secretMark = "h4secret"

// TestRunKeepsNoSecretOfOtherSessions (issue 14, defect 5 and the
// acceptance "a password set by another session never appears in any file
// or output of a run"): while `pgtrial run` collects as superuser, other
// sessions (the same superuser in the run's database, another superuser
// role in it, the superuser in another database) set passwords with ALTER
// ROLE, CREATE ROLE and CREATE USER MAPPING. No file of the run directory
// and no output holds one; statements.csv has an "other sessions" row;
// every file is 0600 and every directory 0700. Then a --run-dir that is a
// symbolic link is refused (defect 7).
func TestRunKeepsNoSecretOfOtherSessions(t *testing.T) {
	url := runTestDB(t)
	var preload string
	pgtest.QueryRow(t, url, "show shared_preload_libraries", nil, &preload)
	if !strings.Contains(preload, "pg_stat_statements") {
		t.Skipf("the test cluster does not preload pg_stat_statements (%q)", preload)
	}
	pgtest.Exec(t, url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	suffix := fmt.Sprint(time.Now().UnixNano())
	target, other := "h4_run_target_"+suffix, "h4_run_other_"+suffix
	pgtest.Exec(t, url, "CREATE ROLE "+target+" NOLOGIN", "CREATE ROLE "+other+" LOGIN SUPERUSER")
	t.Cleanup(func() {
		pgtest.Exec(t, url, "DROP OWNED BY "+other, "DROP ROLE IF EXISTS "+other, "DROP ROLE IF EXISTS "+target)
	})
	const prefix = "postgres://postgres@"
	if !strings.HasPrefix(url, prefix) {
		t.Fatalf("unexpected test URL %q", url)
	}
	sameRole := pgtest.Connect(t, ctx, url)
	otherRole := pgtest.Connect(t, ctx, "postgres://"+other+"@"+strings.TrimPrefix(url, prefix))
	otherDB := pgtest.Connect(t, ctx, pgtest.ConnString(t))
	var fdw bool
	if err := sameRole.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_available_extensions WHERE name = 'postgres_fdw')").Scan(&fdw); err != nil {
		t.Fatal(err)
	}
	setup := []string{"CREATE EXTENSION IF NOT EXISTS postgres_fdw",
		"CREATE SERVER h4_srv FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host 'localhost', dbname 'x')"}
	if fdw {
		for _, c := range []*pgx.Conn{sameRole, otherDB} {
			for _, sql := range setup {
				if _, err := c.Exec(ctx, sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
		}
	}

	// The other sessions: every 100 ms until the run ends (at most 300
	// rounds), each statement with a password of its own.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	rounds := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; n < 300; n++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			sqls := []struct {
				c   *pgx.Conn
				sql string
			}{
				{sameRole, fmt.Sprintf("ALTER ROLE %s PASSWORD '%s-same-%d'", target, secretMark, n)},
				{otherRole, fmt.Sprintf("ALTER ROLE %s WITH ENCRYPTED PASSWORD '%s-role-%d'", target, secretMark, n)},
				{otherDB, fmt.Sprintf("CREATE ROLE %s_%d PASSWORD '%s-db-%d'", target, n, secretMark, n)},
				{otherDB, fmt.Sprintf("DROP ROLE %s_%d", target, n)},
			}
			if fdw {
				for _, c := range []*pgx.Conn{sameRole, otherDB} {
					sqls = append(sqls,
						struct {
							c   *pgx.Conn
							sql string
						}{c, fmt.Sprintf("CREATE USER MAPPING FOR %s SERVER h4_srv OPTIONS (user 'u', password '%s-map-%d')", target, secretMark, n)},
						struct {
							c   *pgx.Conn
							sql string
						}{c, "DROP USER MAPPING FOR " + target + " SERVER h4_srv"})
				}
			}
			for _, s := range sqls {
				if _, err := s.c.Exec(ctx, s.sql); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s: %w", s.sql, err))
					mu.Unlock()
					return
				}
			}
			mu.Lock()
			rounds++
			mu.Unlock()
		}
	}()

	base := t.TempDir()
	dir := filepath.Join(base, "runs", "r1")
	code, out, errOut := runCLI(t, "run", url, "--rate", "50", "-T", "3s", "--warmup", "1s", "-c", "1", "-b", "select-only",
		"--txlog", "--run-dir", dir)
	close(stop)
	wg.Wait()
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, err := range errs {
		t.Errorf("another session: %v", err)
	}
	if rounds < 10 {
		t.Fatalf("the other sessions ran %d rounds during the run, want at least 10", rounds)
	}

	if strings.Contains(out+errOut, secretMark) {
		t.Errorf("a password of another session in the output:\n%s\n%s", out, errOut)
	}
	if !strings.Contains(out, "other sessions") {
		t.Errorf("the summary does not show the other sessions' work:\n%s", out)
	}
	files := 0
	err := filepath.WalkDir(filepath.Join(base, "runs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			if fi.Mode().Perm() != results.DirMode {
				t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), results.DirMode)
			}
			return nil
		}
		files++
		if fi.Mode().Perm() != results.FileMode {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), results.FileMode)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), secretMark) {
			t.Errorf("%s holds a password of another session", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 9 { // run.json, latency.hlog, timeline.csv, events.jsonl, 4 collector files, a txlog
		t.Errorf("%d files in the run directory", files)
	}
	rows, err := results.ReadStatements(dir)
	if err != nil {
		t.Fatal(err)
	}
	var others, redacted int
	for _, r := range rows {
		if r.Phase != results.PhaseMeasure {
			continue
		}
		if r.Sessions == results.SessionsOthers {
			others++
			if r.Calls <= 0 || r.Query != "" {
				t.Errorf("other sessions row: %+v", r)
			}
		}
		if strings.Contains(r.Query, "PASSWORD "+results.Redacted) {
			redacted++ // the same role in the run's database: kept, redacted
		}
	}
	if others != 1 || redacted == 0 {
		t.Errorf("measured phase: %d other sessions rows (want 1), %d redacted ALTER ROLE rows (want some)", others, redacted)
	}

	// Defect 7: a --run-dir that is a symbolic link is refused, and nothing
	// is written where it points.
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "run", url, "--rate", "50", "-T", "1s", "--warmup", "0s", "-c", "1", "-b", "select-only", "--run-dir", link)
	if code == 0 || !strings.Contains(errOut, "run directory "+link+" is a symbolic link (to "+real+")") || !strings.Contains(errOut, "give the real directory") {
		t.Errorf("--run-dir through a symbolic link: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if ents, _ := os.ReadDir(real); len(ents) > 0 {
		t.Errorf("files written through the link: %v", ents)
	}
}
