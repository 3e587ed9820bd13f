//go:build !unix

package cli

import "time"

// processCPU is not available here: getrusage(2) is a unix call.
func processCPU() (time.Duration, bool) { return 0, false }
