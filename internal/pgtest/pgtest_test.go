package pgtest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// connect opens a connection to url and closes it when the test ends.
func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func TestConnStringGivesEachTestItsOwnDatabase(t *testing.T) {
	t.Parallel()
	seen := make(chan string, 8)
	for i := range 8 {
		t.Run(fmt.Sprintf("db%d", i), func(t *testing.T) {
			t.Parallel()
			url := pgtest.ConnString(t)
			if strings.Contains(url, "@127.0.0.1:") == false || !strings.HasPrefix(url, "postgres://postgres@") {
				t.Errorf("url %q: want postgres://postgres@127.0.0.1:PORT/...", url)
			}
			conn := connect(t, url)
			var db string
			if err := conn.QueryRow(context.Background(), "SELECT current_database()").Scan(&db); err != nil {
				t.Fatal(err)
			}
			// The database is empty and ours to change.
			if _, err := conn.Exec(context.Background(), "CREATE TABLE t (id int)"); err != nil {
				t.Fatal(err)
			}
			seen <- db
		})
	}
	t.Cleanup(func() {
		close(seen)
		names := map[string]bool{}
		for db := range seen {
			if names[db] {
				t.Errorf("database %s handed out twice", db)
			}
			names[db] = true
		}
		if len(names) != 8 {
			t.Errorf("got %d distinct databases, want 8", len(names))
		}
	})
}

func TestClusterRestartKeepsTheTestDatabase(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (id int); INSERT INTO kept VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)

	c := pgtest.Cluster(t)
	if c != pgtest.Cluster(t) {
		t.Error("Cluster returned two different clusters")
	}
	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	conn = connect(t, url)
	var id int
	if err := conn.QueryRow(ctx, "SELECT id FROM kept").Scan(&id); err != nil || id != 42 {
		t.Errorf("after restart: id %d, %v", id, err)
	}
	var fsync string
	if err := conn.QueryRow(ctx, "SHOW fsync").Scan(&fsync); err != nil || fsync != "off" {
		t.Errorf("fsync = %q (%v), want the test setting off", fsync, err)
	}
}

// TestChild is run by the tests below in a separate test binary process.
func TestChild(t *testing.T) {
	switch os.Getenv("PGTEST_CHILD") {
	case "":
		t.Skip("helper for other tests")
	case "crash":
		c := pgtest.Cluster(t)
		pgtest.ConnString(t)
		st, err := c.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("CLUSTER %d %s\n", st.PID, filepath.Dir(st.Dir))
		os.Exit(3) // no Main teardown: the watchdog must clean up
	case "skip":
		pgtest.ConnString(t)
		t.Error("ConnString returned without binaries")
	}
}

// child runs TestChild in a new process of this test binary.
func child(t *testing.T, mode string, env ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestChild$", "-test.v", "-test.count=1")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "PGTRIAL_PG_BIN=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, append(env, "PGTEST_CHILD="+mode)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestWatchdogRemovesClusterOfCrashedBinary(t *testing.T) {
	pgtest.Cluster(t) // skips without binaries
	out, err := child(t, "crash")
	if code := exitCode(err); code != 3 {
		t.Fatalf("child exit %d (%v), want 3:\n%s", code, err, out)
	}
	var pid int
	var dir string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "CLUSTER ") {
			fmt.Sscanf(line, "CLUSTER %d %s", &pid, &dir)
		}
	}
	if pid == 0 || dir == "" {
		t.Fatalf("no CLUSTER line in child output:\n%s", out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		alive := syscall.Kill(pid, 0) == nil
		_, statErr := os.Stat(dir)
		if !alive && errors.Is(statErr, os.ErrNotExist) {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGQUIT)
			t.Fatalf("60 s after the crash: postmaster %d alive=%v, %s exists=%v", pid, alive, dir, statErr == nil)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestSkipWithoutBinariesUnlessCI(t *testing.T) {
	bad := "PGTRIAL_PG_BIN=" + filepath.Join(t.TempDir(), "no-postgres-here")
	out, err := child(t, "skip", bad)
	if err != nil || !strings.Contains(out, "--- SKIP: TestChild") || !strings.Contains(out, "pgtest: skipping") ||
		!strings.Contains(out, "apt-get install") {
		t.Errorf("without CI: %v\n%s", err, out)
	}
	out, err = child(t, "skip", bad, "CI=true")
	if exitCode(err) != 1 || !strings.Contains(out, "--- FAIL: TestChild") || strings.Contains(out, "ConnString returned") {
		t.Errorf("with CI=true: %v\n%s", err, out)
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
