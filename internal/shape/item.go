package shape

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseItem reads one shaping written compactly, as pgtrial init's --shape
// takes it: TABLE.COLUMN=DIST[,permute][,min=N][,max=N][,seed=N] with DIST as
// ParseDist reads it ("pgbench_accounts.bid=zipf:s=1.1,max=10"), or
// TABLE.COLUMN=pad:SIZE / TABLE.COLUMN=json:SIZE with SIZE as ParseSizes
// reads it ("events.payload=json:1KB-8KB"). The table may be schema-qualified
// (the column is after the last dot). Seed defaults to 1.
func ParseItem(spec string) (Config, error) {
	c := Config{Seed: 1}
	lhs, rhs, ok := strings.Cut(spec, "=")
	dot := strings.LastIndexByte(lhs, '.')
	if !ok || dot <= 0 || dot == len(lhs)-1 {
		return c, fmt.Errorf("--shape %q: want TABLE.COLUMN=DIST (zipf:s=1.1, loguniform:n=N, exponential:p=P, gaussian:p=P, uniform) or TABLE.COLUMN=json:SIZE / pad:SIZE, e.g. pgbench_accounts.bid=zipf:s=1.1,max=10", spec)
	}
	c.Table, c.Column = strings.TrimSpace(lhs[:dot]), strings.TrimSpace(lhs[dot+1:])
	parts := strings.Split(rhs, ",")
	head := strings.TrimSpace(parts[0])
	if kind, size, isSize := strings.Cut(head, ":"); isSize && (kind == PadText || kind == PadJSON) {
		if len(parts) > 1 {
			return c, fmt.Errorf("--shape %q: %s:SIZE takes no options (%s)", spec, kind, strings.Join(parts[1:], ","))
		}
		z, err := ParseSizes(kind, size)
		if err != nil {
			return c, fmt.Errorf("--shape %q: %w", spec, err)
		}
		c.Sizes = &z
		return c, nil
	}
	d, err := ParseDist(head)
	if err != nil {
		return c, fmt.Errorf("--shape %q: %w", spec, err)
	}
	d.Min = 1
	for _, o := range parts[1:] {
		name, val, hasVal := strings.Cut(strings.TrimSpace(o), "=")
		switch {
		case name == "permute" && !hasVal:
			d.Permute = true
		case hasVal && (name == "min" || name == "max"):
			n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if err != nil {
				return c, fmt.Errorf("--shape %q: %s=%q is not a whole number", spec, name, val)
			}
			if name == "min" {
				d.Min = n
			} else {
				d.Max, c.MaxSet = n, true
			}
		case hasVal && name == "seed":
			n, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64)
			if err != nil {
				return c, fmt.Errorf("--shape %q: seed=%q is not an unsigned whole number", spec, val)
			}
			c.Seed = n
		default:
			return c, fmt.Errorf("--shape %q: unknown option %q; give permute, min=N, max=N or seed=N", spec, o)
		}
	}
	c.Dist = &d
	return c, nil
}
