package localpg

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// A process that has exited but is not reaped is a zombie: postmasterPID
// must not count it as a running postmaster (kill -9, then "local start"
// said "already running" until init reaped it).
func TestZombieIsNotRunning(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	pid := cmd.Process.Pid
	defer cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for !zombie(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not become a zombie within 5 s", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if zombie(os.Getpid()) {
		t.Error("the test process reads as a zombie")
	}
}
