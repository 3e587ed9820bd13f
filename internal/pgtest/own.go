package pgtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/localpg"
)

// OwnCluster creates and starts a throwaway cluster for the calling test alone,
// with the shared cluster's test settings: for tests that freeze, kill or restart
// the server, which must not disturb the other tests of the binary. It is
// destroyed in t.Cleanup (thawed first if Freeze left it stopped); a watchdog does
// the same if the test binary dies. Without PostgreSQL binaries it skips as
// Cluster does. The test connects to its "postgres" database (c.URL("postgres")).
func OwnCluster(t testing.TB) *localpg.Cluster {
	t.Helper()
	bins, err := localpg.FindBinaries(localpg.FindOptions{})
	if err != nil {
		var nf *localpg.NotFoundError
		if errors.As(err, &nf) && os.Getenv("CI") != "true" {
			t.Skipf("pgtest: skipping, no PostgreSQL to test against: %v", err)
		}
		t.Fatalf("pgtest: %v", err)
	}
	user, err := localpg.LookupOSUser("")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	tmp, err := makeTempDir(user)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	c, err := localpg.Open(localpg.Config{
		Name:     "pgtest-own",
		Dir:      filepath.Join(tmp, "c"),
		BinDir:   bins.Dir,
		Settings: testSettings,
		NoSync:   true,
	})
	if err != nil {
		os.RemoveAll(tmp)
		t.Fatalf("pgtest: %v", err)
	}
	watchIn, watchdog := startOwnWatchdog(user, bins.Path("pg_ctl"), c.DataDir(), tmp)
	t.Cleanup(func() {
		thaw(c)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Destroy(ctx); err != nil && !errors.Is(err, localpg.ErrNoCluster) {
			t.Errorf("pgtest: destroy the test's own cluster: %v", err)
		}
		os.RemoveAll(tmp)
		if watchdog != nil {
			watchIn.Close()
			waited := make(chan error, 1)
			go func() { waited <- watchdog.Wait() }()
			select {
			case <-waited:
			case <-time.After(30 * time.Second):
				watchdog.Process.Kill()
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if _, err := c.Start(ctx); err != nil {
		t.Fatalf("pgtest: start the test's own cluster: %v", err)
	}
	return c
}

// ownWatchdogScript is watchdogScript that first sends SIGCONT to the postmaster
// and its children (a test that froze the server and died).
const ownWatchdogScript = `trap '' INT TERM HUP QUIT
cat >/dev/null
pid=$(head -n 1 "$2/postmaster.pid" 2>/dev/null)
if [ -n "$pid" ]; then
  kill -CONT "$pid" 2>/dev/null
  for s in /proc/[0-9]*/stat; do
    read -r line <"$s" 2>/dev/null || continue
    rest=${line##*) }
    set -- "$1" "$2" "$3" $rest
    child=${s#/proc/}
    [ "$5" = "$pid" ] && kill -CONT "${child%/stat}" 2>/dev/null
    set -- "$1" "$2" "$3"
  done
fi
"$1" stop -D "$2" -m immediate -w -t 30 >/dev/null 2>&1
rm -rf "$3"`

func startOwnWatchdog(u localpg.OSUser, pgCtl, dataDir, tmp string) (inPipe interface{ Close() error }, cmd *exec.Cmd) {
	cmd = exec.Command("/bin/sh", "-c", ownWatchdogScript, "pgtest-watchdog", pgCtl, dataDir, tmp)
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
		return nil, nil
	}
	if err := cmd.Start(); err != nil {
		in.Close()
		return nil, nil
	}
	return in, cmd
}

// Freeze stops the cluster's server with SIGSTOP — the postmaster and every
// process it started (backends, background workers): the server then accepts
// TCP connections (the kernel's backlog) and answers nothing, as a server
// that hangs. It returns thaw, which sends SIGCONT to all of them (and to any
// child found since); thaw is also called in t.Cleanup, so the server is
// never left stopped. Linux only (/proc).
func Freeze(t testing.TB, c *localpg.Cluster) (thawFn func()) {
	t.Helper()
	pm := postmasterPID(c)
	if pm == 0 {
		t.Fatalf("pgtest: freeze: no postmaster pid in %s", c.DataDir())
	}
	// The postmaster first, so that it starts no process while its
	// children are being stopped; then its children, twice (a child forked
	// just before the postmaster stopped).
	if err := syscall.Kill(pm, syscall.SIGSTOP); err != nil {
		t.Fatalf("pgtest: freeze: SIGSTOP postmaster %d: %v", pm, err)
	}
	for range 2 {
		for _, pid := range childrenOf(pm) {
			syscall.Kill(pid, syscall.SIGSTOP)
		}
	}
	t.Cleanup(func() { thaw(c) })
	return func() { thaw(c) }
}

// thaw sends SIGCONT to the postmaster and its children; it does nothing
// without a running postmaster.
func thaw(c *localpg.Cluster) {
	pm := postmasterPID(c)
	if pm == 0 {
		return
	}
	for _, pid := range childrenOf(pm) {
		syscall.Kill(pid, syscall.SIGCONT)
	}
	syscall.Kill(pm, syscall.SIGCONT)
}

// postmasterPID is the first line of postmaster.pid (0 when there is none).
func postmasterPID(c *localpg.Cluster) int {
	data, err := os.ReadFile(filepath.Join(c.DataDir(), "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// childrenOf lists the processes whose parent is ppid (/proc/PID/stat's
// fourth field, after the command name in parentheses).
func childrenOf(ppid int) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	want := strconv.Itoa(ppid)
	for _, path := range dirs {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[1] != want {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
