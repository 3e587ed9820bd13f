// Package capture turns a server's pg_stat_statements into a workload
// directory that pgtrial run can replay (one pgbench-language script per
// statement, weights from calls, parameters from pg_stats) and compares a
// run of it with the captured profile (similarity.go).
//
// It reads the source read-only (default_transaction_read_only = on, a
// statement timeout): pg_stat_statements, the catalogue and pg_stats, and
// never a table's rows. It prepares each captured statement (a Parse
// message, which plans nothing and writes nothing, though it takes the
// statement's table locks until its Sync, as any query would) to learn its
// parameters' types. It reads every role's statement texts of the target
// database (the application's role is rarely the capturing one) and none of
// another database's; the texts pass through results.RedactSQL before they
// are kept.
package capture

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/results"
)

// ApplicationName names capture's session on the source.
const ApplicationName = "pgtrial-capture"

// maxQueryChars is how much of a statement's text collect's reader keeps
// (left(query, 1000)): a text that long was probably cut.
const maxQueryChars = 1000

// weightScale: a script's weight is its share of the scripted calls in
// parts per weightScale (pgbench's -f FILE@W).
const weightScale = 10000

// Tag starts the text of every captured script's statement: pg_stat_statements
// keeps the comment, so a run's statements are matched to the profile by it
// (and by queryid when the entry already existed with another text).
const Tag = "/* pgtrial-capture "

// Config is a capture's settings.
type Config struct {
	ConnString       string
	Out              string        // the workload directory (created; must not exist or be empty)
	MinCalls         int64         // statements with fewer calls are left out
	Top              int           // at most this many statements, by calls (0: all)
	StatementTimeout time.Duration // the source's statement_timeout for capture's queries
	// DefaultRange R: a numeric parameter whose distribution cannot be
	// known (a delta in col + $n, a column without pg_stats and no column
	// to borrow them from) is drawn uniformly from [-R, R] (0: 5000,
	// pgbench's tpcb-like delta).
	DefaultRange int64
	// SampleWaits: sample the source's pg_stat_activity wait events for
	// this long into the profile (0: none).
	SampleWaits time.Duration
	Log         io.Writer // progress lines; nil for none
}

// Result is what Capture wrote.
type Result struct {
	Profile *Profile
	Dir     string
	Command string // the pgtrial run command line (run.sh's)
}

// Capture reads cfg's source and writes the workload directory.
func Capture(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Out == "" {
		return nil, errors.New("capture: give the workload directory with --out DIR")
	}
	if err := emptyDir(cfg.Out); err != nil {
		return nil, err
	}
	conn, err := connectReadOnly(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())

	totals, info, err := collect.ReadStatementTotals(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	var dbid int64
	var server string
	if err := conn.QueryRow(ctx, collect.CollectorSQLMarker+` select oid::int8, current_setting('server_version') from pg_catalog.pg_database where datname = current_database()`).Scan(&dbid, &server); err != nil {
		return nil, fmt.Errorf("capture: read the database's oid: %w", err)
	}
	p := &Profile{Schema: ProfileSchema, CapturedAt: time.Now().UTC(), Server: server, Database: info.Database, Extension: info.Version}
	p.Statements = gather(totals, dbid, cfg.MinCalls, cfg.Top)
	for _, s := range p.Statements {
		p.Calls += s.Calls
	}
	if len(p.Statements) == 0 {
		return nil, fmt.Errorf("capture: pg_stat_statements of database %q has no top-level statement with at least %d calls", info.Database, cfg.MinCalls)
	}
	if err := os.MkdirAll(cfg.Out, 0o700); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	if cfg.SampleWaits > 0 {
		if p.Waits, err = sampleWaits(ctx, conn, cfg.SampleWaits); err != nil {
			return nil, err
		}
	}
	res := &Result{Profile: p, Dir: cfg.Out}
	var scripts []*Statement
	for i := range p.Statements {
		s := &p.Statements[i]
		s.Share = float64(s.Calls) / float64(p.Calls)
		body, params, why := makeScript(ctx, conn, s, cmp.Or(cfg.DefaultRange, DefaultRange))
		if why != "" {
			s.Skipped = why
			continue
		}
		s.Parameters = params
		s.Script = fmt.Sprintf("%02d-%s.sql", i+1, scriptName(s.Query))
		if err := os.WriteFile(filepath.Join(cfg.Out, s.Script), []byte(body), 0o600); err != nil {
			return nil, fmt.Errorf("capture: %w", err)
		}
		scripts = append(scripts, s)
	}
	setWeights(scripts)
	res.Command = runCommand(p)
	if err := WriteProfile(cfg.Out, p); err != nil {
		return nil, err
	}
	if err := writeRunScript(cfg.Out, p); err != nil {
		return nil, err
	}
	if err := writeReadme(cfg.Out, p, res.Command); err != nil {
		return nil, err
	}
	return res, nil
}

// emptyDir refuses a directory that exists with files in it.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("capture: %s is not empty: give a new directory with --out", dir)
	}
	return nil
}

// connectReadOnly opens capture's session: pgtrial's own session settings
// (pgsession.Own) with cfg's statement timeout, every transaction read-only.
func connectReadOnly(ctx context.Context, cfg Config) (*pgx.Conn, error) {
	cc, err := pgx.ParseConfig(cfg.ConnString)
	if err != nil {
		return nil, fmt.Errorf("capture: connection string: %w", err)
	}
	timeout := cfg.StatementTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	pgsession.Own(&cc.Config, ApplicationName, timeout)
	cc.RuntimeParams["default_transaction_read_only"] = "on"
	if cc.ConnectTimeout == 0 || cc.ConnectTimeout > 10*time.Second {
		cc.ConnectTimeout = 10 * time.Second
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("capture: connect: %w", pgerr.Cause(err, &cc.Config))
	}
	return conn, nil
}

// gather sums the database's top-level entries by queryid (over roles),
// keeps those with at least minCalls calls, the top by calls: Q1, Q2, …
func gather(totals []collect.StatementTotals, dbid, minCalls int64, top int) []Statement {
	type sum struct {
		s            Statement
		rows, blocks float64
		ms           float64
		textCalls    float64
	}
	byID := map[int64]*sum{}
	for _, t := range totals {
		if t.DBID != dbid || t.Toplevel == "false" || t.Calls <= 0 {
			continue
		}
		if isOwn(t.Query) {
			continue
		}
		s := byID[t.QueryID]
		if s == nil {
			s = &sum{s: Statement{QueryID: t.QueryID}}
			byID[t.QueryID] = s
		}
		s.s.Calls += int64(t.Calls)
		s.rows += t.Rows
		s.blocks += t.SharedBlksHit + t.SharedBlksRead
		s.ms += t.TotalExecMs
		if t.Query != "" && t.Calls > s.textCalls {
			s.s.Query, s.textCalls = results.RedactSQL(t.Query), t.Calls
			s.s.cut = utf8.RuneCountInString(t.Query) >= maxQueryChars
		}
	}
	var out []Statement
	for _, s := range byID {
		if s.s.Calls < max(minCalls, 1) {
			continue
		}
		n := float64(s.s.Calls)
		s.s.RowsPerCall, s.s.BlocksPerCall, s.s.MeanMs = s.rows/n, s.blocks/n, s.ms/n
		out = append(out, s.s)
	}
	slices.SortFunc(out, func(a, b Statement) int {
		return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.QueryID, b.QueryID))
	})
	if top > 0 && len(out) > top {
		out = out[:top]
	}
	for i := range out {
		out[i].ID = "Q" + strconv.Itoa(i+1)
	}
	return out
}

// isOwn says whether a statement is pgtrial's own: its collectors' and
// sessions' (marked with a comment) or a replayed capture's is not.
func isOwn(query string) bool {
	q := strings.TrimSpace(query)
	return strings.HasPrefix(q, "/* pgtrial") && !strings.HasPrefix(q, Tag)
}

// DefaultRange is Config.DefaultRange's default.
const DefaultRange = 5000

// makeScript writes s's script, or says why not: the script's text, where
// each parameter comes from, or the reason. A parameter whose distribution
// cannot be known is drawn by defaultDrawing over [-rng, rng] and listed in
// s.Approximations.
func makeScript(ctx context.Context, conn *pgx.Conn, s *Statement, rng int64) (string, []string, string) {
	text := stripTag(s.Query)
	if text == "" {
		return "", nil, "its text is not visible to the capturing role (grant pg_read_all_stats)"
	}
	if s.cut {
		return "", nil, fmt.Sprintf("its text is longer than the %d characters pg_stat_statements' reader keeps", maxQueryChars)
	}
	if strings.Contains(text, results.Redacted) {
		return "", nil, "its text held a secret (redacted)"
	}
	toks := tokenize(text)
	if kind := statementKind(toks); kind != "dml" {
		return "", nil, kind
	}
	// The parameters' types, from a Parse of the text (no plan, no write).
	var types []uint32
	if hasParams(toks) {
		sd, err := conn.Prepare(ctx, "", text)
		if err != nil {
			return "", nil, "the server cannot prepare its text: " + firstLine(err.Error())
		}
		types = sd.ParamOIDs
	}
	cols, tables := paramColumns(toks)
	drawings := map[int]drawing{}
	var params []string
	for n := 1; n <= len(types); n++ {
		c, ok := cols[n]
		if !ok {
			return "", nil, fmt.Sprintf("unknown column: $%d is not compared with a column (only col = $n, col < $n, col IN (…), BETWEEN, ANY, LIKE, SET col = $n, col ± $n, col * $n and INSERT … VALUES are read)", n)
		}
		if c.arith {
			if !numberTypes[types[n-1]] {
				return "", nil, fmt.Sprintf("unknown column: $%d is an operand of arithmetic with %s, not of a number type", n, c.name)
			}
			d := defaultDrawing(n, rng, "no statistics for a delta: $"+strconv.Itoa(n)+" is an operand of arithmetic with "+c.name)
			drawings[n] = d
			params = append(params, fmt.Sprintf("$%d: %s", n, d.how))
			s.Approximations = append(s.Approximations, fmt.Sprintf("$%d %s", n, strings.TrimPrefix(d.how, "approximated: ")))
			continue
		}
		st, err := columnStats(ctx, conn, c, tables, types[n-1])
		var none *noStatsError
		if errors.As(err, &none) && numberTypes[types[n-1]] {
			d := defaultDrawing(n, rng, none.Error())
			drawings[n] = d
			params = append(params, fmt.Sprintf("$%d: %s", n, d.how))
			s.Approximations = append(s.Approximations, fmt.Sprintf("$%d %s", n, strings.TrimPrefix(d.how, "approximated: ")))
			continue
		}
		if err != nil {
			return "", nil, fmt.Sprintf("$%d (%s): %v", n, c.name, err)
		}
		d, err := draw(n, st)
		if err != nil {
			return "", nil, fmt.Sprintf("$%d: %v", n, err)
		}
		if st.via != "" {
			d.how += " (" + st.via + ")"
		}
		drawings[n] = d
		params = append(params, fmt.Sprintf("$%d: %s", n, d.how))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "-- %s, captured by pgtrial capture: %d calls (%.2f %%)\n", s.ID, s.Calls, 100*s.Share)
	for n := 1; n <= len(types); n++ {
		for _, l := range drawings[n].sets {
			b.WriteString(l + "\n")
		}
	}
	fmt.Fprintf(&b, "%s%s */ %s;\n", Tag, s.ID, substitute(text, drawings))
	return b.String(), params, ""
}

// stripTag drops a captured script's tag, when the capture is of a replay,
// and the trailing semicolon.
func stripTag(q string) string {
	q = strings.TrimSpace(q)
	if strings.HasPrefix(q, Tag) {
		if i := strings.Index(q, "*/"); i >= 0 {
			q = strings.TrimSpace(q[i+2:])
		}
	}
	return strings.TrimSpace(strings.TrimSuffix(q, ";"))
}

func hasParams(toks []token) bool {
	for _, t := range toks {
		if t.kind == tokParam {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// paramRE finds $n outside literals; substitute checks the context.
var paramRE = regexp.MustCompile(`\$[0-9]+`)

// substitute replaces each $n of text (outside literals, quoted names and
// comments) by its drawing's expression.
func substitute(text string, drawings map[int]drawing) string {
	var b strings.Builder
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(text) {
				if text[j] == c {
					if j+1 < len(text) && text[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(text))
			b.WriteString(text[i:end])
			i = end
		case c == '$':
			if loc := paramRE.FindStringIndex(text[i:]); loc != nil && loc[0] == 0 && (i == 0 || !isWordStart(text[i-1]) && !isDigit(text[i-1])) {
				n, _ := strconv.Atoi(text[i+1 : i+loc[1]])
				if d, ok := drawings[n]; ok {
					b.WriteString(d.expr)
					i += loc[1]
					continue
				}
			}
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// integerTypes are the OIDs of int2, int4 and int8.
var integerTypes = map[uint32]bool{20: true, 21: true, 23: true}

// numberTypes are the OIDs of the types an integer drawn by pgbench can be
// sent as: int2, int4, int8, numeric, float4, float8.
var numberTypes = map[uint32]bool{20: true, 21: true, 23: true, 1700: true, 700: true, 701: true}

// noStatsError: a column has no usable pg_stats row and no column to
// borrow one from.
type noStatsError struct{ msg string }

func (e *noStatsError) Error() string { return e.msg }

// defaultDrawing draws parameter n uniformly from [-rng, rng]: the
// documented default for a parameter whose distribution is unknown.
func defaultDrawing(n int, rng int64, why string) drawing {
	v := "p" + strconv.Itoa(n)
	return drawing{
		sets: []string{fmt.Sprintf(`\set %s random(%d, %d)`, v, -rng, rng)},
		expr: ":" + v,
		how:  fmt.Sprintf("approximated: drawn uniformly from [%d, %d] (%s)", -rng, rng, why),
	}
}

// columnStats reads the pg_stats row of column c of the statement's
// tables: the table c's qualifier names (an alias or a table), else the
// first of the tables that has such a column. When that column has no
// usable row (an empty or never analysed table), it borrows the row of the
// column its foreign key references, else of a column of the same name and
// type in another table (pgbench_history.tid: pgbench_tellers.tid), a
// primary key first; else it returns a *noStatsError. Only pg_stats and the
// catalogue are read.
func columnStats(ctx context.Context, conn *pgx.Conn, c columnRef, tables []tableRef, paramType uint32) (*colStats, error) {
	var cands []string
	for _, t := range tables {
		if c.qualifier == "" || c.qualifier == t.alias || c.qualifier == lastPart(t.name) {
			cands = append(cands, t.name)
		}
	}
	if len(cands) == 0 {
		return nil, errors.New("unknown column: no table of the statement holds it")
	}
	for _, name := range cands {
		st, found, err := statsRow(ctx, conn, name, c.name, paramType)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		if st.usable() {
			return st, nil
		}
		table, column, kind, err := borrowFrom(ctx, conn, name, c.name)
		if err != nil {
			return nil, err
		}
		if table != "" {
			other, ok, err := statsRow(ctx, conn, table, column, paramType)
			if err != nil {
				return nil, err
			}
			if ok && other.usable() {
				other.via = fmt.Sprintf("%s.%s has no values in pg_stats: those of %s, %s.%s", st.table, c.name, kind, other.table, column)
				return other, nil
			}
		}
		return nil, &noStatsError{fmt.Sprintf("no statistics: %s.%s has no values in pg_stats, nor has a column its foreign key references or of the same name (ANALYZE it on the source, or the capturing role may not read it)", st.table, c.name)}
	}
	return nil, fmt.Errorf("unknown column: no table of the statement (%s) has a column %s", strings.Join(cands, ", "), c.name)
}

// usable says whether a pg_stats row gives values to draw from.
func (s *colStats) usable() bool { return s.hasRow && (len(s.mcv) > 0 || len(s.hist) > 0) }

// statsRow reads column col of table name (as written in SQL) and its
// pg_stats row: found is false when the table has no such column.
func statsRow(ctx context.Context, conn *pgx.Conn, name, col string, paramType uint32) (*colStats, bool, error) {
	var (
		st          colStats
		nullFrac    *float64
		mcv, hist   *string
		freqs       []float64
		schema, rel string
		found       string
	)
	err := conn.QueryRow(ctx, collect.CollectorSQLMarker+` select n.nspname::text, c.relname::text,
			format_type(a.atttypid, a.atttypmod), s.null_frac::float8, s.most_common_vals::text,
			s.most_common_freqs::float8[], s.histogram_bounds::text
		from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
		join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attname = $2 and not a.attisdropped
		left join pg_catalog.pg_stats s on s.schemaname = n.nspname and s.tablename = c.relname and s.attname = a.attname
		where c.oid = to_regclass($1)
		order by s.inherited desc nulls last limit 1`, name, col).Scan(&schema, &rel, &found, &nullFrac, &mcv, &freqs, &hist)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read pg_stats of %s.%s: %w", name, col, err)
	}
	st.table = pgx.Identifier{schema, rel}.Sanitize()
	st.column, st.typ = col, found
	if nullFrac == nil {
		return &st, true, nil
	}
	st.hasRow = true
	st.nullFrac, st.freqs = *nullFrac, freqs
	if mcv != nil {
		if st.mcv, err = parseArray(*mcv); err != nil {
			return nil, false, err
		}
	}
	if hist != nil {
		if st.hist, err = parseArray(*hist); err != nil {
			return nil, false, err
		}
	}
	st.integer = integerTypes[paramType] && allIntegers(st.mcv) && allIntegers(st.hist)
	return &st, true, nil
}

// borrowFrom finds the column whose pg_stats stand in for column col of
// table name: the one its single-column foreign key references, else one of
// the same name and type in another table that has pg_stats, a one-column
// primary key first, the same schema first. It returns the table (quoted),
// the column, and in words which kind it is; table is "" when none.
func borrowFrom(ctx context.Context, conn *pgx.Conn, name, col string) (string, string, string, error) {
	var table, column, kind string
	err := conn.QueryRow(ctx, collect.CollectorSQLMarker+` with src as (
			select c.oid, c.relnamespace, a.attnum, a.atttypid from pg_catalog.pg_class c
			join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attname = $2 and not a.attisdropped
			where c.oid = to_regclass($1)),
		cand as (
			select 0 as rank, con.confrelid as rel, con.confkey[1] as attnum, 'the column its foreign key references' as kind
			from pg_catalog.pg_constraint con, src
			where con.conrelid = src.oid and con.contype = 'f' and cardinality(con.conkey) = 1 and con.conkey[1] = src.attnum
			union all
			select case when exists (select 1 from pg_catalog.pg_index i where i.indrelid = a.attrelid and i.indisprimary
					and i.indnatts = 1 and i.indkey[0] = a.attnum) then 1 else 2 end, a.attrelid, a.attnum, 'a column of the same name'
			from pg_catalog.pg_attribute a, src
			where a.attname = $2 and a.attrelid <> src.oid and a.atttypid = src.atttypid and a.attnum > 0 and not a.attisdropped)
		select format('%I.%I', n.nspname, c.relname), a.attname::text, cand.kind
		from cand join pg_catalog.pg_class c on c.oid = cand.rel and c.relkind in ('r', 'p', 'm')
		join pg_catalog.pg_namespace n on n.oid = c.relnamespace
		join pg_catalog.pg_attribute a on a.attrelid = cand.rel and a.attnum = cand.attnum
		join pg_catalog.pg_stats s on s.schemaname = n.nspname and s.tablename = c.relname and s.attname = a.attname
		cross join src
		where s.most_common_vals is not null or s.histogram_bounds is not null
		order by cand.rank, (c.relnamespace = src.relnamespace) desc, n.nspname, c.relname limit 1`, name, col).Scan(&table, &column, &kind)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", "", nil
	}
	if err != nil {
		return "", "", "", fmt.Errorf("look for statistics to borrow for %s.%s: %w", name, col, err)
	}
	return table, column, kind, nil
}

func lastPart(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func allIntegers(vs []string) bool {
	for _, v := range vs {
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return false
		}
	}
	return true
}

// scriptName is a file name's part for a statement: its first word and
// its first table ("select-pgbench_accounts").
func scriptName(query string) string {
	toks := tokenize(stripTag(query))
	name := "statement"
	if len(toks) > 0 {
		name = toks[0].text
	}
	if ts := findTables(toks); len(ts) > 0 {
		name += "-" + lastPart(ts[0].name)
	}
	clean := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			return r
		}
		return -1
	}, strings.ToLower(name))
	return cmp.Or(clean, "statement")
}

// setWeights gives each script its weight: its calls' share of the
// scripts' calls in parts per weightScale (at least 1), and the share the
// weights make.
func setWeights(scripts []*Statement) {
	var calls int64
	for _, s := range scripts {
		calls += s.Calls
	}
	var sum int
	for _, s := range scripts {
		s.Weight = max(1, int(math.Round(float64(s.Calls)/float64(calls)*weightScale)))
		sum += s.Weight
	}
	for _, s := range scripts {
		s.ScriptShare = float64(s.Weight) / float64(sum)
	}
}

// runCommand is the pgtrial run command line of the scripts (relative to
// the workload directory's parent when run from there; run.sh uses its own
// location).
func runCommand(p *Profile) string {
	parts := []string{"pgtrial run"}
	for _, s := range p.Statements {
		if s.Script != "" {
			parts = append(parts, fmt.Sprintf("-f %s@%d", s.Script, s.Weight))
		}
	}
	return strings.Join(parts, " ")
}

// writeRunScript writes run.sh: pgtrial run with the scripts and their
// weights, its own arguments passed on (the target, -T, --rate, …).
func writeRunScript(dir string, p *Profile) error {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# The captured workload: pgtrial run with one script per statement, weighted by calls.\n")
	b.WriteString("# Usage: ./run.sh [pgtrial run flags, e.g. postgres://host/db -T 60s --rate 500]\n")
	b.WriteString("d=$(dirname \"$0\")\nexec pgtrial run \"$@\"")
	for _, s := range p.Statements {
		if s.Script != "" {
			fmt.Fprintf(&b, " \\\n  -f \"$d/%s@%d\"", s.Script, s.Weight)
		}
	}
	b.WriteString("\n")
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(b.String()), 0o700); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	return nil
}

// writeReadme writes README.md: the statements, their scripts and weights,
// how parameters are drawn, the statements left out and why.
func writeReadme(dir string, p *Profile, command string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Workload captured from %s\n\n", p.Database)
	fmt.Fprintf(&b, "Captured by `pgtrial capture` at %s from pg_stat_statements %s (PostgreSQL %s): %d top-level statements, %d calls.\n\n",
		p.CapturedAt.Format(time.RFC3339), p.Extension, p.Server, len(p.Statements), p.Calls)
	b.WriteString("Run it with `./run.sh TARGET -T 60s …` (pgtrial run's flags), i.e.\n\n    " + command + "\n\n")
	b.WriteString("from this directory. Compare the run with the profile: `pgtrial capture compare DIR RUN_DIR`.\n\n")
	b.WriteString("## Statements\n\n| id | script | weight | share of calls | calls | rows/call | blocks/call | mean ms | text |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, s := range p.Statements {
		script, weight := s.Script, strconv.Itoa(s.Weight)
		if script == "" {
			script, weight = "—", "—"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f %% | %d | %.2f | %.1f | %.3f | `%s` |\n", s.ID, script, weight, 100*s.Share, s.Calls,
			s.RowsPerCall, s.BlocksPerCall, s.MeanMs, mdCode(s.Query))
	}
	b.WriteString("\n## Parameters\n\n")
	b.WriteString("Each `$n` compared with a column is drawn from that column's pg_stats: a most common value with its frequency\n" +
		"(NULLs left out), else the histogram: for an integer a bucket uniformly, then an integer uniformly between its\n" +
		"bounds; for another type one of the bounds. pgbench's `\\set` holds numbers only, so a parameter of another type\n" +
		"is an index `:pN` into an array literal of the column's values, chosen on the SQL side: `('{…}'::type[])[:pN]`.\n" +
		"A column without pg_stats (an empty or never analysed table, such as an INSERT's target) borrows those of the\n" +
		"column its foreign key references, else of a column of the same name and type in another table (a primary key\n" +
		"first). A number parameter whose distribution cannot be known (a delta: `col = col + $n`, `col * $n`; a column\n" +
		"with no statistics to borrow) is drawn uniformly from [-R, R], R = `--default-range` (default 5000, pgbench's\n" +
		"tpcb-like delta): an approximation, listed under \"Approximated\".\n\n")
	for _, s := range p.Statements {
		for _, prm := range s.Parameters {
			fmt.Fprintf(&b, "- %s %s\n", s.ID, prm)
		}
	}
	b.WriteString("\nEach statement is replayed as a transaction of its own: the application's transactions (BEGIN … COMMIT around\n" +
		"several statements) are not rebuilt, and their BEGIN and COMMIT are listed below as transaction control.\n")
	b.WriteString("\n## Approximated\n\n")
	approx := 0
	for _, s := range p.Statements {
		for _, a := range s.Approximations {
			approx++
			fmt.Fprintf(&b, "- %s approximated: %s\n", s.ID, a)
		}
	}
	if approx == 0 {
		b.WriteString("No parameter is approximated.\n")
	}
	b.WriteString("\n## Not parameterised\n\n")
	n := 0
	for _, s := range p.Statements {
		if s.Skipped != "" {
			n++
			fmt.Fprintf(&b, "- %s (%d calls, %.2f %%): %s. `%s`\n", s.ID, s.Calls, 100*s.Share, s.Skipped, mdCode(s.Query))
		}
	}
	if n == 0 {
		b.WriteString("Every statement was parameterised.\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	return nil
}

// mdCode makes a statement's text fit a Markdown code span in a table row.
func mdCode(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "`", "'")
	s = strings.ReplaceAll(s, "|", `\|`)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
