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

// fmtBytes prints a size with a binary unit: "256 MiB", "1.1 GiB".
func fmtBytes(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	v := float64(b)
	i := -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	suffix := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[i]
	if v < 10 && v != math.Trunc(v) {
		return fmt.Sprintf("%.1f %s", v, suffix)
	}
	return fmt.Sprintf("%.0f %s", v, suffix)
}

// fmtSeconds prints seconds as a Go duration rounded to what matters:
// "90s", "10m0s", "1.5s".
func fmtSeconds(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return "?"
	}
	d := time.Duration(s * float64(time.Second))
	if d >= 10*time.Second {
		return d.Round(time.Second).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// pct prints a fraction as a percentage: 0.123 → "12 %", 0.0123 → "1.2 %".
func pct(f float64) string {
	switch a := math.Abs(f); {
	case a == 0:
		return "0 %"
	case a < 0.001:
		return fmt.Sprintf("%.2f %%", 100*f)
	case a < 0.1:
		return fmt.Sprintf("%.1f %%", 100*f)
	default:
		return fmt.Sprintf("%.0f %%", 100*f)
	}
}

// signedPct is pct with a sign: "+12 %", "-3.1 %".
func signedPct(f float64) string {
	if f > 0 {
		return "+" + pct(f)
	}
	return pct(f)
}

// fmtP prints a p-value: "p = 0.032", "p < 1e-06".
func fmtP(p float64) string {
	if p < 1e-6 {
		return "p < 1e-06"
	}
	return fmt.Sprintf("p = %.2g", p)
}
