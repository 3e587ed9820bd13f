package collect

import "github.com/pgtrial/pgtrial/internal/results"

// The rows of the collectors' files are internal/results' (which owns every
// format of the run directory: header, writer and reader side by side); the
// collectors compute them and write them through results' writers.
type (
	WaitRow      = results.WaitRow
	StatementRow = results.StatementRow
	ServerRow    = results.ServerRow
	OSRow        = results.OSRow
	DiskRow      = results.DiskRow
)
