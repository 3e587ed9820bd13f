// Package mask replaces personal data in named text columns of a clone by a keyed hash
// (hmac-sha256 from pgcrypto), so that equal values stay equal (joins, unique
// constraints) and distinct values stay distinct, and then proves it: the distinct
// counts are unchanged and no sampled original is in a pg_dump of the masked tables.
//
// It refuses to run on a database that other sessions use (a clone has none) and on
// one not marked as pgtrial's (a database comment starting with "pgtrial:") unless the
// caller says it is a clone. The key is passed as a bind parameter only: it never
// appears in SQL text, pg_stat_statements or pgtrial's output. The sampled originals are
// held in memory only.
//
// What it cannot do: the clone's pages and WAL still hold the old row versions (an
// UPDATE writes new versions; VACUUM FULL and CHECKPOINT reduce what is left, but WAL
// segments and backups keep them). The clone must be dropped after the dump.
package mask

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgsession"
)

// SessionName is the application_name of mask's own session.
const SessionName = "pgtrial-mask"

// DefaultProve is the number of originals sampled per column for the proof.
const DefaultProve = 1000

// hexLen is the length of an hmac-sha256 digest in hex: 32 bytes × 2.
const hexLen = 64

// Config is one masking.
type Config struct {
	ConnString string
	Columns    []string // "table.column" or "schema.table.column", as written in SQL
	Key        []byte   // at least MinKeyLen bytes (ReadKey)
	KeepLength bool     // a masked value has its original's length (char_length)
	KeepDomain bool     // for values with an '@': mask the part before it, keep the rest
	OnClone    bool     // --i-am-on-a-clone: the caller vouches for an unmarked database
	Prove      int      // originals sampled per column for the pg_dump proof; 0: no proof
	PgDump     string   // pg_dump to use; "" finds one (FindPgDump)
	Out        func(string)
}

// ColumnResult is what masking did to one column.
type ColumnResult struct {
	Table          string `json:"table"`           // the table as regclass prints it, the column's name
	Column         string `json:"column"`          // the table as regclass prints it, the column's name
	Type           string `json:"type"`            // format_type, e.g. "character varying(40)"
	MaxLen         int    `json:"max_len"`         // the type's length limit in characters; 0 none
	Rows           int64  `json:"rows"`            // rows of the table
	Nulls          int64  `json:"nulls"`           // NULLs (kept as NULLs)
	DistinctBefore int64  `json:"distinct_before"` // count(DISTINCT column) before
	DistinctAfter  int64  `json:"distinct_after"`  // … and after masking
	Sampled        int    `json:"sampled"`         // originals sampled for the proof
	Short          int    `json:"short"`           // of them shorter than MinProofLen bytes, not searched
	Found          int    `json:"found"`           // of the searched, how many the dump contains
}

// Result is a masking's outcome.
type Result struct {
	Database          string         `json:"database"`
	Columns           []ColumnResult `json:"columns"`
	CreatedExtension  bool           `json:"created_extension"`   // CREATE EXTENSION pgcrypto ran
	PgDump            string         `json:"pg_dump"`             // the pg_dump that made the proof ("" without proof)
	DumpBytes         int64          `json:"dump_bytes"`          // size of the dump searched
	ParamLogUnguarded bool           `json:"param_log_unguarded"` // the server's log settings could not be kept from logging the key
}

// Found is the number of sampled originals the dump contains, over all columns.
func (r *Result) Found() int {
	n := 0
	for _, c := range r.Columns {
		n += c.Found
	}
	return n
}

// column is one column to mask, resolved in the catalogue.
type column struct {
	spec   string   // as the user wrote it
	table  string   // regclass text (quoted as needed)
	name   string   // attname
	typ    string   // format_type
	maxLen int      // varchar(n)/char(n): n; 0 none
	dump   []string // the tables pg_dump must dump for it (-t patterns): the table, or a partitioned one's partitions too
}

// ident is the column's name quoted for SQL.
func (c column) ident() string { return pgx.Identifier{c.name}.Sanitize() }

// Run masks cfg.Columns on the database of cfg.ConnString and proves the result.
// A proof that finds an original is not an error here: the caller reads Result.Found.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	say := cfg.Out
	if say == nil {
		say = func(string) {}
	}
	if len(cfg.Key) < MinKeyLen {
		return nil, fmt.Errorf("mask: the key has %d bytes; it needs at least %d (e.g. head -c 32 /dev/urandom | base64 > key)", len(cfg.Key), MinKeyLen)
	}
	if len(cfg.Columns) == 0 {
		return nil, errors.New("mask: no column to mask: name them with --column TABLE.COLUMN")
	}
	if cfg.Prove < 0 {
		return nil, fmt.Errorf("mask: --prove %d: give a number of sampled values ≥ 0", cfg.Prove)
	}
	conn, err := connect(ctx, cfg.ConnString)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())

	res := &Result{}
	if err := conn.QueryRow(ctx, "select current_database()").Scan(&res.Database); err != nil {
		return nil, fmt.Errorf("mask: read the database's name: %w", err)
	}
	if err := checkClone(ctx, conn, res.Database, cfg.OnClone); err != nil {
		return nil, err
	}
	cols, err := resolveColumns(ctx, conn, cfg.Columns)
	if err != nil {
		return nil, err
	}
	if err := warnTriggers(ctx, conn, cols, say); err != nil {
		return nil, err
	}
	pgDump := ""
	if cfg.Prove > 0 { // before anything changes: a proof that cannot run stops the masking
		if pgDump, err = pgDumpFor(ctx, conn, cfg.PgDump); err != nil {
			return nil, err
		}
	}
	if res.CreatedExtension, err = ensurePgcrypto(ctx, conn); err != nil {
		return nil, err
	}
	if res.CreatedExtension {
		say("created extension pgcrypto (CREATE EXTENSION IF NOT EXISTS pgcrypto) for hmac()")
	}
	res.ParamLogUnguarded = guardParamLogging(ctx, conn)

	samples, err := mask(ctx, conn, res.Database, cols, cfg, res, say)
	if err != nil {
		return nil, err
	}
	if cfg.Prove == 0 {
		return res, nil
	}
	res.PgDump = pgDump
	say(fmt.Sprintf("proof: pg_dump of the masked tables (%s), searched for %d sampled originals", pgDump, countSamples(samples)))
	if err := prove(ctx, cfg.ConnString, pgDump, cols, samples, res); err != nil {
		return nil, err
	}
	return res, nil
}

// connect opens mask's own session: no statement timeout (an UPDATE of a large table
// takes what it takes; ctx bounds it), named SessionName.
func connect(ctx context.Context, connString string) (*pgx.Conn, error) {
	conn, err := pgsession.Connect(ctx, connString, SessionName, pgsession.Unbounded)
	if err != nil {
		return nil, fmt.Errorf("mask: %w", err)
	}
	return conn, nil
}

// ensurePgcrypto creates pgcrypto unless it is there; it reports whether it did.
func ensurePgcrypto(ctx context.Context, conn *pgx.Conn) (bool, error) {
	var installed, available bool
	err := conn.QueryRow(ctx, `select exists (select 1 from pg_extension where extname = 'pgcrypto'),
	                                  exists (select 1 from pg_available_extensions where name = 'pgcrypto')`).Scan(&installed, &available)
	if err != nil {
		return false, fmt.Errorf("mask: look up extension pgcrypto: %w", err)
	}
	if installed {
		return false, nil
	}
	if !available {
		return false, errors.New("mask: extension pgcrypto (hmac) is not installed on the server: install PostgreSQL's contrib modules " +
			"(Debian/Ubuntu: apt-get install postgresql-contrib, or postgresql-NN, which contains them) and run again")
	}
	if _, err := conn.Exec(ctx, "create extension if not exists pgcrypto"); err != nil {
		return false, fmt.Errorf("mask: create extension pgcrypto (needed for hmac): %w; a superuser or the database's owner can run CREATE EXTENSION pgcrypto", err)
	}
	return true, nil
}

// guardParamLogging keeps the server from writing the key (a bind parameter) into its
// log with a logged statement: log_parameter_max_length = 0 (superuser only) and
// log_parameter_max_length_on_error = 0. It returns true when the first could not be
// set and the server logs statements (log_statement, log_min_duration_statement), so
// that the key may be in the server's log.
func guardParamLogging(ctx context.Context, conn *pgx.Conn) bool {
	_, _ = conn.Exec(ctx, "set log_parameter_max_length_on_error = 0") // absent before 13: nothing logged then
	if _, err := conn.Exec(ctx, "set log_parameter_max_length = 0"); err == nil {
		return false
	}
	var logs bool
	err := conn.QueryRow(ctx, `select current_setting('log_statement') in ('all', 'mod')
	                               or current_setting('log_min_duration_statement')::int >= 0`).Scan(&logs)
	return err != nil || logs
}

// resolveColumns looks every spec up in the catalogue: the table (to_regclass, so
// names are written as in SQL) and the column, whose type must be text, varchar or char.
func resolveColumns(ctx context.Context, conn *pgx.Conn, specs []string) ([]column, error) {
	var out []column
	seen := map[string]bool{}
	for _, spec := range specs {
		i := strings.LastIndexByte(spec, '.')
		if i <= 0 || i == len(spec)-1 {
			return nil, fmt.Errorf("mask: --column %q: give TABLE.COLUMN or SCHEMA.TABLE.COLUMN", spec)
		}
		tbl, name := spec[:i], strings.Trim(spec[i+1:], `"`)
		var c column
		var relkind string
		var typmod int32
		var typ uint32
		err := conn.QueryRow(ctx, `select oid::regclass::text, relkind::text from pg_class where oid = to_regclass($1)`, tbl).Scan(&c.table, &relkind)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("mask: --column %q: no table %s in this database (names as in SQL: schema.table, \"MixedCase\")", spec, tbl)
		}
		if err != nil {
			return nil, fmt.Errorf("mask: --column %q: look up table %s: %w", spec, tbl, err)
		}
		if relkind != "r" && relkind != "p" {
			return nil, fmt.Errorf("mask: --column %q: %s is not a table (relkind %s): mask the table it reads", spec, c.table, relkind)
		}
		err = conn.QueryRow(ctx, `select a.attname, a.atttypid::int8, a.atttypmod, format_type(a.atttypid, a.atttypmod)
		                            from pg_attribute a
		                           where a.attrelid = to_regclass($1) and a.attnum > 0 and not a.attisdropped
		                             and a.attgenerated = '' and a.attname in ($2::name, lower($2)::name)
		                           order by a.attname = $2 desc limit 1`, tbl, name).Scan(&c.name, &typ, &typmod, &c.typ)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("mask: --column %q: table %s has no (stored, non-generated) column %s", spec, c.table, name)
		}
		if err != nil {
			return nil, fmt.Errorf("mask: --column %q: look up column %s: %w", spec, name, err)
		}
		switch typ {
		case 25: // text
		case 1043, 1042: // varchar, bpchar: typmod = n + 4 (VARHDRSZ) when limited
			if typmod > 4 {
				c.maxLen = int(typmod - 4)
			}
		default:
			return nil, fmt.Errorf("mask: --column %q: type %s: mask masks text, varchar and char columns", spec, c.typ)
		}
		if c.dump, err = dumpTables(ctx, conn, c.table); err != nil {
			return nil, fmt.Errorf("mask: --column %q: %w", spec, err)
		}
		key := c.table + "." + c.name
		if seen[key] {
			return nil, fmt.Errorf("mask: --column %q names %s a second time", spec, key)
		}
		seen[key] = true
		c.spec = spec
		out = append(out, c)
	}
	return out, nil
}

// maskExpr is the SQL of c's masked value; $1 is the key (bytea).
//
//	h = encode(hmac(convert_to(c, 'UTF8'), key, 'sha256'), 'hex')   64 hex digits
//	L = char_length(c) with KeepLength, else 64; at most the type's limit
//	masked = left(h, L) when L ≤ 64, else rpad(h, L, h) (h repeated up to L)
//
// With KeepDomain a value with an '@' keeps everything from its first '@' on, and L
// applies to the part before it (so the type's limit less the domain's length).
func maskExpr(c column, keepLength, keepDomain bool) string {
	id := c.ident()
	h := fmt.Sprintf("encode(hmac(convert_to(%s::text, 'UTF8'), $1::bytea, 'sha256'), 'hex')", id)
	// fit is h cut or repeated to length (a constant, or an expression when variable).
	fit := func(length string, constant int) string {
		switch {
		case constant >= hexLen:
			return h
		case constant > 0:
			return fmt.Sprintf("left(%s, %d)", h, constant)
		}
		return fmt.Sprintf("case when %[1]s <= %[2]d then left(%[3]s, %[1]s) else rpad(%[3]s, %[1]s, %[3]s) end", length, hexLen, h)
	}
	limited := hexLen
	if c.maxLen > 0 {
		limited = min(hexLen, c.maxLen)
	}
	whole := func() string {
		if keepLength { // never over the type's limit: the original fits
			return fit(fmt.Sprintf("char_length(%s)", id), 0)
		}
		return fit("", limited)
	}
	if !keepDomain {
		return whole()
	}
	at := fmt.Sprintf("strpos(%s, '@')", id)
	domain := fmt.Sprintf("substr(%s, %s)", id, at)
	var local string
	switch {
	case keepLength:
		local = fit("("+at+" - 1)", 0)
	case c.maxLen > 0: // the domain's length is the row's: 64 hex digits or what is left of the limit
		local = fit(fmt.Sprintf("greatest(0, least(%d, %d - char_length(%s)))", hexLen, c.maxLen, domain), 0)
	default:
		local = h
	}
	return fmt.Sprintf("case when %s > 0 then %s || %s else %s end", at, local, domain, whole())
}

// dumpTables are the -t patterns of pg_dump that dump table's rows: itself, and for a
// partitioned table every partition (pg_dump -t of the parent dumps no rows).
func dumpTables(ctx context.Context, conn *pgx.Conn, table string) ([]string, error) {
	rows, err := conn.Query(ctx, `select n.nspname, r.relname
	                                from pg_partition_tree(to_regclass($1)) p
	                                join pg_class r on r.oid = p.relid
	                                join pg_namespace n on n.oid = r.relnamespace
	                               order by p.level, r.relname`, table)
	if err != nil {
		return nil, fmt.Errorf("list the partitions of %s: %w", table, err)
	}
	pairs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var nsp, rel string
		err := r.Scan(&nsp, &rel)
		return quotePattern(nsp) + "." + quotePattern(rel), err
	})
	if err != nil {
		return nil, fmt.Errorf("list the partitions of %s: %w", table, err)
	}
	return pairs, nil
}

// warnTriggers says which enabled user triggers the UPDATEs will fire: an audit
// trigger may copy the originals into a table the proof does not dump.
func warnTriggers(ctx context.Context, conn *pgx.Conn, cols []column, say func(string)) error {
	for _, t := range byTable(cols) {
		var names string
		err := conn.QueryRow(ctx, `select coalesce(string_agg(tgname, ', ' order by tgname), '') from pg_trigger
		                            where tgrelid = to_regclass($1) and not tgisinternal and tgenabled <> 'D'`, t[0].table).Scan(&names)
		if err != nil {
			return fmt.Errorf("mask: list the triggers of %s: %w", t[0].table, err)
		}
		if names != "" {
			say(fmt.Sprintf("warning: the UPDATE of %s fires its triggers (%s): one that copies rows elsewhere (an audit log) puts originals where the proof does not look; "+
				"disable it on the clone first (ALTER TABLE %s DISABLE TRIGGER name)", t[0].table, names, t[0].table))
		}
	}
	return nil
}
