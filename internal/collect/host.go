package collect

import (
	"context"

	"github.com/pgtrial/pgtrial/internal/results"
)

// ReadHost describes the server's machine as run.json's host does: this
// one when local (online CPUs from /proc/stat, MemTotal from
// /proc/meminfo); else what the node_exporter at nodeExporter reports;
// else only that it is not local. What could not be read is left zero and
// named in the error. `pgtrial advise` sizes its advice with it.
func ReadHost(ctx context.Context, local bool, nodeExporter string) (*results.Host, error) {
	return readHost(ctx, local, nodeExporter)
}
