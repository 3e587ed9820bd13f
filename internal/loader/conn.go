package loader

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// QueryError is a failed statement: the server's message and the statement, as pgbench
// reports it ("query failed: …", "Query was: …").
type QueryError struct {
	SQL string
	Err error
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("query failed: %v (query was: %s)", e.Err, e.SQL)
}

func (e *QueryError) Unwrap() error { return e.Err }

// exec runs one statement (or several separated by semicolons) and discards the results.
func exec(ctx context.Context, c *pgconn.PgConn, sql string) error {
	if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
		return &QueryError{SQL: sql, Err: err}
	}
	return nil
}

// queryStrings runs a query with text parameters and returns its rows as strings; NULL
// becomes "".
func queryStrings(ctx context.Context, c *pgconn.PgConn, sql string, args ...string) ([][]string, error) {
	params := make([][]byte, len(args))
	for i, a := range args {
		params[i] = []byte(a)
	}
	res := c.ExecParams(ctx, sql, params, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, &QueryError{SQL: sql, Err: res.Err}
	}
	out := make([][]string, len(res.Rows))
	for i, row := range res.Rows {
		out[i] = make([]string, len(row))
		for j, v := range row {
			out[i][j] = string(v)
		}
	}
	return out, nil
}

// connect opens one connection and applies the loader's session settings. application_name
// tells a DBA watching pg_stat_activity who is loading.
func connect(ctx context.Context, cfg *pgconn.Config, settings []string) (*pgconn.PgConn, error) {
	cfg = cfg.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "pgtrial init"
	}
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", describeTarget(cfg), err)
	}
	for _, s := range settings {
		if err := exec(ctx, c, s); err != nil {
			c.Close(context.Background())
			return nil, err
		}
	}
	return c, nil
}

// describeTarget names a server for error messages without the password.
func describeTarget(cfg *pgconn.Config) string {
	host := cfg.Host
	if strings.HasPrefix(host, "/") {
		host = "socket " + host
	} else {
		host = host + ":" + strconv.Itoa(int(cfg.Port))
	}
	return fmt.Sprintf("%s (database %q, user %q)", host, cfg.Database, cfg.User)
}

// serverVersionNum reads server_version_num, e.g. 150018.
func serverVersionNum(c *pgconn.PgConn) int {
	v := c.ParameterStatus("server_version")
	// "15.18 (Debian 15.18-0+deb12u1)" or "18beta1": major is the leading integer.
	major := 0
	for _, ch := range v {
		if ch < '0' || ch > '9' {
			break
		}
		major = major*10 + int(ch-'0')
	}
	return major * 10000
}

// closeAll closes connections, ignoring errors: used on the way out.
func closeAll(conns ...*pgconn.PgConn) {
	for _, c := range conns {
		if c != nil {
			c.Close(context.Background())
		}
	}
}

// isUndefinedObject reports a "does not exist" error (e.g. an unknown tablespace).
func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}
