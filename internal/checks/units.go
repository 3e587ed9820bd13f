package checks

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// PostgreSQL prints settings with units the way SHOW does ("128MB",
// "5min"); a bare number is in the setting's own unit (shared_buffers: 8 kB
// blocks; checkpoint_timeout: seconds). The units and their factors are
// PostgreSQL's (guc.c, memory_unit_conversion_table and
// time_unit_conversion_table): memory units are powers of 1024 and
// case-sensitive there; they are accepted in any case here.

// blockSize is BLCKSZ, the unit of shared_buffers without a unit. 8 kB is
// the default build; a server built otherwise prints shared_buffers with a
// unit in SHOW anyway.
const blockSize = 8192

// parseBytes reads a memory setting; unit is the size of one unit of a bare
// number (blockSize for shared_buffers).
func parseBytes(s string, unit int64) (int64, error) {
	num, suffix := splitNumber(s)
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	factor := float64(unit)
	switch strings.ToLower(suffix) {
	case "":
	case "b":
		factor = 1
	case "kb":
		factor = 1 << 10
	case "mb":
		factor = 1 << 20
	case "gb":
		factor = 1 << 30
	case "tb":
		factor = 1 << 40
	default:
		return 0, fmt.Errorf("not a size: %q (unit %q; PostgreSQL's are B, kB, MB, GB, TB)", s, suffix)
	}
	b := v * factor
	if b >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(b), nil
}

// parseDuration reads a time setting; unit is the duration of one unit of a
// bare number (time.Second for checkpoint_timeout).
func parseDuration(s string, unit time.Duration) (time.Duration, error) {
	num, suffix := splitNumber(s)
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a duration: %q", s)
	}
	factor := unit
	switch suffix {
	case "":
	case "us":
		factor = time.Microsecond
	case "ms":
		factor = time.Millisecond
	case "s":
		factor = time.Second
	case "min":
		factor = time.Minute
	case "h":
		factor = time.Hour
	case "d":
		factor = 24 * time.Hour
	default:
		return 0, fmt.Errorf("not a duration: %q (unit %q; PostgreSQL's are us, ms, s, min, h, d)", s, suffix)
	}
	d := v * float64(factor)
	if d >= math.MaxInt64 {
		return 0, fmt.Errorf("duration %q is too long", s)
	}
	return time.Duration(d), nil
}

// splitNumber splits "128MB" into "128" and "MB" (spaces around either are
// ignored).
func splitNumber(s string) (num, suffix string) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool {
		return (r < '0' || r > '9') && r != '.' && r != '-' && r != '+'
	})
	if i < 0 {
		return s, ""
	}
	return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i:])
}

// fmtP prints a p-value: "p = 0.032", "p < 1e-06".
func fmtP(p float64) string {
	if p < 1e-6 {
		return "p < 1e-06"
	}
	return fmt.Sprintf("p = %.2g", p)
}
