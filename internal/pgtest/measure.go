//go:build unix

package pgtest

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// measureWait bounds how long Measure waits for another test binary's
// measurement (the longest, an experiment test, takes about a minute).
const measureWait = 5 * time.Minute

// Measure keeps tests whose assertions depend on the machine's capacity
// (an open-model rate derived from a closed run just before it, the
// direction of a statistical comparison, a capacity search) from running
// at the same time as each other, across the test binaries `go test ./...`
// runs in parallel: on a 2-core machine two such tests take each other's
// CPU and each sees a machine that changes under it. It takes an exclusive
// flock on a file in the temporary directory for the rest of the test
// (released in t.Cleanup); after measureWait it goes on without it and says
// so. Tests that call it should not call t.Parallel.
func Measure(t testing.TB) {
	t.Helper()
	path := filepath.Join(os.TempDir(), "pgtrial-measure.lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Logf("pgtest: measurement lock %s: %v; going on without it", path, err)
		return
	}
	start := time.Now()
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) || time.Since(start) > measureWait {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		f.Close()
		t.Logf("pgtest: measurement lock %s not taken after %v: %v; going on without it", path, time.Since(start).Round(time.Second), err)
		return
	}
	if d := time.Since(start); d > time.Second {
		t.Logf("pgtest: waited %v for another test's measurement", d.Round(time.Second))
	}
	t.Cleanup(func() { f.Close() }) // closing the file releases the lock
}
