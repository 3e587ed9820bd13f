package prng

import (
	"syscall"
	"time"
	"unsafe"
)

// monotonicMicros is pgbench's pg_time_now(): CLOCK_MONOTONIC in µs.
func monotonicMicros() uint64 {
	const clockMonotonic = 1 // CLOCK_MONOTONIC
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return uint64(time.Now().UnixMicro())
	}
	return uint64(ts.Sec)*1_000_000 + uint64(ts.Nsec)/1_000
}
