package pgbenchfmt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// The conformance runner replays PostgreSQL's own pgbench TAP cases
// (reference/pgbench-cases/cases.json, see its README) through "pgtrial pgbench".
//
//   - 002 cases (no server: option errors, script errors, help, version) must all
//     pass: any failure fails the test.
//   - 001 cases (against a server, in id order, one database) run when a PostgreSQL
//     server can be started (internal/pgtest), and must pass too, except that a
//     case whose "requires.server" is newer than the server's major version
//     (its expected output is a newer server's behaviour) is counted as skipped
//     when it fails. TODO cases never fail the test.
//
// The summary line is "pgbench conformance: N passed, M failed, K skipped".
// Run it alone with: go test -run TestPgbenchConformance -v ./internal/pgbenchfmt/

func TestMain(m *testing.M) { pgtest.Main(m) }

// tapCase is one record of cases.json (the fields the runner uses).
type tapCase struct {
	ID             string            `json:"id"`
	Name           string            `json:"name"`
	Files          []tapFile         `json:"files"`
	Options        []string          `json:"options"`
	ExtraArgs      []string          `json:"extra_args"`
	ExitStatus     int               `json:"expect_exit_status"`
	StdoutRegexps  []string          `json:"expect_stdout_regexps"`
	StderrRegexps  []string          `json:"expect_stderr_regexps"`
	NeedsServer    bool              `json:"needs_server"`
	Env            map[string]string `json:"env"`
	SetupSQL       []string          `json:"setup_sql"`
	ServerConf     []string          `json:"server_conf"`
	Todo           bool              `json:"todo"`
	PostChecks     []postCheck       `json:"post_checks"`
	LogChecks      *logCheck         `json:"log_checks"`
	RegexpsNeedPCR bool              `json:"regexps_need_pcre"`
	Requires       *struct {
		Server int    `json:"server"`
		Why    string `json:"why"`
	} `json:"requires"`
}

type tapFile struct {
	Name    string `json:"name"`
	Weight  *int   `json:"weight"`
	Content string `json:"content"`
}

type postCheck struct {
	SQL           string   `json:"sql"`
	Expect        *string  `json:"expect"`
	ExpectRegexps []string `json:"expect_regexps"`
}

type logCheck struct {
	Dir        string `json:"dir"`
	Prefix     string `json:"prefix"`
	Files      int    `json:"files"`
	MinLines   int    `json:"min_lines"`
	MaxLines   int    `json:"max_lines"`
	LineRegexp string `json:"line_regexp"`
	NameRegexp string `json:"name_regexp"`
}

// conformance holds one run's tallies.
type conformance struct {
	passed, failed, skipped int
}

func TestPgbenchConformance(t *testing.T) {
	path := os.Getenv("PGTRIAL_PGBENCH_CASES")
	if path == "" {
		path = filepath.Join("..", "..", "..", "shared", "reference", "pgbench-cases", "cases.json")
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("no pgbench cases at %s (set PGTRIAL_PGBENCH_CASES)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	var cases []tapCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })

	bin := pgtest.BuildPgtrial(t)
	base := scratchBase(t)
	var res conformance
	type failure struct {
		line string
		hard bool
	}
	var failures []failure
	report := func(c tapCase, problems []string, hard bool) {
		if len(problems) == 0 {
			res.passed++
			return
		}
		res.failed++
		line := fmt.Sprintf("FAIL %s %s: %s", c.ID, c.Name, strings.Join(problems, "; "))
		if c.Todo {
			line += " (TODO upstream: tolerated)"
		}
		failures = append(failures, failure{line, hard && !c.Todo})
	}

	var serverCases []tapCase
	for _, c := range cases {
		if c.NeedsServer {
			serverCases = append(serverCases, c)
			continue
		}
		problems := runCase(t, bin, base, c, nil)
		report(c, problems, true)
	}

	ran := false
	t.Run("server", func(t *testing.T) {
		if len(serverCases) == 0 {
			return
		}
		db := newCaseServer(t, base) // skips without PostgreSQL
		ran = true
		var num int
		if err := db.conn.QueryRow(context.Background(), "SELECT current_setting('server_version_num')::int").Scan(&num); err != nil {
			t.Fatal(err)
		}
		for _, c := range serverCases {
			problems := runCase(t, bin, base, c, db)
			if c.Requires != nil && c.Requires.Server > num/10000 && len(problems) > 0 {
				// The expected output is a newer server's behaviour.
				res.skipped++
				t.Logf("skip %s %s: needs PostgreSQL %d (%s); here: %s", c.ID, c.Name, c.Requires.Server, c.Requires.Why, strings.Join(problems, "; "))
				continue
			}
			report(c, problems, true)
		}
	})
	if !ran {
		res.skipped += len(serverCases)
	}

	summary := fmt.Sprintf("pgbench conformance: %d passed, %d failed, %d skipped", res.passed, res.failed, res.skipped)
	for _, f := range failures {
		if f.hard {
			t.Error(f.line)
		} else {
			t.Log(f.line)
		}
	}
	t.Log(summary)
	fmt.Println(summary)
}

// scratchBase is $BASEDIR: an absolute directory the server's OS user can reach
// (the tablespace of case 001-001 lives in it).
func scratchBase(t *testing.T) string {
	t.Helper()
	var lastErr error
	for _, parent := range []string{os.TempDir(), "/var/tmp", "/tmp"} {
		dir, err := os.MkdirTemp(parent, "pgtrial-conformance-")
		if err != nil {
			lastErr = err
			continue
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	t.Fatalf("no scratch directory: %v", lastErr)
	return ""
}

// caseServer is the database the 001 cases share.
type caseServer struct {
	url    string
	cfg    *pgconn.Config
	conn   *pgx.Conn
	confKV map[string]bool // settings changed with ALTER SYSTEM, reset at the end
}

func newCaseServer(t *testing.T, base string) *caseServer {
	t.Helper()
	cluster := pgtest.Cluster(t)
	// The tablespace must be dropped after the database (cleanups run last first).
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := cluster.Connect(ctx, ""); err == nil {
			c.Exec(ctx, "DROP TABLESPACE IF EXISTS regress_pgbench_tap_1_ts")
			c.Close(ctx)
		}
	})
	url := pgtest.ConnString(t)
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	s := &caseServer{url: url, cfg: cfg, conn: conn, confKV: map[string]bool{}}
	t.Cleanup(func() {
		for k := range s.confKV {
			conn.Exec(ctx, "ALTER SYSTEM RESET "+k)
		}
		conn.Exec(ctx, "SELECT pg_reload_conf()")
		conn.Close(ctx)
	})
	// The tablespace directory of 001-001, owned by the server's OS user.
	tsDir := filepath.Join(base, "regress_pgbench_tap_1_ts_dir")
	if err := os.MkdirAll(tsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if u := cluster.OSUser(); u.Switch {
		if err := os.Chown(tsDir, int(u.UID), int(u.GID)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// env returns the libpq environment that points pgbench at the database.
func (s *caseServer) env() []string {
	return []string{
		"PGHOST=" + s.cfg.Host,
		fmt.Sprintf("PGPORT=%d", s.cfg.Port),
		"PGUSER=" + s.cfg.User,
		"PGDATABASE=" + s.cfg.Database,
		"PGSSLMODE=disable",
	}
}

// setup runs a case's setup SQL and server settings; problems are returned.
func (s *caseServer) setup(ctx context.Context, c tapCase, base string) []string {
	var problems []string
	for _, q := range c.SetupSQL {
		q = strings.ReplaceAll(q, "$BASEDIR", base)
		if _, err := s.conn.Exec(ctx, q); err != nil {
			problems = append(problems, fmt.Sprintf("setup %q: %v", q, err))
		}
	}
	if len(c.ServerConf) > 0 {
		for _, block := range c.ServerConf {
			for _, line := range strings.Split(block, "\n") {
				k, v, ok := strings.Cut(line, "=")
				if !ok {
					continue
				}
				k, v = strings.TrimSpace(k), strings.TrimSpace(v)
				if _, err := s.conn.Exec(ctx, fmt.Sprintf("ALTER SYSTEM SET %s = %s", k, v)); err != nil {
					problems = append(problems, fmt.Sprintf("server_conf %s: %v", line, err))
				}
				s.confKV[k] = true
			}
		}
		if _, err := s.conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
			problems = append(problems, fmt.Sprintf("reload: %v", err))
		}
		time.Sleep(100 * time.Millisecond) // let the postmaster signal the backends
	}
	return problems
}

// query returns psql's unaligned output of q: columns joined by '|', rows by '\n'.
func (s *caseServer) query(ctx context.Context, q string) (string, error) {
	rows, err := s.conn.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		raw := rows.RawValues()
		vals := make([]string, len(raw))
		for i, v := range raw {
			vals[i] = string(v) // text format; NULL prints as empty, as psql
		}
		lines = append(lines, strings.Join(vals, "|"))
	}
	return strings.Join(lines, "\n"), rows.Err()
}

// runCase runs one case and returns what did not match (nothing when it passed).
func runCase(t *testing.T, bin, base string, c tapCase, db *caseServer) []string {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(base, c.ID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var problems []string
	if db != nil {
		problems = append(problems, db.setup(ctx, c, base)...)
	}

	args := []string{"pgbench"}
	for _, a := range c.Options {
		args = append(args, strings.ReplaceAll(a, "$BASEDIR", base))
	}
	for _, f := range c.Files {
		p := filepath.Join(dir, f.Name)
		if err := os.WriteFile(p, []byte(f.Content), 0o644); err != nil {
			t.Fatal(err)
		}
		if f.Weight != nil {
			p += fmt.Sprintf("@%d", *f.Weight)
		}
		args = append(args, "--file", p)
	}
	for _, a := range c.ExtraArgs {
		args = append(args, strings.ReplaceAll(a, "$BASEDIR", base))
	}

	env := []string{"LC_ALL=C"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PG") || strings.HasPrefix(k, "LC_") || k == "LANG" || k == "POSIXLY_CORRECT" {
			continue
		}
		env = append(env, kv)
	}
	if db != nil {
		env = append(env, db.env()...)
	}
	for k, v := range c.Env {
		env = append(env, k+"="+v)
	}

	runCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(runCtx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || runCtx.Err() != nil {
			return append(problems, fmt.Sprintf("run: %v (timeout %v)", err, runCtx.Err() != nil))
		}
		code = ee.ExitCode()
	}
	if code != c.ExitStatus {
		problems = append(problems, fmt.Sprintf("exit status %d, want %d", code, c.ExitStatus))
	}
	for _, check := range []struct {
		stream, text string
		res          []string
	}{{"stdout", stdout.String(), c.StdoutRegexps}, {"stderr", stderr.String(), c.StderrRegexps}} {
		for _, re := range check.res {
			ok, err := perlMatch(re, check.text)
			switch {
			case err != nil:
				problems = append(problems, fmt.Sprintf("%s regexp /%s/: %v", check.stream, re, err))
			case !ok:
				problems = append(problems, fmt.Sprintf("%s does not match /%s/", check.stream, re))
			}
		}
	}
	if len(problems) > 0 {
		problems = append(problems, fmt.Sprintf("command: %q; stderr: %q", args[1:], abbreviate(stderr.String(), 200, 400)))
	}
	if db != nil {
		problems = append(problems, db.postChecks(ctx, c)...)
	}
	if c.LogChecks != nil {
		problems = append(problems, checkLogs(*c.LogChecks, base)...)
	}
	return problems
}

func (s *caseServer) postChecks(ctx context.Context, c tapCase) []string {
	var problems []string
	for _, pc := range c.PostChecks {
		out, err := s.query(ctx, pc.SQL)
		if err != nil {
			problems = append(problems, fmt.Sprintf("post check %q: %v", pc.SQL, err))
			continue
		}
		if pc.Expect != nil && strings.TrimSpace(out) != *pc.Expect {
			problems = append(problems, fmt.Sprintf("post check %q = %q, want %q", pc.SQL, out, *pc.Expect))
		}
		for _, re := range pc.ExpectRegexps {
			if ok, err := perlMatch(re, out); err != nil || !ok {
				problems = append(problems, fmt.Sprintf("post check %q = %q, does not match /%s/ (%v)", pc.SQL, out, re, err))
			}
		}
	}
	return problems
}

// checkLogs is the TAP file's check_pgbench_logs; the logs are removed afterwards.
func checkLogs(lc logCheck, base string) []string {
	dir := strings.ReplaceAll(lc.Dir, "$BASEDIR", base)
	logs, err := filepath.Glob(filepath.Join(dir, lc.Prefix+".*"))
	if err != nil {
		return []string{err.Error()}
	}
	sort.Strings(logs)
	defer func() {
		for _, l := range logs {
			os.Remove(l)
		}
	}()
	var problems []string
	if len(logs) != lc.Files {
		problems = append(problems, fmt.Sprintf("%d log files %s.*, want %d", len(logs), lc.Prefix, lc.Files))
	}
	nameRE, err := perlRegexp(lc.NameRegexp)
	if err != nil {
		return append(problems, err.Error())
	}
	lineRE, err := perlRegexp(lc.LineRegexp)
	if err != nil {
		return append(problems, err.Error())
	}
	for _, l := range logs {
		if !nameRE.MatchString(l) {
			problems = append(problems, fmt.Sprintf("log file name %s does not match /%s/", l, lc.NameRegexp))
		}
		content, err := os.ReadFile(l)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		// Perl's split(/\n/) drops trailing empty fields.
		lines := strings.Split(strings.TrimRight(string(content), "\n"), "\n")
		if len(content) == 0 {
			lines = nil
		}
		if len(lines) < lc.MinLines || len(lines) > lc.MaxLines {
			problems = append(problems, fmt.Sprintf("%s has %d lines, want %d..%d", filepath.Base(l), len(lines), lc.MinLines, lc.MaxLines))
		}
		for _, line := range lines {
			if !lineRE.MatchString(line) {
				problems = append(problems, fmt.Sprintf("%s: line %q does not match /%s/", filepath.Base(l), line, lc.LineRegexp))
				break
			}
		}
	}
	return problems
}

// abbreviate keeps the first and the last bytes of s (errors come last).
func abbreviate(s string, first, last int) string {
	if len(s) <= first+last {
		return s
	}
	return s[:first] + "…" + s[len(s)-last:]
}
