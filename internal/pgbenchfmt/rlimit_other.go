//go:build !unix

package pgbenchfmt

import "math"

// noFileLimit: no RLIMIT_NOFILE here (pgbench skips the check without getrlimit).
func noFileLimit() (uint64, error) { return math.MaxUint64, nil }
