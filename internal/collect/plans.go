package collect

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/results"
)

// The plans of a run's statements (plans.json): EXPLAIN (FORMAT JSON), never
// ANALYZE, of each SQL statement of the scripts, once, after the setup and
// before the warm-up, on a session of pgtrial's own:
//
//   - application_name "pgtrial-plans", pgtrial's own timeouts
//     (pgsession.Own) with a statement timeout of PlansConfig.Timeout;
//   - default_transaction_read_only = on: EXPLAIN without ANALYZE runs
//     nothing, and should a function evaluated while planning try to write,
//     the server refuses it;
//   - the role's and database's other settings (random_page_cost,
//     enable_*, work_mem, …) as the clients have them, since they shape
//     the plans;
//   - a sampled statement (values substituted) goes through the extended
//     protocol, which takes one statement only; a generic one ($n, EXPLAIN
//     (GENERIC_PLAN), PostgreSQL 16+) is the script's own text, one
//     statement of it.
//
// The shape kept is results.PlanNode: node types, relations, indexes, join
// types, scan direction and parent relationships; the root's estimated
// cost and rows are kept beside it, not in it.

// PlansApplicationName is the plans session's application_name.
const PlansApplicationName = "pgtrial-plans"

// DefaultPlanTimeout is the statement timeout of each EXPLAIN.
const DefaultPlanTimeout = 5 * time.Second

// PlanRequest is one statement to explain, as the run's scripts have it.
type PlanRequest struct {
	// Statement is plans.json's entry without its plan: Script,
	// ScriptIndex, Command, Part, Line, Text, and Params when SQL is set.
	Statement results.PlanStatement
	// SQL is the statement with the sampled values substituted; "" when a
	// variable had none (NoValue says why).
	SQL     string
	NoValue string
	// Generic is the statement with $1, $2, … for its :variables (for
	// EXPLAIN (GENERIC_PLAN) on PostgreSQL 16+); "" when it has none.
	Generic string
	// Reason, when set, is why the statement is not explained at all
	// (known before asking the server).
	Reason string
}

// PlansConfig is one capture.
type PlansConfig struct {
	ConnString string
	Timeout    time.Duration // each EXPLAIN's statement timeout; 0: DefaultPlanTimeout
	Seed       string        // recorded: the sampled values' seed
	Requests   []PlanRequest
}

// CapturePlans explains every request on one session of its own and
// returns plans.json's content. A statement that fails (an error, the
// timeout) is recorded with its reason; only a connection that cannot be
// opened is an error. ctx bounds the whole capture.
func CapturePlans(ctx context.Context, cfg PlansConfig) (*results.Plans, error) {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultPlanTimeout
	}
	cc, err := pgx.ParseConfig(cfg.ConnString)
	if err != nil {
		return nil, fmt.Errorf("plans: connection string: %w", err)
	}
	pgsession.Own(&cc.Config, PlansApplicationName, timeout)
	cc.RuntimeParams["default_transaction_read_only"] = "on"
	if cc.ConnectTimeout == 0 || cc.ConnectTimeout > 10*time.Second {
		cc.ConnectTimeout = 10 * time.Second
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("plans: connect: %w", pgerr.Cause(err, &cc.Config))
	}
	defer conn.Close(context.Background())
	pc := conn.PgConn()
	version := pc.ParameterStatus("server_version")
	p := &results.Plans{CapturedAt: time.Now().UTC(), ServerVersion: version, Seed: cfg.Seed}
	major := serverMajor(version)
	for _, rq := range cfg.Requests {
		st := rq.Statement
		st.Text = results.RedactSQL(st.Text)
		if ctx.Err() != nil {
			st.Params = nil
			st.Reason = "not explained: the capture's time ran out"
			p.Statements = append(p.Statements, st)
			continue
		}
		explainOne(ctx, pc, major, rq, &st)
		for i := range st.Params {
			st.Params[i].Value = results.RedactSQL(st.Params[i].Value)
		}
		p.Statements = append(p.Statements, st)
		if pc.IsClosed() {
			return p, fmt.Errorf("plans: the connection was lost after statement %d of script %s", st.Command, st.Script)
		}
	}
	return p, nil
}

// explainOne fills st's plan, or its reason.
func explainOne(ctx context.Context, pc *pgconn.PgConn, major int, rq PlanRequest, st *results.PlanStatement) {
	if rq.Reason != "" {
		st.Params, st.Reason = nil, rq.Reason
		return
	}
	if ok, why := Explainable(rq.Statement.Text); !ok {
		st.Params, st.Reason, st.Utility = nil, why, true
		return
	}
	var out string
	var err error
	switch {
	case rq.SQL != "":
		st.Method, st.Explained = results.PlanSampled, results.RedactSQL(rq.SQL)
		out, err = explainExtended(ctx, pc, "EXPLAIN (FORMAT JSON) "+trimStatement(rq.SQL))
	case rq.Generic != "" && major >= 16:
		st.Params = nil
		st.Method, st.Explained = results.PlanGeneric, results.RedactSQL(rq.Generic)
		out, err = explainSimple(ctx, pc, "EXPLAIN (GENERIC_PLAN, FORMAT JSON) "+trimStatement(rq.Generic))
	default:
		st.Params = nil
		why := rq.NoValue
		if why == "" {
			why = "no value to substitute"
		}
		st.Reason = "not explained: " + why + "; EXPLAIN (GENERIC_PLAN) needs PostgreSQL 16 or later"
		return
	}
	if err != nil {
		st.Method, st.Reason = "", "EXPLAIN failed: "+results.RedactSQL(pgerr.Message(err))
		return
	}
	shape, cost, rows, err := ParseExplainJSON([]byte(out))
	if err != nil {
		st.Method, st.Reason = "", err.Error()
		return
	}
	st.Shape, st.Cost, st.Rows = shape, cost, rows
}

// explainExtended runs one statement through the extended protocol (one
// statement only) and returns its single text value.
func explainExtended(ctx context.Context, pc *pgconn.PgConn, sql string) (string, error) {
	rr := pc.ExecParams(ctx, sql, nil, nil, nil, nil)
	var out string
	for rr.NextRow() {
		if v := rr.Values(); len(v) > 0 && out == "" {
			out = string(v[0])
		}
	}
	if _, err := rr.Close(); err != nil {
		return "", err
	}
	return out, nil
}

// explainSimple runs one statement through the simple protocol (for $n of
// GENERIC_PLAN, which the extended protocol would want bound).
func explainSimple(ctx context.Context, pc *pgconn.PgConn, sql string) (string, error) {
	res, err := pc.Exec(ctx, sql).ReadAll()
	if err != nil {
		return "", err
	}
	for _, r := range res {
		if r.Err != nil {
			return "", r.Err
		}
		if len(r.Rows) > 0 && len(r.Rows[0]) > 0 {
			return string(r.Rows[0][0]), nil
		}
	}
	return "", nil
}

// trimStatement removes the blanks and semicolons that end a statement.
func trimStatement(s string) string {
	return strings.TrimRight(s, " \t\r\n\f\v;")
}

// serverMajor is the leading integer of server_version ("15.18 (Debian …)": 15).
func serverMajor(v string) int {
	major := 0
	for _, ch := range v {
		if ch < '0' || ch > '9' || major > 1000 {
			break
		}
		major = major*10 + int(ch-'0')
	}
	return major
}
