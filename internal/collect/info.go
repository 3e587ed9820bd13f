package collect

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/results"
)

// keySettings are recorded in run.json whatever their source: the settings a
// reader of a benchmark result asks about first (memory, checkpoints and
// WAL, durability, timing, planner, autovacuum, statistics).
var keySettings = []string{
	"shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem",
	"max_wal_size", "min_wal_size", "checkpoint_timeout", "checkpoint_completion_target",
	"synchronous_commit", "fsync", "full_page_writes", "wal_level", "wal_compression",
	"track_io_timing", "track_wal_io_timing", "max_connections", "huge_pages",
	"random_page_cost", "jit", "autovacuum", "shared_preload_libraries",
	"compute_query_id", "pg_stat_statements.track_planning",
}

// readServerInfo reads what the server is at the start of the run: its
// version, its settings (the key ones and every one not at its default, as
// SHOW prints them, with unit), the database size, the sizes of tables (the
// names given, resolved like the SQL name, or when none every table named
// pgbench_* that is not a partition), largest first, and the extensions
// installed in the database. A setting whose name contains "password" is
// never read, and every value goes through results.RedactArgs (a
// primary_conninfo may hold a password).
func readServerInfo(ctx context.Context, conn *pgx.Conn, tables []string) (*results.ServerInfo, error) {
	info := &results.ServerInfo{Settings: map[string]string{}, Extensions: map[string]string{}}
	err := conn.QueryRow(ctx, CollectorSQLMarker+` SELECT version(), current_setting('server_version_num')::int,
		pg_database_size(current_database())`).Scan(&info.Version, &info.VersionNum, &info.DatabaseBytes)
	if err != nil {
		return nil, fmt.Errorf("read the server version: %w", err)
	}

	// source 'override' is what initdb or the server fixed (e.g.
	// data_checksums), 'default' the built-in value.
	rows, err := conn.Query(ctx, CollectorSQLMarker+` SELECT name, current_setting(name) FROM pg_catalog.pg_settings
		WHERE (source NOT IN ('default', 'override') OR name = ANY($1)) AND name NOT ILIKE '%password%'`, keySettings)
	if err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	var name, value string
	_, err = pgx.ForEachRow(rows, []any{&name, &value}, func() error {
		if strings.Contains(strings.ToLower(name), "password") {
			return nil
		}
		if red := results.RedactArgs([]string{value}); len(red) == 1 {
			value = red[0]
		} else {
			value = ""
		}
		info.Settings[name] = value
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}

	// A partitioned table's size is the sum over its partition tree.
	const sizes = ` SELECT CASE WHEN n.nspname = 'public' THEN c.relname::text ELSE n.nspname || '.' || c.relname END,
		CASE WHEN c.relkind = 'p' THEN (SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree(c.oid))::bigint
			ELSE pg_total_relation_size(c.oid) END,
		CASE WHEN c.relkind = 'p' THEN (SELECT coalesce(sum(pg_relation_size(relid)), 0) FROM pg_partition_tree(c.oid))::bigint
			ELSE pg_relation_size(c.oid) END,
		CASE WHEN c.relkind = 'p' THEN (SELECT coalesce(sum(greatest(t.reltuples, 0)), 0) FROM pg_partition_tree(c.oid) pt
			JOIN pg_catalog.pg_class t ON t.oid = pt.relid)::bigint
			ELSE greatest(c.reltuples, 0)::bigint END
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p', 'm') AND `
	if len(tables) > 0 {
		rows, err = conn.Query(ctx, CollectorSQLMarker+sizes+
			`c.oid IN (SELECT to_regclass(x) FROM unnest($1::text[]) x) ORDER BY 2 DESC, 1`, tables)
	} else {
		rows, err = conn.Query(ctx, CollectorSQLMarker+sizes+
			`(c.relname LIKE 'pgbench\_%' OR c.relname = 'usertable') AND NOT c.relispartition
			AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%'
			ORDER BY 2 DESC, 1`)
	}
	if err != nil {
		return nil, fmt.Errorf("read table sizes: %w", err)
	}
	var ts results.TableSize
	_, err = pgx.ForEachRow(rows, []any{&ts.Name, &ts.TotalBytes, &ts.HeapBytes, &ts.Rows}, func() error {
		info.Tables = append(info.Tables, ts)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read table sizes: %w", err)
	}

	rows, err = conn.Query(ctx, CollectorSQLMarker+` SELECT extname::text, extversion FROM pg_catalog.pg_extension`)
	if err != nil {
		return nil, fmt.Errorf("read extensions: %w", err)
	}
	_, err = pgx.ForEachRow(rows, []any{&name, &value}, func() error {
		info.Extensions[name] = value
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read extensions: %w", err)
	}
	return info, nil
}
