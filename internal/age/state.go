package age

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// State is a table's size and free space at one moment of the aging.
type State struct {
	Day   int   `json:"day"`   // days aged so far (0: before)
	Pages int64 `json:"pages"` // pg_relation_size / block_size, the main fork
	// Rows are the live rows: pgstattuple's tuple_count (exact) when Exact, else
	// pg_stat_user_tables' n_live_tup (an estimate).
	Rows int64 `json:"rows"`
	// FreePercent is pgstattuple's free_percent: free bytes in the pages / table bytes
	// × 100 (space a new row version may use, dead versions not counted); only when
	// Exact.
	FreePercent float64 `json:"free_percent"`
	// DeadPercent is the dead row versions' share of the table: pgstattuple's
	// dead_tuple_percent (bytes, exact) when Exact, else n_dead_tup / (n_live_tup +
	// n_dead_tup) × 100 (rows, an estimate).
	DeadPercent float64 `json:"dead_percent"`
	Exact       bool    `json:"exact"`             // measured by pgstattuple
	Indexes     []Index `json:"indexes,omitempty"` // in name order
	// AutovacuumCount is pg_stat_user_tables' autovacuum_count (runs since the
	// statistics were reset).
	AutovacuumCount int64 `json:"autovacuum_count"`
}

// Index is one index of the table and its size in pages.
type Index struct {
	Name  string `json:"name"`
	Pages int64  `json:"pages"`
}

// IndexPages is the pages of all the table's indexes.
func (s State) IndexPages() int64 {
	var n int64
	for _, i := range s.Indexes {
		n += i.Pages
	}
	return n
}

// meter measures a table; pgstattuple says whether the extension can be used and, if
// not, why (Missing).
type meter struct {
	table       string
	pgstattuple bool
	Missing     string // why free space is not measured ("" when it is)
	Created     bool   // this run created the extension
}

// newMeter makes the pgstattuple extension available if it can (CREATE EXTENSION IF
// NOT EXISTS, which needs the right to create it) and tries it on the table (its
// functions need superuser or pg_stat_scan_tables); a failure is no error, the meter
// falls back to the statistics views' estimates and says why.
func newMeter(ctx context.Context, c *pgx.Conn, t string) *meter {
	m := &meter{table: t}
	var had bool
	if err := c.QueryRow(ctx, `select exists (select 1 from pg_extension where extname = 'pgstattuple')`).Scan(&had); err != nil {
		m.Missing = "pgstattuple: " + err.Error()
		return m
	}
	if !had {
		if _, err := c.Exec(ctx, `create extension if not exists pgstattuple`); err != nil {
			m.Missing = "pgstattuple could not be created (" + err.Error() + ")"
			return m
		}
		m.Created = true
	}
	if _, err := c.Exec(ctx, `select free_percent from pgstattuple($1::regclass)`, t); err != nil {
		m.Missing = "pgstattuple could not be used (" + err.Error() + ")"
		return m
	}
	m.pgstattuple = true
	return m
}

// pages is the table's main fork in pages.
func (m *meter) pages(ctx context.Context, c *pgx.Conn) (int64, error) {
	var n int64
	if err := c.QueryRow(ctx, `select pg_relation_size($1::regclass) / current_setting('block_size')::bigint`, m.table).Scan(&n); err != nil {
		return 0, fmt.Errorf("age: size of %s: %w", m.table, err)
	}
	return n, nil
}

// free is pgstattuple's free_percent (a scan of the whole table).
func (m *meter) free(ctx context.Context, c *pgx.Conn) (float64, error) {
	var f float64
	if err := c.QueryRow(ctx, `select free_percent from pgstattuple($1::regclass)`, m.table).Scan(&f); err != nil {
		return 0, fmt.Errorf("age: pgstattuple of %s: %w", m.table, err)
	}
	return f, nil
}

// full measures everything: pages, rows, free and dead space, indexes (pgstattuple
// scans the whole table once).
func (m *meter) full(ctx context.Context, c *pgx.Conn, day int) (State, error) {
	s := State{Day: day, Exact: m.pgstattuple}
	var err error
	if s.Pages, err = m.pages(ctx, c); err != nil {
		return s, err
	}
	var live, dead int64
	err = c.QueryRow(ctx, `select coalesce(n_live_tup, 0), coalesce(n_dead_tup, 0), coalesce(autovacuum_count, 0)
	                         from pg_stat_user_tables where relid = $1::regclass`, m.table).Scan(&live, &dead, &s.AutovacuumCount)
	if err != nil && err != pgx.ErrNoRows {
		return s, fmt.Errorf("age: statistics of %s: %w", m.table, err)
	}
	if m.pgstattuple {
		err = c.QueryRow(ctx, `select tuple_count, free_percent, dead_tuple_percent from pgstattuple($1::regclass)`, m.table).
			Scan(&s.Rows, &s.FreePercent, &s.DeadPercent)
		if err != nil {
			return s, fmt.Errorf("age: pgstattuple of %s: %w", m.table, err)
		}
	} else {
		s.Rows = live
		if live+dead > 0 {
			s.DeadPercent = 100 * float64(dead) / float64(live+dead)
		}
	}
	rows, err := c.Query(ctx,
		`select i.indexrelid::regclass::text, pg_relation_size(i.indexrelid) / current_setting('block_size')::bigint
		   from pg_index i where i.indrelid = $1::regclass order by 1`, m.table)
	if err != nil {
		return s, fmt.Errorf("age: indexes of %s: %w", m.table, err)
	}
	idx, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Index, error) {
		var i Index
		return i, r.Scan(&i.Name, &i.Pages)
	})
	if err != nil {
		return s, fmt.Errorf("age: indexes of %s: %w", m.table, err)
	}
	s.Indexes = idx
	return s, nil
}
