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
	Log              io.Writer     // progress lines; nil for none
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
	res := &Result{Profile: p, Dir: cfg.Out}
	var scripts []*Statement
	for i := range p.Statements {
		s := &p.Statements[i]
		s.Share = float64(s.Calls) / float64(p.Calls)
		body, params, why := makeScript(ctx, conn, s)
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

// makeScript writes s's script, or says why not: the script's text, where
// each parameter comes from, or the reason.
func makeScript(ctx context.Context, conn *pgx.Conn, s *Statement) (string, []string, string) {
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
			return "", nil, fmt.Sprintf("unknown column: $%d is not compared with a column (only col = $n, col < $n, col IN (…), BETWEEN, ANY, LIKE, SET col = $n and INSERT … VALUES are read)", n)
		}
		st, err := columnStats(ctx, conn, c, tables, types[n-1])
		if err != nil {
			return "", nil, fmt.Sprintf("$%d (%s): %v", n, c.name, err)
		}
		d, err := draw(n, st)
		if err != nil {
			return "", nil, fmt.Sprintf("$%d: %v", n, err)
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

// columnStats reads the pg_stats row of column c of the statement's
// tables: the table c's qualifier names (an alias or a table), else the
// first of the tables that has such a column. Only pg_stats is read.
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
		var (
			st                 colStats
			nullFrac           *float64
			mcv, hist          *string
			freqs              []float64
			schema, rel, found string
		)
		err := conn.QueryRow(ctx, collect.CollectorSQLMarker+` select n.nspname::text, c.relname::text,
				format_type(a.atttypid, a.atttypmod), s.null_frac::float8, s.most_common_vals::text,
				s.most_common_freqs::float8[], s.histogram_bounds::text
			from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
			join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attname = $2 and not a.attisdropped
			left join pg_catalog.pg_stats s on s.schemaname = n.nspname and s.tablename = c.relname and s.attname = a.attname
			where c.oid = to_regclass($1)
			order by s.inherited desc nulls last limit 1`, name, c.name).Scan(&schema, &rel, &found, &nullFrac, &mcv, &freqs, &hist)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read pg_stats of %s.%s: %w", name, c.name, err)
		}
		st.table = pgx.Identifier{schema, rel}.Sanitize()
		st.column, st.typ = c.name, found
		if nullFrac == nil {
			return nil, fmt.Errorf("%s has no pg_stats row for column %s (ANALYZE it on the source, or the capturing role may not read it)", st.table, c.name)
		}
		st.nullFrac, st.freqs = *nullFrac, freqs
		if mcv != nil {
			if st.mcv, err = parseArray(*mcv); err != nil {
				return nil, err
			}
		}
		if hist != nil {
			if st.hist, err = parseArray(*hist); err != nil {
				return nil, err
			}
		}
		st.integer = integerTypes[paramType] && allIntegers(st.mcv) && allIntegers(st.hist)
		return &st, nil
	}
	return nil, fmt.Errorf("unknown column: no table of the statement (%s) has a column %s", strings.Join(cands, ", "), c.name)
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
		"is an index `:pN` into an array literal of the column's values, chosen on the SQL side: `('{…}'::type[])[:pN]`.\n\n")
	for _, s := range p.Statements {
		for _, prm := range s.Parameters {
			fmt.Fprintf(&b, "- %s %s\n", s.ID, prm)
		}
	}
	b.WriteString("\nEach statement is replayed as a transaction of its own: the application's transactions (BEGIN … COMMIT around\n" +
		"several statements) are not rebuilt, and their BEGIN and COMMIT are listed below as transaction control.\n")
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
