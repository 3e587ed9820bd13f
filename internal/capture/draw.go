package capture

// Parameters drawn from pg_stats. For a parameter compared with column c:
//
//   - with probability f_i / (1 − null_frac) c's i-th most common value
//     (most_common_vals, most_common_freqs), NULLs left out (a parameter
//     that is NULL matches nothing);
//   - otherwise a value from the histogram (histogram_bounds, equal-count
//     buckets over the values that are not most common): for an integer
//     column a bucket uniformly, then an integer uniformly between its two
//     bounds; for any other type one of the bounds uniformly.
//
// pgbench's \set holds integers and doubles only, so an integer parameter
// is a \set variable sent as it is (:pN), and any other one (text, numeric,
// dates, booleans, …) is an index into an array literal of the values, of
// the column's type, chosen on the SQL side: ('{v1,v2,…}'::type[])[:pN]
// (PostgreSQL's arrays start at 1).
//
// The choice is one uniform u = random(0, 999999) (parts per million)
// compared with the cumulative frequencies in a CASE.

import (
	"fmt"
	"strconv"
	"strings"
)

// ppm is the resolution of the choice: u is in [0, ppm).
const ppm = 1_000_000

// colStats is a column's pg_stats row.
type colStats struct {
	table    string // schema.table, quoted as needed
	column   string
	typ      string // format_type(atttypid, atttypmod)
	integer  bool   // int2, int4, int8 (and every value read as an integer)
	nullFrac float64
	mcv      []string
	freqs    []float64
	hist     []string
	hasRow   bool   // pg_stats has a row for the column
	via      string // "" or, for a row borrowed from another column, whence (for the README)
}

// drawing is what a parameter becomes in a script: the \set lines and the
// SQL expression that replaces $n.
type drawing struct {
	sets []string
	expr string
	how  string // in words, for the README
}

// draw makes parameter n's drawing from s, or says why it cannot.
func draw(n int, s *colStats) (drawing, error) {
	v := "p" + strconv.Itoa(n)
	if len(s.mcv) == 0 && len(s.hist) == 0 {
		return drawing{}, fmt.Errorf("pg_stats has neither most common values nor a histogram for %s.%s (ANALYZE the table on the source)", s.table, s.column)
	}
	if len(s.mcv) != len(s.freqs) {
		return drawing{}, fmt.Errorf("pg_stats of %s.%s: %d most common values but %d frequencies", s.table, s.column, len(s.mcv), len(s.freqs))
	}
	nonNull := 1 - s.nullFrac
	if nonNull <= 0 {
		return drawing{}, fmt.Errorf("%s.%s is all NULL in pg_stats", s.table, s.column)
	}
	var sumF float64
	for _, f := range s.freqs {
		sumF += f
	}
	// thresholds[i]: u below it picks MCV i (cumulative, in ppm of the
	// non-NULL rows); the rest goes to the histogram.
	thresholds := make([]int, len(s.mcv))
	var cum float64
	for i, f := range s.freqs {
		cum += f
		thresholds[i] = int(cum / nonNull * ppm)
	}
	if len(s.hist) == 0 && len(thresholds) > 0 {
		thresholds[len(thresholds)-1] = ppm // the MCVs are all there is
	}
	if s.integer && len(s.mcv) == 1 && len(s.hist) == 0 {
		return drawing{sets: []string{fmt.Sprintf(`\set %s %s`, v, s.mcv[0])}, expr: ":" + v,
			how: fmt.Sprintf("%s.%s: its one most common value, %s", s.table, s.column, s.mcv[0])}, nil
	}
	d := drawing{how: fmt.Sprintf("%s.%s: %d most common values (%.1f %% of the rows), %d histogram bounds", s.table, s.column, len(s.mcv), 100*sumF, len(s.hist))}
	u := ":" + v + "_u"
	d.sets = append(d.sets, fmt.Sprintf(`\set %s_u random(0, %d)`, v, ppm-1))
	var b strings.Builder
	b.WriteString("case")
	if s.integer {
		for i, m := range s.mcv {
			fmt.Fprintf(&b, " when %s < %d then %s", u, thresholds[i], m)
		}
		switch {
		case len(s.hist) >= 2:
			d.sets = append(d.sets, fmt.Sprintf(`\set %s_b random(0, %d)`, v, len(s.hist)-2))
			var h strings.Builder
			h.WriteString("case")
			for i := 0; i+1 < len(s.hist); i++ {
				fmt.Fprintf(&h, " when :%s_b = %d then random(%s, %s)", v, i, s.hist[i], s.hist[i+1])
			}
			h.WriteString(" end")
			fmt.Fprintf(&b, " else %s end", h.String())
		case len(s.hist) == 1:
			fmt.Fprintf(&b, " else %s end", s.hist[0])
		default:
			fmt.Fprintf(&b, " else %s end", s.mcv[len(s.mcv)-1])
		}
		if len(s.mcv) == 0 {
			d.sets = d.sets[1:] // no MCVs: u is not needed
			d.sets = append(d.sets, fmt.Sprintf(`\set %s %s`, v, strings.TrimSuffix(strings.TrimPrefix(b.String(), "case else "), " end")))
		} else {
			d.sets = append(d.sets, fmt.Sprintf(`\set %s %s`, v, b.String()))
		}
		d.expr = ":" + v
		return d, nil
	}
	// Other types: an index into MCVs ++ histogram bounds.
	values := append(append([]string(nil), s.mcv...), s.hist...)
	for i := range s.mcv {
		fmt.Fprintf(&b, " when %s < %d then %d", u, thresholds[i], i+1)
	}
	if len(s.hist) > 0 {
		fmt.Fprintf(&b, " else random(%d, %d) end", len(s.mcv)+1, len(values))
	} else {
		fmt.Fprintf(&b, " else %d end", len(s.mcv))
	}
	d.sets = append(d.sets, fmt.Sprintf(`\set %s %s`, v, b.String()))
	d.expr = fmt.Sprintf("(%s::%s[])[:%s]", sqlLiteral(arrayLiteral(values)), s.typ, v)
	return d, nil
}

// parseArray splits a one-dimensional array's text form ({a,"b c",NULL})
// into its elements, unquoted; NULL elements are left out.
func parseArray(text string) ([]string, error) {
	text = strings.TrimSpace(text)
	if len(text) < 2 || text[0] != '{' || text[len(text)-1] != '}' {
		return nil, fmt.Errorf("not an array literal: %.40q", text)
	}
	body := text[1 : len(text)-1]
	var out []string
	for i := 0; i < len(body); {
		var b strings.Builder
		quoted := false
		if body[i] == '"' {
			quoted = true
			i++
			for i < len(body) && body[i] != '"' {
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				b.WriteByte(body[i])
				i++
			}
			i++ // closing quote
		} else {
			for i < len(body) && body[i] != ',' {
				b.WriteByte(body[i])
				i++
			}
		}
		if e := b.String(); quoted || !strings.EqualFold(e, "NULL") {
			out = append(out, e)
		}
		if i < len(body) && body[i] == ',' {
			i++
		} else if i < len(body) {
			return nil, fmt.Errorf("array literal: unexpected %q at %d", body[i], i)
		}
	}
	return out, nil
}

// arrayLiteral writes values as an array's text form, every element quoted.
func arrayLiteral(values []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// sqlLiteral quotes s as a standard-conforming SQL string literal.
func sqlLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
