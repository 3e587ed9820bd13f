package shape

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/prng"
)

// SessionName is the application_name of shape's connection.
const SessionName = "pgtrial shape"

// MarkPrefix starts the comment every table pgtrial creates carries
// (workload.PgbenchMark "pgtrial:pgbench", TPCCMark, YCSBComment): shape
// rewrites only those unless Config.Force.
const MarkPrefix = "pgtrial:"

// Config is one shaping of one column.
type Config struct {
	Table  string // as SQL names it: "tasks", "app.tasks"
	Column string
	// Key is the column the rows are walked and matched by (unique, not
	// null); "" is the table's one-column primary key.
	Key string
	// Exactly one of Dist and Sizes.
	Dist  *Dist
	Sizes *Sizes
	// Range: Dist.Min/Max unless MaxSet; without it Max is the row count.
	MaxSet bool
	Seed   uint64
	Batch  int  // rows per transaction (default 10,000; with Sizes at most 4 MB of values)
	Force  bool // shape a table pgtrial did not create
	// Analyze runs ANALYZE on the table after (the planner's statistics).
	Analyze bool
	Out     io.Writer // progress lines; nil for none
}

// Connect opens shape's connection (pgtrial's own session settings, no
// statement timeout: one batch may take long on a big table).
func Connect(ctx context.Context, connString string) (*pgx.Conn, error) {
	return pgsession.Connect(ctx, connString, SessionName, pgsession.Unbounded)
}

// table is what Run learns of the table before writing.
type table struct {
	name     string // quoted, regclass text
	key      string // quoted key column
	keyType  string // format_type of the key
	col      string // quoted column
	colType  string
	rows     int64
	textual  bool // the column takes text (pad) or json
	comment  string
	hasToast bool
}

// Run shapes c.Column of c.Table on conn and measures the result.
func Run(ctx context.Context, conn *pgx.Conn, c Config) (*Result, error) {
	if (c.Dist == nil) == (c.Sizes == nil) {
		return nil, errors.New("shape: give either a distribution (--dist) or a size (--pad/--json with --size)")
	}
	t, err := inspect(ctx, conn, &c)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(t.comment, MarkPrefix) && !c.Force {
		return nil, fmt.Errorf("refusing to rewrite %s.%s: table %s was not created by pgtrial (its comment is %q, not %s…); shaping rewrites every row: use --force on a copy you may change",
			c.Table, c.Column, t.name, t.comment, MarkPrefix)
	}
	start := time.Now()
	var next func(seq int64) string
	desc := ""
	if c.Dist != nil {
		d := *c.Dist
		if !c.MaxSet && !(d.Kind == LogUniform && d.N > 0) {
			d.Max = max(t.rows, d.Min)
		}
		g, err := NewGenerator(d, c.Seed)
		if err != nil {
			return nil, fmt.Errorf("shape %s.%s: %w", c.Table, c.Column, err)
		}
		desc = g.Dist().String()
		next = func(int64) string { return fmt.Sprint(g.Next()) }
	} else {
		if !t.textual {
			return nil, fmt.Errorf("shape %s.%s: --%s needs a text, varchar, json or jsonb column; %s is %s", c.Table, c.Column, c.Sizes.Kind, c.Column, t.colType)
		}
		m := &valueMaker{z: *c.Sizes, st: newSizeState(c.Seed)}
		desc = c.Sizes.String()
		next = m.next
	}
	batch := c.Batch
	if batch <= 0 {
		batch = 10000
	}
	if c.Sizes != nil {
		batch = max(1, min(batch, (4<<20)/c.Sizes.Max))
	}
	if c.Out != nil {
		fmt.Fprintf(c.Out, "shape: %s.%s ← %s, seed %d, %d rows by %s in transactions of %d rows\n",
			t.name, c.Column, desc, c.Seed, t.rows, c.Key, batch)
	}
	n, err := rewrite(ctx, conn, t, batch, next)
	if err != nil {
		return nil, fmt.Errorf("shape %s.%s after %d rows: %w", c.Table, c.Column, n, err)
	}
	if c.Analyze {
		if _, err := conn.Exec(ctx, "analyze "+t.name); err != nil {
			return nil, fmt.Errorf("shape: analyze %s: %w", t.name, err)
		}
	}
	res, err := Measure(ctx, conn, t.name, t.col)
	if err != nil {
		return nil, err
	}
	res.Column = c.Column
	res.Updated, res.Generated, res.Seed, res.Elapsed = n, desc, c.Seed, time.Since(start)
	return res, nil
}

// newSizeState is the sizes' stream: the seed's, apart from the keys' so
// that a pad and a key shaping with one seed do not draw the same numbers.
func newSizeState(seed uint64) prng.State {
	return prng.NewState(seed ^ 0x5ca1ab1e5eed)
}

// inspect resolves the table, its key and column, and counts the rows.
func inspect(ctx context.Context, conn *pgx.Conn, c *Config) (*table, error) {
	t := &table{}
	var toast bool
	err := conn.QueryRow(ctx,
		`select c.oid::regclass::text, coalesce(obj_description(c.oid, 'pg_class'), ''), c.reltoastrelid <> 0
		   from pg_class c where c.oid = to_regclass($1)`, c.Table).Scan(&t.name, &t.comment, &toast)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("shape: no table %q in this database (search_path as the connection has it)", c.Table)
	}
	if err != nil {
		return nil, fmt.Errorf("shape: look up table %q: %w", c.Table, err)
	}
	t.hasToast = toast
	if c.Key == "" {
		err := conn.QueryRow(ctx,
			`select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
			  where i.indrelid = to_regclass($1) and i.indisprimary and i.indnkeyatts = 1`, c.Table).Scan(&c.Key)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("shape: table %s has no one-column primary key; name a unique not-null column with --key", t.name)
		}
		if err != nil {
			return nil, fmt.Errorf("shape: primary key of %s: %w", t.name, err)
		}
	}
	colType := func(col string) (string, error) {
		var typ string
		err := conn.QueryRow(ctx,
			`select format_type(atttypid, atttypmod) from pg_attribute
			  where attrelid = to_regclass($1) and attname = $2 and attnum > 0 and not attisdropped`, c.Table, col).Scan(&typ)
		if errors.Is(err, pgx.ErrNoRows) {
			return "", fmt.Errorf("shape: table %s has no column %q", t.name, col)
		}
		return typ, err
	}
	var err2 error
	if t.keyType, err2 = colType(c.Key); err2 != nil {
		return nil, err2
	}
	if t.colType, err2 = colType(c.Column); err2 != nil {
		return nil, err2
	}
	var inKey bool
	if err := conn.QueryRow(ctx,
		`select exists (select from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any (i.indkey)
		   where i.indrelid = to_regclass($1) and i.indisprimary and a.attname = $2)`, c.Table, c.Column).Scan(&inKey); err != nil {
		return nil, fmt.Errorf("shape: primary key of %s: %w", t.name, err)
	}
	if inKey {
		return nil, fmt.Errorf("shape: refusing to shape %s.%s: it is (part of) the primary key of %s, whose values must stay unique; shape another column (e.g. pgbench_accounts.bid, not aid)",
			c.Table, c.Column, t.name)
	}
	if c.Key == c.Column {
		return nil, fmt.Errorf("shape: %s is the key the rows are matched by; shape another column or name another --key", c.Column)
	}
	t.key, t.col = pgx.Identifier{c.Key}.Sanitize(), pgx.Identifier{c.Column}.Sanitize()
	switch {
	case t.colType == "text", t.colType == "json", t.colType == "jsonb",
		strings.HasPrefix(t.colType, "character varying"), strings.HasPrefix(t.colType, "character("):
		t.textual = true
	}
	if err := conn.QueryRow(ctx, "select count(*) from "+t.name).Scan(&t.rows); err != nil {
		return nil, fmt.Errorf("shape: count the rows of %s: %w", t.name, err)
	}
	return t, nil
}

// rewrite walks the rows in key order, batch rows a transaction (keyset
// pagination: key > the last one), and sets the column to next(seq) for the
// seq-th row (0-based): one draw per row in key order, so a seed gives the
// same column on the same rows. It returns the rows updated.
func rewrite(ctx context.Context, conn *pgx.Conn, t *table, batch int, next func(int64) string) (int64, error) {
	// The output is named k and the order qualified: ORDER BY a bare name
	// would sort by the text output column of that name. The first batch
	// has no lower bound; the others' (key > $1) use the key's index in a
	// cached generic plan too.
	first := fmt.Sprintf("select r.%[1]s::text as k from %[2]s as r order by r.%[1]s limit %[3]d", t.key, t.name, batch)
	sel := fmt.Sprintf("select r.%[1]s::text as k from %[2]s as r where r.%[1]s > $1::%[3]s order by r.%[1]s limit %[4]d",
		t.key, t.name, t.keyType, batch)
	upd := fmt.Sprintf("update %s as t set %s = m.v::%s from unnest($1::text[], $2::text[]) as m(k, v) where t.%s = m.k::%s",
		t.name, t.col, t.colType, t.key, t.keyType)
	var last *string
	var seq int64
	for range t.rows/int64(batch) + 2 { // bounded: every pass but the last takes batch rows
		tx, err := conn.Begin(ctx)
		if err != nil {
			return seq, err
		}
		var rows pgx.Rows
		if last == nil {
			rows, err = tx.Query(ctx, first)
		} else {
			rows, err = tx.Query(ctx, sel, *last)
		}
		if err != nil {
			tx.Rollback(ctx)
			return seq, err
		}
		keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			tx.Rollback(ctx)
			return seq, err
		}
		if len(keys) == 0 {
			tx.Rollback(ctx)
			return seq, nil
		}
		vals := make([]string, len(keys))
		for i := range keys {
			vals[i] = next(seq + int64(i))
		}
		if _, err := tx.Exec(ctx, upd, keys, vals); err != nil {
			tx.Rollback(ctx)
			return seq, err
		}
		if err := tx.Commit(ctx); err != nil {
			return seq, err
		}
		seq += int64(len(keys))
		last = &keys[len(keys)-1]
	}
	return seq, fmt.Errorf("more rows than the %d counted: was the table written to meanwhile?", t.rows)
}
