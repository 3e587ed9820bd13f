//go:build unix

package pgbenchfmt

import "syscall"

// noFileLimit returns the hard limit on open files (getrlimit RLIMIT_NOFILE).
func noFileLimit() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	return uint64(r.Max), nil
}
