//go:build unix

package trial

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time (user + system) this process has used so far,
// all threads, from getrusage(2); false when it cannot be read.
func ProcessCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
