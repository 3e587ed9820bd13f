package cli

import (
	"bytes"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// interrupted is what a pgtrial process did when interruptRun stopped it.
type interrupted struct {
	err            error         // cmd.Wait's: an *exec.ExitError for a non-zero status
	stdout, stderr string        // all it wrote
	took           time.Duration // from SIGINT to its exit
}

// interruptRun runs the pgtrial binary bin with args, whose run directory is
// dir; once the run has written two timeline rows and minRun has passed since
// the start, it sends SIGINT and waits for the exit. It fails the test when
// the rows do not come within 20 s or the exit within 10 s of the signal.
func interruptRun(t *testing.T, bin, dir string, minRun time.Duration, args ...string) interrupted {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	}()
	began := time.Now()
	for {
		rows, _ := results.ReadTimeline(dir)
		if len(rows) >= 2 && time.Since(began) >= minRun {
			break
		}
		if time.Since(began) > 20*time.Second {
			t.Fatalf("%d timeline rows after 20 s\nstderr:\n%s", len(rows), stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		return interrupted{err: err, stdout: stdout.String(), stderr: stderr.String(), took: time.Since(sent)}
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after SIGINT\nstderr:\n%s", stderr.String())
		return interrupted{}
	}
}
