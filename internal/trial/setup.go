package trial

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

// Var is a -D NAME=VALUE definition.
type Var struct{ Name, Value string }

// ClientSetup returns the engine's Setup for pgbench's variables, in
// pgbench's order: the -D definitions, then the automatic :scale,
// :client_id, :default_seed and :random_seed unless -D defined them.
func ClientSetup(vars []Var, scale int, streams prng.Streams) func(c *script.Client) error {
	return clientSetup(vars, scale, streams, 0)
}

// clientSetup is ClientSetup with :client_id counted from firstClient (a
// segment's first client in the whole load, Segment).
func clientSetup(vars []Var, scale int, streams prng.Streams, firstClient int) func(c *script.Client) error {
	return func(c *script.Client) error {
		for _, v := range vars {
			if err := c.SetString("option", v.Name, v.Value); err != nil {
				return err
			}
		}
		if !c.Defined("scale") {
			c.SetInt("startup", "scale", int64(scale))
		}
		if !c.Defined("client_id") {
			c.SetInt("startup", "client_id", int64(firstClient+c.ID))
		}
		if !c.Defined("default_seed") {
			c.SetInt("startup", "default_seed", streams.DefaultSeed)
		}
		if !c.Defined("random_seed") {
			c.SetInt("startup", "random_seed", streams.RandomSeed)
		}
		return nil
	}
}

// DefinesVar reports whether -D defined name (pgbench then leaves the
// automatic variable alone, and default_seed takes no draw).
func DefinesVar(vars []Var, name string) bool {
	for _, v := range vars {
		if v.Name == name {
			return true
		}
	}
	return false
}

// ReadTarget fills run.json's target from a connection: address, server
// version and the settings that shape results (ResultSettings).
func ReadTarget(ctx context.Context, pc *pgconn.PgConn, pgcfg *pgconn.Config) (results.Target, error) {
	t := results.Target{
		Host: pgcfg.Host, Port: int(pgcfg.Port), Database: pgcfg.Database, User: pgcfg.User,
		ServerVersion: pc.ParameterStatus("server_version"),
		Settings:      map[string]string{},
	}
	params := [][]byte{[]byte(pgTextArray(ResultSettings))}
	rr := pc.ExecParams(ctx, "SELECT name, current_setting(name) FROM pg_catalog.pg_settings WHERE name = ANY($1::text[])", params, nil, nil, nil)
	for rr.NextRow() {
		v := rr.Values()
		t.Settings[string(v[0])] = string(v[1])
	}
	if _, err := rr.Close(); err != nil {
		return t, fmt.Errorf("read server settings: %w", err)
	}
	return t, nil
}

// pgTextArray is a text[] literal of plain identifiers.
func pgTextArray(names []string) string {
	s := "{"
	for i, n := range names {
		if i > 0 {
			s += ","
		}
		s += `"` + n + `"`
	}
	return s + "}"
}

// ResultSettings are the server settings recorded in run.json because they
// shape the results.
var ResultSettings = []string{
	"shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem",
	"max_connections", "synchronous_commit", "fsync", "full_page_writes", "wal_level",
	"wal_buffers", "wal_compression", "commit_delay", "checkpoint_timeout",
	"checkpoint_completion_target", "max_wal_size", "min_wal_size", "autovacuum",
	"default_transaction_isolation", "random_page_cost", "effective_io_concurrency",
	"jit", "huge_pages", "max_parallel_workers_per_gather", "track_io_timing",
	"shared_preload_libraries", "data_checksums", "server_version_num",
}
