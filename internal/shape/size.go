package shape

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/prng"
)

// Kinds of generated value (Sizes.Kind).
const (
	PadText = "pad"  // text of hex digits
	PadJSON = "json" // a JSON object {"seq": n, "pad": "<hex digits>"}
)

// Sizes is a distribution of value sizes: uniform in [Min, Max] bytes.
type Sizes struct {
	Kind     string // PadText or PadJSON
	Min, Max int
}

// maxValue bounds one value (bytes): far above a page, far below the 1 GB
// field limit, so that a batch stays a few megabytes.
const maxValue = 1 << 20

// ParseSizes reads "1KB-8KB", "4KB", "500-2000" (bytes; KB = 1024 bytes).
func ParseSizes(kind, spec string) (Sizes, error) {
	lo, hi, isRange := strings.Cut(spec, "-")
	a, err := parseBytes(lo)
	if err != nil {
		return Sizes{}, fmt.Errorf("--size %q: %w", spec, err)
	}
	b := a
	if isRange {
		if b, err = parseBytes(hi); err != nil {
			return Sizes{}, fmt.Errorf("--size %q: %w", spec, err)
		}
	}
	if a < 2 || b < a || b > maxValue {
		return Sizes{}, fmt.Errorf("--size %q: want MIN-MAX with 2 <= MIN <= MAX <= 1MB", spec)
	}
	return Sizes{Kind: kind, Min: a, Max: b}, nil
}

func parseBytes(s string) (int, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	mult := 1
	for _, u := range []struct {
		suffix string
		m      int
	}{{"KB", 1 << 10}, {"K", 1 << 10}, {"MB", 1 << 20}, {"M", 1 << 20}, {"B", 1}} {
		if before, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(before), u.m
			break
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size (bytes, KB or MB)", s)
	}
	return n * mult, nil
}

// String is the size distribution, e.g. "json of 1024–8192 bytes".
func (z Sizes) String() string {
	return fmt.Sprintf("%s of %d–%d bytes (uniform)", z.Kind, z.Min, z.Max)
}

// valueMaker makes the values of a Sizes from one seeded stream.
type valueMaker struct {
	z  Sizes
	st prng.State
	b  []byte
}

const hexDigits = "0123456789abcdef"

// next is the value of row seq: its size drawn uniformly in [Min, Max]
// bytes, its content hex digits from the stream (incompressible enough that
// pglz gives up: a value over about 2 KB goes out of line to TOAST).
func (m *valueMaker) next(seq int64) string {
	size := int(m.st.Uniform(int64(m.z.Min), int64(m.z.Max)))
	m.b = m.b[:0]
	fill := size
	if m.z.Kind == PadJSON {
		m.b = fmt.Appendf(m.b, `{"seq": %d, "pad": "`, seq)
		fill = size - len(m.b) - 2 // the closing `"}`
	}
	for i := 0; i < fill; i += 16 {
		x := m.st.Next()
		for j := 0; j < 16 && i+j < fill; j++ {
			m.b = append(m.b, hexDigits[x&15])
			x >>= 4
		}
	}
	if m.z.Kind == PadJSON {
		m.b = append(m.b, `"}`...)
	}
	return string(m.b)
}
