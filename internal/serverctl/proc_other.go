//go:build !unix

package serverctl

import "os/exec"

// ownProcessGroup does nothing here: cancellation kills the shell only, and
// commandWaitDelay bounds how long its children may hold the output open.
func ownProcessGroup(cmd *exec.Cmd) {}
