//go:build !linux

package prng

import "time"

// monotonicMicros stands in for pgbench's pg_time_now() where
// CLOCK_MONOTONIC is not read directly: the wall clock in µs.
func monotonicMicros() uint64 {
	return uint64(time.Now().UnixMicro())
}
