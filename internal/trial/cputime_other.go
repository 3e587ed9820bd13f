//go:build !unix

package trial

import "time"

// ProcessCPU is not available here: getrusage(2) is a unix call.
func ProcessCPU() (time.Duration, bool) { return 0, false }
