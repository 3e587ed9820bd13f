package collect

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/results"
)

// The activity source of the wait collector reads pg_stat_activity once per
// sample with sessionsQuery, one row per session it counts (not per
// group): waits.csv's counts are summed from these rows here (the same
// counts a query grouped on the server would give), and the client backends'
// rows go into activity.csv (results/activity.go), so a slow transaction
// can be joined by its backend's pid to what the backend was doing. Client
// backends idle in a transaction are in activity.csv (their state says so)
// but not in waits.csv, which counts active sessions only.
//
// For a heavyweight-lock wait (wait_event_type Lock) the query adds the
// relation of the pid's lock not granted, from one read of pg_locks per
// sample (each relation's name looked up by its oid), and the first pid
// pg_blocking_pids names; both are computed only when some session waits
// on a Lock (a CASE guards them, and the pg_locks CTE is read on demand:
// EXPLAIN ANALYZE shows it "never executed" otherwise), so a sample
// without lock waits costs what the grouped query cost.

// sessionsQuery is the per-session sample query; %[1]s is "MATERIALIZED"
// (PostgreSQL 12+, where a CTE read once would otherwise be inlined and
// pg_locks read once per waiting session) or "", %[2]s the query_id
// expression (a.query_id::text on 14+, else NULL::text). $1 is
// ApplicationName.
const sessionsQuery = CollectorSQLMarker + ` WITH ungranted AS %[1]s (
  SELECT DISTINCT ON (l.pid) l.pid,
         CASE WHEN l.relation IS NULL THEN ''
              ELSE coalesce((SELECT CASE WHEN n.nspname = 'public' THEN c.relname::text ELSE n.nspname || '.' || c.relname END
                             FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                             WHERE c.oid = l.relation
                               AND l.database IN (0, (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = current_database()))),
                            'oid ' || l.relation::text) END AS relation
  FROM pg_catalog.pg_locks l
  WHERE NOT l.granted
  ORDER BY l.pid, l.relation IS NULL
)
SELECT a.pid, a.backend_type = 'client backend',
       coalesce(a.state, ''),
       coalesce(a.wait_event_type, 'CPU'),
       coalesce(a.wait_event, CASE WHEN a.wait_event_type IS NULL THEN 'CPU' ELSE '' END),
       CASE WHEN a.wait_event_type = 'Lock' THEN (SELECT u.relation FROM ungranted u WHERE u.pid = a.pid) END,
       %[2]s,
       CASE WHEN a.wait_event_type = 'Lock' THEN (pg_catalog.pg_blocking_pids(a.pid))[1] END
FROM pg_catalog.pg_stat_activity a
WHERE a.pid <> pg_backend_pid()
  AND a.application_name IS DISTINCT FROM $1
  AND CASE WHEN a.backend_type = 'client backend'
           THEN a.state IN ('active', 'fastpath function call', 'idle in transaction', 'idle in transaction (aborted)')
           ELSE coalesce(a.state, '') NOT LIKE 'idle%%' AND a.wait_event_type IS DISTINCT FROM 'Activity'
      END`

// buildSessionsQuery is sessionsQuery for server_version_num version.
func buildSessionsQuery(version int) string {
	mat, qid := "", "NULL::text"
	if version >= 120000 {
		mat = "MATERIALIZED"
	}
	if version >= 140000 {
		qid = "a.query_id::text"
	}
	return fmt.Sprintf(sessionsQuery, mat, qid)
}

// session is one row of sessionsQuery.
type session struct {
	pid               int32
	client            bool
	state, typ, event string
	relation, queryID *string
	blockedBy         *int32
}

// counted says whether waits.csv counts s: a client backend that is
// active, or a background process (the query keeps only the busy ones).
func (s *session) counted() bool {
	return !s.client || s.state == "active" || s.state == "fastpath function call"
}

// activityRow is s as activity.csv's row of the sample taken at instant.
func (s *session) activityRow(instant, zero time.Time, period time.Duration) results.ActivityRow {
	r := results.ActivityRow{Time: instant, Elapsed: instant.Sub(zero).Seconds(),
		PeriodMs: float64(period) / float64(time.Millisecond),
		PID:      uint32(max(s.pid, 0)), State: s.state, Type: s.typ, Event: s.event}
	if s.relation != nil {
		r.Relation = *s.relation
	}
	if s.queryID != nil && *s.queryID != "0" {
		r.QueryID = *s.queryID
	}
	if s.blockedBy != nil {
		r.BlockedBy = uint32(max(*s.blockedBy, 0))
	}
	return r
}

// activity is the activity source's per-session state: its query and
// activity.csv.
type activity struct {
	query string
	out   *results.CSVWriter
	rows  []session // reused between samples
}

// openActivity reads the server's version and creates activity.csv.
func openActivity(ctx context.Context, conn *pgx.Conn, dir string) (*activity, error) {
	ctx, cancel := context.WithTimeout(ctx, sampleTimeout)
	defer cancel()
	var version int
	if err := conn.QueryRow(ctx, CollectorSQLMarker+` SELECT current_setting('server_version_num')::int`).Scan(&version); err != nil {
		return nil, fmt.Errorf("waits: read the server version: %w", err)
	}
	out, err := results.CreateActivity(dir)
	if err != nil {
		return nil, err
	}
	return &activity{query: buildSessionsQuery(version), out: out}, nil
}

// sample runs the query once and returns the counts of waits.csv's keys,
// and the sample's instant (the midpoint of the round trip).
func (a *activity) sample(ctx context.Context, conn *pgx.Conn) (map[waitKey]int64, time.Time, error) {
	sent := time.Now()
	rows, err := conn.Query(ctx, a.query, ApplicationName)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("sample pg_stat_activity: %w", err)
	}
	a.rows = a.rows[:0]
	var s session
	_, err = pgx.ForEachRow(rows, []any{&s.pid, &s.client, &s.state, &s.typ, &s.event, &s.relation, &s.queryID, &s.blockedBy},
		func() error {
			a.rows = append(a.rows, s)
			return nil
		})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("sample pg_stat_activity: %w", err)
	}
	instant := sent.Add(time.Since(sent) / 2)
	d := map[waitKey]int64{}
	for i := range a.rows {
		if s := &a.rows[i]; s.counted() {
			class := WaitClassBackground
			if s.client {
				class = WaitClassClient
			}
			d[waitKey{class, s.typ, s.event}]++
		}
	}
	return d, instant, nil
}

// write writes the client backends of the last sample, taken at instant,
// into activity.csv (buffered: flushed with waits.csv's interval), or one
// row of pid 0 when there was none, so that every sample taken is in the
// file.
func (a *activity) write(instant, zero time.Time, period time.Duration) error {
	n := 0
	for i := range a.rows {
		if s := &a.rows[i]; s.client {
			n++
			if err := a.out.Write(s.activityRow(instant, zero, period).Record()); err != nil {
				return err
			}
		}
	}
	if n == 0 {
		none := session{}
		return a.out.Write(none.activityRow(instant, zero, period).Record())
	}
	return nil
}
