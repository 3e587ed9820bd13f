package age

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// updater runs one day's updates: the table's keys in order, Batch at a time, each
// batch one statement (one transaction) that updates the batch's rows for which
// random() < Daily, so a day holds no long transaction and the client keeps only the
// last key seen (bounded memory whatever the table's size).
type updater struct {
	first, next string // the batch statements: from the start, and after a key ($3)
	batch       int
	daily       float64
	maxBatches  int // a day's bound: 4 × the batches rows need, + 64
}

// newUpdater prepares the statements; rows bounds the table's rows (the day's batches).
func newUpdater(t table, batch int, daily float64, rows int64) *updater {
	// b: the next Batch keys; u: the update of those drawn; the row: the last key (the
	// next batch starts after it), the keys visited, the rows updated.
	const form = `with b as (select %[2]s as age_key from %[1]s %[4]s order by %[2]s limit $1),
 u as (update %[1]s as aged set %[3]s from b where aged.%[2]s = b.age_key and random() < $2 returning 1)
select (select max(age_key)::text from b), (select count(*) from b), (select count(*) from u)`
	after := fmt.Sprintf("where %s > $3::text::%s", t.key, t.keyType)
	return &updater{
		first:      fmt.Sprintf(form, t.name, t.key, t.set, ""),
		next:       fmt.Sprintf(form, t.name, t.key, t.set, after),
		batch:      batch,
		daily:      daily,
		maxBatches: int(4*(rows/int64(batch)+1)) + 64,
	}
}

// day updates about Daily of the rows (each row drawn on its own, so the count is
// binomial) after setseed(seed), calling progress with the keys visited after each
// batch; it returns the rows updated.
func (u *updater) day(ctx context.Context, c *pgx.Conn, seed float64, progress func(scanned int64)) (int64, error) {
	if _, err := c.Exec(ctx, "select setseed($1)", seed); err != nil {
		return 0, fmt.Errorf("setseed: %w", err)
	}
	var scanned, updated int64
	var last *string
	for i := 0; i < u.maxBatches; i++ {
		var key *string
		var n, m int64
		var err error
		if last == nil {
			err = c.QueryRow(ctx, u.first, u.batch, u.daily).Scan(&key, &n, &m)
		} else {
			err = c.QueryRow(ctx, u.next, u.batch, u.daily, *last).Scan(&key, &n, &m)
		}
		if err != nil {
			return updated, fmt.Errorf("update a batch after key %v: %w (statement: %s)", deref(last), err, u.next)
		}
		scanned += n
		updated += m
		progress(scanned)
		if key == nil || n < int64(u.batch) {
			return updated, nil
		}
		last = key
	}
	return updated, fmt.Errorf("more than %d batches of %d keys in one day: the table grew while it aged (rows inserted?); stop the writers or raise the batch", u.maxBatches, u.batch)
}

func deref(s *string) string {
	if s == nil {
		return "(start)"
	}
	return *s
}
