//go:build unix

package serverctl

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup runs cmd in a process group of its own and makes cancellation kill
// the whole group: sh -c's children (an ssh, a sleep) die with it instead of holding
// its output open.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// A negative pid signals the group, whose id is the shell's pid.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
