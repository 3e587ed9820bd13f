package mask

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// mask rewrites the columns in one transaction: the counts and the sample before, one
// UPDATE per table (all its columns at once: one new row version, not one per
// column), the counts after. It rolls back when a distinct count changed (a collision:
// values cut short by --keep-length or the type's limit) or when another session
// connected meanwhile. It returns the sampled originals per column (cols' order).
func mask(ctx context.Context, conn *pgx.Conn, db string, cols []column, cfg Config, res *Result, say func(string)) ([][]string, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("mask: begin: %w", err)
	}
	defer tx.Rollback(context.Background())

	samples := make([][]string, len(cols))
	res.Columns = make([]ColumnResult, len(cols))
	for i, c := range cols {
		r := &res.Columns[i]
		r.Table, r.Column, r.Type, r.MaxLen = c.table, c.name, c.typ, c.maxLen
		q := fmt.Sprintf("select count(*), count(*) - count(%[1]s), count(distinct %[1]s) from %[2]s", c.ident(), c.table)
		if err := tx.QueryRow(ctx, q).Scan(&r.Rows, &r.Nulls, &r.DistinctBefore); err != nil {
			return nil, fmt.Errorf("mask: count %s.%s: %w", c.table, c.name, err)
		}
		if cfg.Prove > 0 {
			if samples[i], err = sample(ctx, tx, c, cfg.Prove); err != nil {
				return nil, err
			}
			r.Sampled = len(samples[i])
		}
	}

	for _, t := range byTable(cols) {
		var sets []string
		for _, c := range t {
			sets = append(sets, c.ident()+" = "+maskExpr(c, cfg.KeepLength, cfg.KeepDomain))
		}
		q := "update " + t[0].table + " set " + strings.Join(sets, ", ")
		tag, err := tx.Exec(ctx, q, cfg.Key)
		if err != nil {
			return nil, updateError(t[0].table, err)
		}
		say(fmt.Sprintf("masked %s: %d rows, column %s", t[0].table, tag.RowsAffected(), names(t)))
	}

	var changed []string
	for i, c := range cols {
		r := &res.Columns[i]
		q := fmt.Sprintf("select count(distinct %s) from %s", c.ident(), c.table)
		if err := tx.QueryRow(ctx, q).Scan(&r.DistinctAfter); err != nil {
			return nil, fmt.Errorf("mask: count %s.%s after masking: %w", c.table, c.name, err)
		}
		if r.DistinctAfter != r.DistinctBefore {
			changed = append(changed, fmt.Sprintf("%s.%s %d → %d", c.table, c.name, r.DistinctBefore, r.DistinctAfter))
		}
	}
	if len(changed) > 0 {
		return nil, fmt.Errorf("mask: masked values collide, so distinct values would merge (%s): nothing was changed (rolled back); "+
			"the masked values are too short to stay distinct: drop --keep-length, or widen the column's type", strings.Join(changed, "; "))
	}
	if err := checkAlone(ctx, tx, db); err != nil {
		return nil, fmt.Errorf("%w (nothing was changed: rolled back)", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("mask: commit: %w", err)
	}
	return samples, nil
}

// updateError words a failed UPDATE; a foreign key that the new values break gets
// what to do about it.
func updateError(table string, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23503" {
		return fmt.Errorf("mask: update %s: %w (nothing was changed: rolled back); a foreign key (%s) joins on a masked column: "+
			"mask the columns on both of its sides in one run, and on the clone make the constraint DEFERRABLE INITIALLY DEFERRED "+
			"(ALTER TABLE … ALTER CONSTRAINT %s DEFERRABLE INITIALLY DEFERRED), so that it is checked at the commit, when both sides are masked",
			table, err, pe.ConstraintName, pgx.Identifier{pe.ConstraintName}.Sanitize())
	}
	return fmt.Errorf("mask: update %s: %w (nothing was changed: rolled back)", table, err)
}

// sample is up to n non-NULL originals of c, chosen at random (distinct, so that a
// frequent value does not fill the sample).
func sample(ctx context.Context, tx pgx.Tx, c column, n int) ([]string, error) {
	q := fmt.Sprintf("select v from (select distinct %[1]s::text as v from %[2]s where %[1]s is not null) d order by random() limit $1", c.ident(), c.table)
	rows, err := tx.Query(ctx, q, n)
	if err != nil {
		return nil, fmt.Errorf("mask: sample %s.%s: %w", c.table, c.name, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("mask: sample %s.%s: %w", c.table, c.name, err)
	}
	return out, nil
}

// byTable groups cols by table, in the order the tables first appear.
func byTable(cols []column) [][]column {
	var out [][]column
	at := map[string]int{}
	for _, c := range cols {
		i, ok := at[c.table]
		if !ok {
			i = len(out)
			at[c.table] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}

func names(cols []column) string {
	var s []string
	for _, c := range cols {
		s = append(s, c.name)
	}
	return strings.Join(s, ", ")
}

func countSamples(s [][]string) int {
	n := 0
	for _, v := range s {
		n += len(v)
	}
	return n
}
