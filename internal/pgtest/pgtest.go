// Package pgtest gives integration tests a real PostgreSQL server: one throwaway
// cluster per test binary, started lazily on first use from the system's server
// binaries (see localpg.FindBinaries; PGTRIAL_PG_BIN is honoured), and a fresh database
// per test.
//
// Use:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestLoad(t *testing.T) {
//		t.Parallel()
//		url := pgtest.ConnString(t) // postgres://postgres@127.0.0.1:PORT/t_testload_1?sslmode=disable
//		...
//	}
//
// Without PostgreSQL binaries the tests that ask for a database are skipped with the
// install command, except when CI=true, where they fail.
//
// Each database belongs to the superuser "postgres"; the URL carries no password (the
// cluster trusts loopback connections). The cluster has pgtrial's benchmark defaults
// (pg_stat_statements preloaded when installed) but is tuned for tests, not for
// measurements: fsync, synchronous_commit, full_page_writes and autovacuum are off and
// initdb runs with --no-sync. Tests that stop, restart or reconfigure the cluster (Cluster) affect
// every test of the binary and should not call t.Parallel.
//
// Cleanup: Main stops the server and removes its directory after the tests. If the
// test binary dies before that (panic, os.Exit, timeout, kill), a small watchdog process
// started with the cluster notices that its stdin pipe from the test binary closed,
// stops the server (pg_ctl stop -m immediate) and removes the directory.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/localpg"
)

// testSettings are written into the test cluster's configuration: durability off
// (tests do not survive crashes anyway), modest memory, since several test binaries
// run their clusters at the same time, and no autovacuum: with dozens of fresh
// databases the launcher visits one every few seconds, and an autovacuum ANALYZE
// whose snapshot predates a load's last commit keeps the test's own VACUUM from
// marking those pages all-visible, a race no test means to test. A test about
// autovacuum turns it on with Cluster(t).Set.
var testSettings = map[string]string{
	"autovacuum":         "off",
	"fsync":              "off",
	"synchronous_commit": "off",
	"full_page_writes":   "off",
	"shared_buffers":     "128MB",
}

// setupTimeout bounds initdb plus the first start; dbTimeout bounds CREATE/DROP DATABASE.
const (
	setupTimeout = 2 * time.Minute
	dbTimeout    = 30 * time.Second
)

// shared is the per-binary state. It is package state by necessity: a test binary has
// one cluster, created by whichever test asks first and torn down by Main.
var shared struct {
	mu       sync.Mutex
	done     bool // setup ran (successfully or not)
	err      error
	skip     bool // err means "no binaries": skip unless CI
	cluster  *localpg.Cluster
	tmp      string
	watchdog *exec.Cmd
	watchIn  io.WriteCloser
	seq      int
	createMu sync.Mutex // serialises CREATE DATABASE (template1 is copied)
}

// Main runs the tests and then stops and removes the cluster (call from TestMain:
// func TestMain(m *testing.M) { pgtest.Main(m) }).
func Main(m *testing.M) {
	code := m.Run()
	if err := teardown(); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// ConnString creates a fresh database for the calling test (dropped in t.Cleanup) and
// returns a URL to it. Without PostgreSQL binaries it calls t.Skip with a clear message,
// except under CI=true where it is t.Fatal.
func ConnString(t testing.TB) string {
	t.Helper()
	c := Cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), dbTimeout)
	defer cancel()
	if _, err := c.Start(ctx); err != nil { // a test may have stopped it
		t.Fatalf("pgtest: %v", err)
	}

	shared.mu.Lock()
	shared.seq++
	name := dbName(t.Name(), shared.seq)
	shared.mu.Unlock()

	if err := execAdmin(ctx, c, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), dbTimeout)
		defer cancel()
		if err := dropDatabase(ctx, c, name); err != nil {
			t.Logf("pgtest: drop database %s: %v", name, err)
		}
	})
	return c.URL(name)
}

// Cluster returns the shared cluster (for tests that restart it or change settings).
// It is started on first use. Tests that stop or restart it should not run in parallel
// with tests using it; ConnString starts it again if it is stopped.
func Cluster(t testing.TB) *localpg.Cluster {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.done {
		shared.done = true
		shared.err, shared.skip = setup()
	}
	if shared.err != nil {
		if shared.skip && os.Getenv("CI") != "true" {
			t.Skipf("pgtest: skipping, no PostgreSQL to test against: %v", shared.err)
		}
		t.Fatalf("pgtest: %v", shared.err)
	}
	return shared.cluster
}

// setup creates and starts the cluster; skip is true when the error means that there
// are no binaries. Called with shared.mu held.
func setup() (err error, skip bool) {
	bins, err := localpg.FindBinaries(localpg.FindOptions{})
	if err != nil {
		var nf *localpg.NotFoundError
		return err, errors.As(err, &nf)
	}
	user, err := localpg.LookupOSUser("")
	if err != nil {
		return err, false
	}
	tmp, err := makeTempDir(user)
	if err != nil {
		return err, false
	}
	shared.tmp = tmp
	c, err := localpg.Open(localpg.Config{
		Name:     "pgtest",
		Dir:      filepath.Join(tmp, "c"),
		BinDir:   bins.Dir,
		Settings: testSettings,
		NoSync:   true,
	})
	if err != nil {
		os.RemoveAll(tmp)
		return err, false
	}
	startWatchdog(user, bins.Path("pg_ctl"), c.DataDir(), tmp)
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if _, err := c.Start(ctx); err != nil {
		c.Destroy(context.Background())
		os.RemoveAll(tmp)
		return fmt.Errorf("start the test cluster: %w", err), false
	}
	shared.cluster = c
	return nil, false
}

// makeTempDir creates the directory that holds the cluster, owned by the OS user that
// runs the server and reachable by it: the first of $TMPDIR, /var/tmp and /tmp whose
// path the user can traverse (as root, TMPDIR may be under a private home).
func makeTempDir(u localpg.OSUser) (string, error) {
	var errs []error
	for _, parent := range []string{os.TempDir(), "/var/tmp", "/tmp"} {
		if err := u.CanTraverse(parent); err != nil {
			errs = append(errs, err)
			continue
		}
		dir, err := os.MkdirTemp(parent, "pgtrial-pgtest-")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if u.Switch {
			if err := os.Chown(dir, int(u.UID), int(u.GID)); err != nil {
				os.RemoveAll(dir)
				return "", fmt.Errorf("chown %s to %s: %w", dir, u.Name, err)
			}
		}
		return dir, nil
	}
	return "", fmt.Errorf("no temporary directory that OS user %s can reach: %w", u.Name, errors.Join(errs...))
}

// watchdogScript waits for EOF on stdin (the test binary exited, however it exited),
// then stops the server and removes the directory. It ignores the signals that a
// terminal or go test sends to the test binary's process group.
const watchdogScript = `trap '' INT TERM HUP QUIT
cat >/dev/null
"$1" stop -D "$2" -m immediate -w -t 30 >/dev/null 2>&1
rm -rf "$3"`

// startWatchdog starts the watchdog as the OS user (pg_ctl refuses root) in its own
// process group. Without /bin/sh there is no watchdog; Main still cleans up.
func startWatchdog(u localpg.OSUser, pgCtl, dataDir, tmp string) {
	cmd := exec.Command("/bin/sh", "-c", watchdogScript, "pgtest-watchdog", pgCtl, dataDir, tmp)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	attr := u.SysProcAttr()
	if attr == nil {
		attr = new(syscall.SysProcAttr)
	}
	attr.Setpgid = true
	cmd.SysProcAttr = attr
	in, err := cmd.StdinPipe()
	if err != nil {
		return
	}
	if err := cmd.Start(); err != nil {
		in.Close()
		return
	}
	shared.watchdog, shared.watchIn = cmd, in
}

// teardown stops the server, removes the directory and ends the watchdog.
func teardown() error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	var errs []error
	if c := shared.cluster; c != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := c.Destroy(ctx); err != nil && !errors.Is(err, localpg.ErrNoCluster) {
			errs = append(errs, fmt.Errorf("destroy the test cluster: %w", err))
		}
		cancel()
		shared.cluster = nil
	}
	if shared.tmp != "" {
		if err := os.RemoveAll(shared.tmp); err != nil {
			errs = append(errs, err)
		}
		shared.tmp = ""
	}
	if shared.watchdog != nil {
		shared.watchIn.Close()
		waited := make(chan error, 1)
		go func() { waited <- shared.watchdog.Wait() }()
		select {
		case <-waited:
		case <-time.After(30 * time.Second):
			shared.watchdog.Process.Kill()
		}
		shared.watchdog = nil
	}
	return errors.Join(errs...)
}

// dbName makes a database name from the test name: "t_" + lower-case letters, digits
// and '_' (at most 40 of them) + "_" + a sequence number; well under the 63-byte limit.
func dbName(test string, seq int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(test) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	return fmt.Sprintf("t_%s_%d", b.String(), seq)
}

func execAdmin(ctx context.Context, c *localpg.Cluster, sql string) error {
	shared.createMu.Lock()
	defer shared.createMu.Unlock()
	conn, err := c.Connect(ctx, "postgres")
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

// dropDatabase drops a test's database, disconnecting sessions the test left open
// (DROP DATABASE … WITH (FORCE) on PostgreSQL 13+, pg_terminate_backend before).
func dropDatabase(ctx context.Context, c *localpg.Cluster, name string) error {
	if !c.Running() {
		return nil // stopped or destroyed by the test: nothing to drop in a live server
	}
	conn, err := c.Connect(ctx, "postgres")
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	ident := pgx.Identifier{name}.Sanitize()
	if c.Major() >= 13 {
		_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)")
		return err
	}
	if _, err := conn.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name); err != nil {
		return err
	}
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident)
	return err
}
