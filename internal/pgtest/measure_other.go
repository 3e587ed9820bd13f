//go:build !unix

package pgtest

import "testing"

// Measure is a no-op where flock(2) is not available (see measure.go).
func Measure(t testing.TB) {}
