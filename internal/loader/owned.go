package loader

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Init never drops what it did not create: every relation pgtrial makes carries a
// comment mark (workload.PgbenchMark, TPCCMark, YCSBComment), and an existing relation
// of one of its names without that mark stops the load unless --force.

// markedObjects are the relations of one workload that init owns by a comment mark.
type markedObjects struct {
	tables    []string
	sequences []string
	mark      string // the comment on each of them, e.g. "pgtrial:tpcc"
}

// existingAndForeign returns which of names exist in c's database (in name order) and
// which of those lack mark as their comment (made by someone else).
func existingAndForeign(ctx context.Context, c *pgconn.PgConn, names []string, mark string) (existing, foreign []string, err error) {
	rows, err := queryStrings(ctx, c,
		`select t, coalesce(obj_description(to_regclass(t), 'pg_class'), '')
		   from unnest($1::text[]) as t
		  where to_regclass(t) is not null
		  order by t`,
		"{"+strings.Join(names, ",")+"}")
	if err != nil {
		return nil, nil, fmt.Errorf("check existing tables: %w", err)
	}
	for _, r := range rows {
		existing = append(existing, r[0])
		if r[1] != mark {
			foreign = append(foreign, r[0])
		}
	}
	return existing, foreign, nil
}

// dropMarked drops those of objs that exist, tables in one statement, sequences in
// another. A relation without objs.mark is refused, with nothing dropped, unless force.
// db names the database in the refusal.
func dropMarked(ctx context.Context, c *pgconn.PgConn, db string, objs markedObjects, force bool) error {
	existing, foreign, err := existingAndForeign(ctx, c, append(append([]string(nil), objs.tables...), objs.sequences...), objs.mark)
	if err != nil {
		return err
	}
	if len(foreign) > 0 && !force {
		return fmt.Errorf("refusing to drop %s in database %q: not created by pgtrial (no %q comment); use --force to replace them",
			strings.Join(foreign, ", "), db, objs.mark)
	}
	for _, kind := range []struct {
		sql   string
		names []string
	}{{"drop table ", objs.tables}, {"drop sequence ", objs.sequences}} {
		var drop []string
		for _, n := range existing {
			if slices.Contains(kind.names, n) {
				drop = append(drop, n)
			}
		}
		if len(drop) > 0 {
			if err := exec(ctx, c, kind.sql+strings.Join(drop, ", ")); err != nil {
				return err // a QueryError: names the statement
			}
		}
	}
	return nil
}
