package age

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Mark is the prefix of the table comments pgtrial's loads write (workload.PgbenchMark
// "pgtrial:pgbench", TPCCMark, YCSBComment): a table whose comment starts with it is
// pgtrial's, and aging may rewrite its rows.
const Mark = "pgtrial:"

// PgbenchAccounts is the default table, its key and its update (pgbench's own
// tpcb-like update of an account: abalance is in no index, so an update is HOT when its
// page has room; at pgtrial init's default fillfactor 100 a fresh page has none).
const (
	PgbenchAccounts = "pgbench_accounts"
	pgbenchKey      = "aid"
	pgbenchSet      = "abalance = abalance + 1"
)

// table is the relation aging works on, as the server names it.
type table struct {
	name    string // regclass text: schema-qualified and quoted as needed
	key     string // the key column, quoted
	keyName string // the key column as named
	keyType string // its type, format_type's text
	set     string // the SET list of the daily update
	comment string // its COMMENT ("" for none)
	owned   bool   // comment starts with Mark
}

// resolveTable finds cfg.Table in the database, checks it can be aged (an ordinary
// table, pgtrial's unless OwnData) and fills in the key (the one-column primary key
// unless given) and the update (pgbench_accounts' unless given).
func resolveTable(ctx context.Context, c *pgx.Conn, cfg Config) (table, error) {
	var name, kind, comment string
	err := c.QueryRow(ctx,
		`select r::regclass::text, c.relkind::text, coalesce(obj_description(r, 'pg_class'), '')
		   from (select to_regclass($1) as r) x join pg_class c on c.oid = x.r`, cfg.Table).Scan(&name, &kind, &comment)
	if errors.Is(err, pgx.ErrNoRows) {
		return table{}, fmt.Errorf("age: no table %q in this database (create and load it first, e.g. pgtrial init)", cfg.Table)
	}
	if err != nil {
		return table{}, fmt.Errorf("age: look up table %q: %w", cfg.Table, err)
	}
	switch kind {
	case "r":
	case "p":
		return table{}, fmt.Errorf("age: %s is partitioned: age one partition at a time (--table %s_1, …)", name, name)
	default:
		return table{}, fmt.Errorf("age: %s is not an ordinary table (relkind %q)", name, kind)
	}
	t := table{name: name, comment: comment, owned: strings.HasPrefix(comment, Mark), set: cfg.Set}
	if !t.owned && !cfg.OwnData {
		return table{}, fmt.Errorf("age: refusing to update %s: pgtrial did not create it (its comment is %q, not %q…); aging rewrites a share of its rows every day. If the data is yours to change (a copy, a test database), add --i-own-this-data",
			name, comment, Mark)
	}
	bare := name[strings.LastIndex(name, ".")+1:]
	if t.set == "" {
		if bare != PgbenchAccounts {
			return table{}, fmt.Errorf("age: --set is needed for %s (the update of each chosen row, e.g. --set \"qty = qty + 1\"); only %s has a default (%s)", name, PgbenchAccounts, pgbenchSet)
		}
		t.set = pgbenchSet
	}
	key := cfg.Key
	if key == "" {
		key, err = primaryKey(ctx, c, name)
		if err != nil {
			return table{}, err
		}
		if key == "" && bare == PgbenchAccounts {
			key = pgbenchKey
		}
		if key == "" {
			return table{}, fmt.Errorf("age: %s has no one-column primary key: name a unique, indexed column with --key", name)
		}
	}
	err = c.QueryRow(ctx, `select format_type(atttypid, atttypmod) from pg_attribute where attrelid = $1::regclass and attname = $2 and attnum > 0 and not attisdropped`,
		name, key).Scan(&t.keyType)
	if errors.Is(err, pgx.ErrNoRows) {
		return table{}, fmt.Errorf("age: %s has no column %q (--key)", name, key)
	}
	if err != nil {
		return table{}, fmt.Errorf("age: look up column %q of %s: %w", key, name, err)
	}
	t.key, t.keyName = pgx.Identifier{key}.Sanitize(), key
	return t, nil
}

// primaryKey is the column of t's one-column primary key, "" when it has none or a
// wider one.
func primaryKey(ctx context.Context, c *pgx.Conn, t string) (string, error) {
	var cols []string
	err := c.QueryRow(ctx,
		`select coalesce(array_agg(a.attname::text order by a.attnum), '{}')
		   from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
		  where i.indrelid = $1::regclass and i.indisprimary`, t).Scan(&cols)
	if err != nil {
		return "", fmt.Errorf("age: look up the primary key of %s: %w", t, err)
	}
	if len(cols) != 1 {
		return "", nil
	}
	return cols[0], nil
}

// autovacuumOption is the table's autovacuum_enabled reloption: its value and whether
// it is set at all.
func autovacuumOption(ctx context.Context, c *pgx.Conn, t string) (value string, set bool, err error) {
	var v *string
	err = c.QueryRow(ctx,
		`select (select split_part(o, '=', 2) from unnest(reloptions) o where o like 'autovacuum_enabled=%')
		   from pg_class where oid = $1::regclass`, t).Scan(&v)
	if err != nil {
		return "", false, fmt.Errorf("age: read the autovacuum setting of %s: %w", t, err)
	}
	if v == nil {
		return "", false, nil
	}
	return *v, true, nil
}

// restoreAutovacuum puts the table's autovacuum_enabled back as autovacuumOption read it.
func restoreAutovacuum(ctx context.Context, c *pgx.Conn, t, value string, set bool) error {
	sql := "alter table " + t + " reset (autovacuum_enabled)"
	if set {
		sql = "alter table " + t + " set (autovacuum_enabled = " + quoteLiteral(value) + ")"
	}
	if _, err := c.Exec(ctx, sql); err != nil {
		return fmt.Errorf("age: put back autovacuum on %s (%s): %w; run it yourself", t, sql, err)
	}
	return nil
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// autovacuumOff sets autovacuum_enabled = false on t and returns the function that puts
// the earlier setting back (under its own 20 s limit, after a cancellation too).
func autovacuumOff(ctx context.Context, c *pgx.Conn, t string, reconnect func(context.Context) (*pgx.Conn, error)) (restore func() error, err error) {
	val, set, err := autovacuumOption(ctx, c, t)
	if err != nil {
		return nil, err
	}
	if _, err := c.Exec(ctx, "alter table "+t+" set (autovacuum_enabled = false)"); err != nil {
		return nil, fmt.Errorf("age: turn autovacuum off on %s: %w", t, err)
	}
	return func() error {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
		defer cancel()
		rc := c
		if rc.IsClosed() { // a cancelled statement closes pgx's connection
			if rc, err = reconnect(rctx); err != nil {
				return fmt.Errorf("age: put back autovacuum on %s: %w; run ALTER TABLE %s RESET (autovacuum_enabled) yourself", t, err, t)
			}
			defer rc.Close(context.Background())
		}
		return restoreAutovacuum(rctx, rc, t, val, set)
	}, nil
}
