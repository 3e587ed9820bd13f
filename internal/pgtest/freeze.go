package pgtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pgtrial/pgtrial/internal/localpg"
)

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
