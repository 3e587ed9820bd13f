// Package format holds the formatters of every figure people read: a
// millisecond, a rate, a share, a size (IEC units), a duration. Package report
// renders with them, and so do the live lines of the commands (progress,
// status), so a figure looks the same everywhere. It imports nothing of
// pgtrial's but stats.
package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/stats"
)

// Missing is what stands for a figure that was not collected. A report that
// shows it also says why (report.Cell.Why, the evidence's reasons).
const Missing = "—"

// Sig3 is v with three significant digits, never in exponent form and
// without trailing zeros: 1234 → "1234", 41.25 → "41.2", 50 → "50",
// 0.0123 → "0.0123".
func Sig3(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Sprint(v)
	case a >= 100 || a == 0:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return trimZeros(strconv.FormatFloat(v, 'f', 1, 64))
	case a >= 1:
		return trimZeros(strconv.FormatFloat(v, 'f', 2, 64))
	default:
		// 0.0123 → "0.0123": digits after the point = 2 − ⌊log10 a⌋.
		digits := min(2-int(math.Floor(math.Log10(a))), 9)
		return trimZeros(strconv.FormatFloat(v, 'f', digits, 64))
	}
}

// trimZeros removes trailing zeros after a decimal point, and the point.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Ms is a latency in milliseconds with three significant digits and no unit
// (the unit is in the column's head): 41.25 → "41.2", 0.512 → "0.512".
// Aligned tables of one run use MsFixed instead.
func Ms(ms float64) string {
	switch {
	case math.IsNaN(ms) || math.IsInf(ms, 0):
		return fmt.Sprint(ms)
	case ms >= 100:
		return strconv.FormatFloat(ms, 'f', 0, 64)
	case ms >= 10:
		return strconv.FormatFloat(ms, 'f', 1, 64)
	case ms >= 1:
		return strconv.FormatFloat(ms, 'f', 2, 64)
	}
	return strconv.FormatFloat(ms, 'f', 3, 64)
}

// MsFixed is a latency in milliseconds with three decimals (the
// microsecond), for aligned columns: 41.25 → "41.250".
func MsFixed(ms float64) string { return strconv.FormatFloat(ms, 'f', 3, 64) }

// Rate is a rate in transactions (or calls, rows) per second with one
// decimal and no unit: 1234.56 → "1234.6".
func Rate(r float64) string { return strconv.FormatFloat(r, 'f', 1, 64) }

// Share is a fraction (0–1) as a percentage with two decimals and the unit:
// 0.01234 → "1.23 %".
func Share(f float64) string { return strconv.FormatFloat(100*f, 'f', 2, 64) + " %" }

// Pct is a fraction (0–1) as a percentage with the digits that matter:
// 0.123 → "12 %", 0.0123 → "1.2 %", 0.00012 → "0.01 %".
func Pct(f float64) string {
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

// SignedPct is Pct with a sign for positive values: "+12 %", "-3.1 %".
func SignedPct(f float64) string {
	if f > 0 {
		return "+" + Pct(f)
	}
	return Pct(f)
}

// Bytes is a size in IEC units (powers of 1024): 512 → "512 B",
// 1536 → "1.5 KiB", 268435456 → "256 MiB", 1181116006 → "1.1 GiB".
// A whole number of units, or a value of 10 or more, has no decimal.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	v := float64(n)
	i := -1
	for math.Abs(v) >= unit && i < 5 {
		v /= unit
		i++
	}
	suffix := [...]string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}[i]
	if math.Abs(v) < 10 && v != math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 1, 64) + " " + suffix
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " " + suffix
}

// Duration is d with three significant digits in the largest unit that
// keeps it ≥ 1: "850 µs", "41.2 ms", "1.25 s", "29 s", "90 s"; from ten
// minutes on, minutes and seconds: "10 min", "12 min 30 s".
func Duration(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + Duration(-d)
	case d >= 10*time.Minute:
		d = d.Round(time.Second)
		m, s := d/time.Minute, (d%time.Minute)/time.Second
		if s == 0 {
			return fmt.Sprintf("%d min", m)
		}
		return fmt.Sprintf("%d min %d s", m, s)
	case d >= time.Second:
		return Sig3(d.Seconds()) + " s"
	case d >= time.Millisecond:
		return Sig3(float64(d)/float64(time.Millisecond)) + " ms"
	case d == 0:
		return "0 s"
	default:
		return Sig3(float64(d)/float64(time.Microsecond)) + " µs"
	}
}

// Seconds is Duration of a number of seconds.
func Seconds(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return "?"
	}
	return Duration(time.Duration(s * float64(time.Second)))
}

// Spread is "median (min–max)" of vals, each formatted by f; one value is
// itself; no values is Missing.
func Spread(vals []float64, f func(float64) string) string {
	if len(vals) == 0 {
		return Missing
	}
	s := stats.Summarize(vals)
	if s.N == 1 {
		return f(s.Median)
	}
	return f(s.Median) + " (" + f(s.Min) + "–" + f(s.Max) + ")"
}

// OneLine is s with its blanks collapsed, cut to n runes (the cut marked
// with "…").
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Plural is one when n is 1, else many: Plural(3, "run", "runs").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
