// Package analyzetest runs `pgtrial analyze` (internal/analyze) on logs that
// real pgbench wrote against a throwaway cluster, and checks its counts and
// percentiles against a direct computation from the log lines; then report
// and compare on the run directories it made. It is a package of its own
// because it runs pgbench for several seconds.
package analyzetest
