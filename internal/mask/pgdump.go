package mask

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/localpg"
)

// pgDumpFor is the pg_dump to prove with: explicit if given (its version still
// checked), else FindPgDump for the server's major version.
func pgDumpFor(ctx context.Context, conn *pgx.Conn, explicit string) (string, error) {
	var num int
	if err := conn.QueryRow(ctx, "select current_setting('server_version_num')::int").Scan(&num); err != nil {
		return "", fmt.Errorf("mask: read server_version_num: %w", err)
	}
	major := num / 10000
	if num < 100000 {
		major = num / 100 // 9.6 → 906
	}
	return FindPgDump(major, explicit, os.Getenv)
}

// FindPgDump finds a pg_dump at least as new as the server (pg_dump refuses a newer
// server): explicit when given (nothing else is tried); else the first that qualifies
// of $PGTRIAL_PG_BIN/pg_dump (alone when set), /usr/lib/postgresql/MAJOR/bin, pg_config
// --bindir, PATH, and the other /usr/lib/postgresql/*/bin. serverMajor is 15 for 15.x
// (906 for 9.6).
func FindPgDump(serverMajor int, explicit string, getenv func(string) string) (string, error) {
	var tried []string
	check := func(p string) (string, bool) {
		m, err := pgDumpMajor(p)
		switch {
		case err != nil:
			tried = append(tried, fmt.Sprintf("%s: %v", p, err))
		case m < serverMajor:
			tried = append(tried, fmt.Sprintf("%s: version %d, older than the server's %d", p, m, serverMajor))
		default:
			return p, true
		}
		return "", false
	}
	fail := func() (string, error) {
		return "", fmt.Errorf("mask: proof: no pg_dump of version ≥ %d found (tried: %s); install one (Debian/Ubuntu: apt-get install postgresql-client-%d), "+
			"point %s at its directory, or skip the proof with --prove 0", serverMajor, strings.Join(tried, "; "), serverMajor, localpg.EnvPGBin)
	}
	if explicit != "" {
		if p, ok := check(explicit); ok {
			return p, nil
		}
		return fail()
	}
	if dir := getenv(localpg.EnvPGBin); dir != "" {
		if p, ok := check(filepath.Join(dir, "pg_dump")); ok {
			return p, nil
		}
		return fail()
	}
	candidates := []string{filepath.Join("/usr/lib/postgresql", strconv.Itoa(serverMajor), "bin", "pg_dump")}
	pathDirs := filepath.SplitList(getenv("PATH"))
	for _, d := range pathDirs {
		if pc := filepath.Join(d, "pg_config"); isExec(pc) {
			if out, err := runShort(pc, "--bindir"); err == nil {
				candidates = append(candidates, filepath.Join(strings.TrimSpace(out), "pg_dump"))
			}
			break
		}
	}
	for _, d := range pathDirs {
		if d != "" {
			candidates = append(candidates, filepath.Join(d, "pg_dump"))
		}
	}
	others, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_dump")
	slices.Reverse(others) // lexical order; any version ≥ the server's will do
	candidates = append(candidates, others...)
	seen := map[string]bool{}
	for _, p := range candidates {
		if seen[p] || !isExec(p) {
			continue
		}
		seen[p] = true
		if p, ok := check(p); ok {
			return p, nil
		}
	}
	if len(tried) == 0 {
		tried = append(tried, "no pg_dump in "+localpg.EnvPGBin+", /usr/lib/postgresql/*/bin, pg_config --bindir or PATH")
	}
	return fail()
}

// pgDumpVersionRE matches "pg_dump (PostgreSQL) 15.18 (Debian …)" and "9.6.24".
var pgDumpVersionRE = regexp.MustCompile(`\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?`)

// pgDumpMajor is the major version p reports (906 for 9.6).
func pgDumpMajor(p string) (int, error) {
	out, err := runShort(p, "--version")
	if err != nil {
		return 0, err
	}
	m := pgDumpVersionRE.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("unrecognised version %q", strings.TrimSpace(out))
	}
	major, _ := strconv.Atoi(m[1])
	if major < 10 && m[2] != "" {
		minor, _ := strconv.Atoi(m[2])
		major = major*100 + minor
	}
	return major, nil
}

func runShort(p string, arg string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p, arg).Output()
	if err != nil {
		return "", fmt.Errorf("run %s %s: %w", p, arg, err)
	}
	return string(out), nil
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// withoutPassword is connString without its password (a URL's user info and password
// parameter, a keyword/value string's password=…) and the password pgx would use
// (also from PGPASSWORD or the password file), for pg_dump's environment.
func withoutPassword(connString string) (string, string, error) {
	cfg, err := pgconn.ParseConfig(connString)
	if err != nil {
		return "", "", fmt.Errorf("mask: invalid connection string: %w", err)
	}
	if strings.HasPrefix(connString, "postgres://") || strings.HasPrefix(connString, "postgresql://") {
		u, err := url.Parse(connString)
		if err != nil {
			return "", "", fmt.Errorf("mask: invalid connection URL: %w", err)
		}
		if u.User != nil {
			u.User = url.User(u.User.Username())
		}
		q := u.Query()
		if q.Has("password") {
			q.Del("password")
			u.RawQuery = q.Encode()
		}
		return u.String(), cfg.Password, nil
	}
	return dropKeyword(connString, "password"), cfg.Password, nil
}

// dropKeyword removes key=value from a libpq keyword/value string (values unquoted,
// or in single quotes with backslash escapes).
func dropKeyword(s, key string) string {
	var out []string
	i := 0
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
		start := i
		for i < len(s) && s[i] != '=' && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		k := s[start:i]
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i < len(s) && s[i] == '=' {
			i++
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i < len(s) && s[i] == '\'' {
			i++
			for i < len(s) && s[i] != '\'' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			i++
		} else {
			for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
				i++
			}
		}
		i = min(i, len(s))
		if k != "" && k != key {
			out = append(out, s[start:i])
		}
	}
	return strings.Join(out, " ")
}
