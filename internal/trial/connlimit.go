package trial

// connlimit.go: a run refuses, before it dials, a client count the server
// cannot take (issue 14: -c 100000 against max_connections 30 dialled for
// 25 s, and the superuser could no longer log in).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/pgsession"
)

// connLimitTimeout bounds the check's connection and query.
const connLimitTimeout = 10 * time.Second

// collectorConns are the collectors that hold a connection of their own
// for the whole run (collect/waits.go, statements.go and server.go each
// keep one lazyConn; os reads /proc or node_exporter). collect.Start's
// information connection is closed before the clients dial.
var collectorConns = []string{collect.KindWaits, collect.KindStatements, collect.KindServer}

// ConnSlots is what the server can give a run's clients.
type ConnSlots struct {
	MaxConnections    int
	SuperuserReserved int // superuser_reserved_connections
	Reserved          int // reserved_connections (PostgreSQL 16+; 0 before)
	HasReserved       bool
	InUse             int // other sessions holding a slot now
	Collectors        int // pgtrial's own collectors' connections
}

// Free is the connections left for the clients:
//
//	max_connections − superuser_reserved_connections − reserved_connections
//	  − in use − collectors
//
// The reserved slots are left to the DBA even when the run's role is a
// superuser (or has pg_use_reserved_connections) and could take them: a
// run that fills them locks the DBA out of the server it is loading,
// which is what the reserve is for.
func (s ConnSlots) Free() int {
	return s.MaxConnections - s.SuperuserReserved - s.Reserved - s.InUse - s.Collectors
}

// ConnLimitError is a run refused because the server cannot take its
// clients.
type ConnLimitError struct {
	Clients int
	Slots   ConnSlots
}

func (e *ConnLimitError) Error() string {
	s := e.Slots
	var b strings.Builder
	fmt.Fprintf(&b, "-c %d: ", e.Clients)
	if f := s.Free(); f > 0 {
		fmt.Fprintf(&b, "the server accepts at most %d more connections", f)
	} else {
		b.WriteString("the server accepts no more connections")
	}
	fmt.Fprintf(&b, " (max_connections %d − superuser_reserved_connections %d", s.MaxConnections, s.SuperuserReserved)
	if s.HasReserved {
		fmt.Fprintf(&b, " − reserved_connections %d", s.Reserved)
	}
	fmt.Fprintf(&b, " − %d in use", s.InUse)
	if s.Collectors > 0 {
		fmt.Fprintf(&b, " − %d for pgtrial's collectors", s.Collectors)
	}
	b.WriteString("); use fewer clients or raise max_connections")
	return b.String()
}

// connSlotsQuery reads the limits and the slots in use. Only client
// backends count against max_connections: autovacuum, background workers
// (parallel and logical replication workers) and WAL senders have pools of
// their own (autovacuum_max_workers, max_worker_processes,
// max_wal_senders). A role that may not see another role's sessions reads
// their backend_type as NULL; such a row with a database is counted too
// (it may be an autovacuum or parallel worker: an over-count, on the safe
// side), background processes without one are not.
const connSlotsQuery = `SELECT current_setting('max_connections')::int,
	current_setting('superuser_reserved_connections')::int,
	current_setting('reserved_connections', true),
	(SELECT count(*) FROM pg_catalog.pg_stat_activity
	 WHERE pid <> pg_catalog.pg_backend_pid()
	   AND (backend_type = 'client backend' OR (backend_type IS NULL AND datid IS NOT NULL)))`

// ReadConnSlots reads what the server at pgcfg can give a run; collectors
// is the number of connections pgtrial's collectors will hold.
func ReadConnSlots(ctx context.Context, pgcfg *pgconn.Config, collectors int) (ConnSlots, error) {
	ctx, cancel := context.WithTimeout(ctx, connLimitTimeout)
	defer cancel()
	cfg := pgcfg.Copy()
	// The role's own statement_timeout may be too short for pgtrial's
	// query (1 ms); this session's timeouts and name are pgtrial's.
	pgsession.Own(cfg, pgsession.NameSetup, pgsession.Short)
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return ConnSlots{}, fmt.Errorf("read the server's free connections: %w", err)
	}
	defer conn.Close(context.Background())
	rr := conn.ExecParams(ctx, connSlotsQuery, nil, nil, nil, nil).Read()
	if rr.Err != nil {
		return ConnSlots{}, fmt.Errorf("read the server's free connections: %w", rr.Err)
	}
	if len(rr.Rows) != 1 || len(rr.Rows[0]) != 4 {
		return ConnSlots{}, errors.New("read the server's free connections: unexpected result")
	}
	row := rr.Rows[0]
	s := ConnSlots{Collectors: collectors}
	if _, err := fmt.Sscan(string(row[0]), &s.MaxConnections); err != nil {
		return ConnSlots{}, fmt.Errorf("read max_connections %q: %w", row[0], err)
	}
	if _, err := fmt.Sscan(string(row[1]), &s.SuperuserReserved); err != nil {
		return ConnSlots{}, fmt.Errorf("read superuser_reserved_connections %q: %w", row[1], err)
	}
	if row[2] != nil {
		s.HasReserved = true
		if _, err := fmt.Sscan(string(row[2]), &s.Reserved); err != nil {
			return ConnSlots{}, fmt.Errorf("read reserved_connections %q: %w", row[2], err)
		}
	}
	if _, err := fmt.Sscan(string(row[3]), &s.InUse); err != nil {
		return ConnSlots{}, fmt.Errorf("read the connections in use %q: %w", row[3], err)
	}
	return s, nil
}

// collectorConnections is how many connections the run's collectors will
// hold: none without a run directory or with the collectors off.
func (c *Config) collectorConnections() int {
	if c.Dir == "" || c.Collect.Off {
		return 0
	}
	kinds := c.Collect.Kinds
	if len(kinds) == 0 {
		kinds = collect.AllKinds
	}
	n := 0
	for _, k := range collectorConns {
		if slices.Contains(kinds, k) {
			n++
		}
	}
	return n
}

// checkConnLimit refuses a run whose clients the server cannot take (see
// ConnSlots.Free), before anything is created or dialled. The pgbench
// front end is exempt: pgbench dials and reports the server's refusal
// ("could not create connection for client N"), and so does it. When the
// figures cannot be read the run goes on with a warning: a server that
// cannot be reached is reported by the clients' dials, as before, and they
// stop at the first refusal.
func (c *Config) checkConnLimit(ctx context.Context, pgcfg *pgconn.Config) error {
	if c.Pgbench != nil {
		return nil
	}
	s, err := ReadConnSlots(ctx, pgcfg, c.collectorConnections())
	if err != nil {
		var ce *pgconn.ConnectError
		if ctx.Err() == nil && !errors.As(err, &ce) {
			c.Warnings = append(c.Warnings, err.Error())
			c.out("pgtrial: warning: " + err.Error())
		}
		return nil
	}
	if c.Clients > s.Free() {
		return &ConnLimitError{Clients: c.Clients, Slots: s}
	}
	return nil
}
