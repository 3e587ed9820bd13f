package collect

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Extensions the collectors read, for Config.CreateExtensions.
const (
	extStatements   = "pg_stat_statements"
	extWaitSampling = "pg_wait_sampling"
)

// ensureExtension creates the extension name in the connection's database
// when it is not there and its library is in shared_preload_libraries
// (CREATE EXTENSION IF NOT EXISTS; an extension whose library is not loaded
// fails on every use, so it is not created then). created says it was
// created now; not preloaded, nothing happens and the collector's own check
// says what is missing. It is for a server pgtrial owns
// (Config.CreateExtensions): it needs the right to create the extension
// (a superuser for pg_stat_statements and pg_wait_sampling).
func ensureExtension(ctx context.Context, conn *pgx.Conn, name string) (created bool, err error) {
	var installed, preloaded bool
	err = conn.QueryRow(ctx, CollectorSQLMarker+` SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = $1),
		$1 = ANY (string_to_array(replace(current_setting('shared_preload_libraries'), ' ', ''), ','))`, name).Scan(&installed, &preloaded)
	if err != nil {
		return false, fmt.Errorf("look for the %s extension: %w", name, err)
	}
	if installed || !preloaded {
		return false, nil
	}
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+pgx.Identifier{name}.Sanitize()); err != nil {
		return false, fmt.Errorf("create the %s extension (it is in shared_preload_libraries): %w", name, err)
	}
	return true, nil
}
