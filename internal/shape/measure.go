package shape

import (
	"context"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/report/format"
)

// Result is the shape a column has: what Measure reads, and what Run did.
type Result struct {
	Table    string `json:"table"`
	Column   string `json:"column"`
	Rows     int64  `json:"rows"`
	Distinct int64  `json:"distinct"` // distinct non-null values
	// TopKeys is the number of keys in the top 1 %: ceil(Distinct / 100),
	// the most frequent; TopShare is the share of the rows they hold.
	TopKeys  int64   `json:"top_keys"`
	TopShare float64 `json:"top_share"`
	// TopKey is the most frequent value and TopKeyShare its share of the rows.
	TopKey      string  `json:"top_key"`
	TopKeyShare float64 `json:"top_key_share"`
	// AvgBytes is the mean stored size of the column's non-null values
	// (pg_column_size: after compression, out-of-line values too).
	AvgBytes float64 `json:"avg_bytes"`
	// TableBytes is pg_table_size (heap, TOAST, free space and visibility
	// maps; no indexes); ToastBytes is pg_relation_size of reltoastrelid
	// with its index (pg_total_relation_size); ToastShare = ToastBytes /
	// TableBytes.
	TableBytes int64   `json:"table_bytes"`
	ToastBytes int64   `json:"toast_bytes"`
	ToastShare float64 `json:"toast_share"`
	// What Run did (zero for Measure alone).
	Updated   int64         `json:"updated,omitempty"`
	Generated string        `json:"generated,omitempty"` // the distribution or size distribution
	Seed      uint64        `json:"seed,omitempty"`
	Elapsed   time.Duration `json:"-"` // in JSON outputs as elapsed_s (the shape command's)
}

// Measure reads the shape of column col of table tbl (quoted SQL names):
// one scan grouping by the column.
func Measure(ctx context.Context, conn *pgx.Conn, tbl, col string) (*Result, error) {
	r := &Result{Table: tbl, Column: col}
	q := fmt.Sprintf(`with f as (select %[2]s::text as v, count(*) as n from %[1]s where %[2]s is not null group by %[2]s),
	     r as (select v, n, row_number() over (order by n desc, v) as rk, count(*) over () as d from f)
	select (select count(*) from %[1]s), coalesce(max(d), 0),
	       coalesce(sum(n) filter (where rk <= ceil(d / 100.0)), 0),
	       coalesce(max(v) filter (where rk = 1), ''), coalesce(max(n) filter (where rk = 1), 0),
	       (select coalesce(avg(pg_column_size(%[2]s)), 0)::float8 from %[1]s)
	  from r`, tbl, col)
	var top, first int64
	if err := conn.QueryRow(ctx, q).Scan(&r.Rows, &r.Distinct, &top, &r.TopKey, &first, &r.AvgBytes); err != nil {
		return nil, fmt.Errorf("shape: measure %s.%s: %w", tbl, col, err)
	}
	r.TopKeys = (r.Distinct + 99) / 100
	if r.Rows > 0 {
		r.TopShare = float64(top) / float64(r.Rows)
		r.TopKeyShare = float64(first) / float64(r.Rows)
	}
	err := conn.QueryRow(ctx,
		`select pg_table_size(c.oid), coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0)
		   from pg_class c where c.oid = $1::regclass`, tbl).Scan(&r.TableBytes, &r.ToastBytes)
	if err != nil {
		return nil, fmt.Errorf("shape: sizes of %s: %w", tbl, err)
	}
	if r.TableBytes > 0 {
		r.ToastShare = float64(r.ToastBytes) / float64(r.TableBytes)
	}
	return r, nil
}

// Print writes the result for people.
func (r *Result) Print(w io.Writer) {
	if r.Generated != "" {
		fmt.Fprintf(w, "shaped:    %s.%s: %d rows rewritten in %.1f s (%s, seed %d)\n",
			r.Table, r.Column, r.Updated, r.Elapsed.Seconds(), r.Generated, r.Seed)
	}
	fmt.Fprintf(w, "rows:      %d\n", r.Rows)
	fmt.Fprintf(w, "distinct:  %d values of %s\n", r.Distinct, r.Column)
	fmt.Fprintf(w, "top 1 %%:   the %d most frequent values hold %.1f %% of the rows (the first, %s, %.1f %%)\n",
		r.TopKeys, 100*r.TopShare, shortValue(r.TopKey), 100*r.TopKeyShare)
	fmt.Fprintf(w, "size:      %.0f bytes a value on average, as stored (pg_column_size)\n", r.AvgBytes)
	fmt.Fprintf(w, "TOAST:     %.1f %% of the table (%s of %s)\n", 100*r.ToastShare, format.Bytes(r.ToastBytes), format.Bytes(r.TableBytes))
}

// shortValue cuts a long value (a padding) to its first 40 bytes and "…".
func shortValue(v string) string {
	if len(v) <= 40 {
		return v
	}
	i := 40
	for i > 0 && !utf8.RuneStart(v[i]) {
		i--
	}
	return v[:i] + "…"
}
