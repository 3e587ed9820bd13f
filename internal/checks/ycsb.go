package checks

import (
	"fmt"
	"strings"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// ycsbTable is YCSB's table (workload.YCSBTable; checks does not import
// workload).
const ycsbTable = "usertable"

// ycsbCache is the YCSB item (issue 18 point 7): usertable's size (heap
// and indexes, pg_total_relation_size at the run's start, from the
// server's evidence) against shared_buffers. All of it in shared_buffers
// means the run measures a cached workload: reads never reach the OS.
// Nothing for runs of another workload (a usertable left in the database
// by an earlier YCSB load says nothing about a TPC-C run), nor without
// usertable in the evidence.
func (in *input) ycsbCache() []results.Check {
	s := in.run.Server
	if s == nil || !strings.HasPrefix(in.run.Workload.Name, "ycsb") {
		return nil
	}
	var table *results.TableSize
	for i := range s.Tables {
		if s.Tables[i].Name == ycsbTable {
			table = &s.Tables[i]
		}
	}
	if table == nil {
		return nil
	}
	c := results.Check{Name: "ycsb_cache", Value: table.TotalBytes}
	var sb int64
	if v, ok := in.setting("shared_buffers"); ok {
		if b, err := parseBytes(v, blockSize); err == nil {
			sb = b
		}
	}
	switch {
	case sb <= 0:
		c.Status = Warn
		c.Message = fmt.Sprintf("usertable is %s (%d records); shared_buffers is unknown, so whether the run measures a cached workload cannot be told", format.Bytes(table.TotalBytes), table.Rows)
	case table.TotalBytes <= sb:
		c.Status = Warn
		c.Message = fmt.Sprintf("usertable %s (%d records) fits in shared_buffers %s: the run measures a cached workload (reads never reach the OS); load more records (--records) to measure I/O",
			format.Bytes(table.TotalBytes), table.Rows, format.Bytes(sb))
	default:
		c.Status = Pass
		c.Message = fmt.Sprintf("usertable %s (%d records) = %.2g × shared_buffers %s: not all of it is cached",
			format.Bytes(table.TotalBytes), table.Rows, float64(table.TotalBytes)/float64(sb), format.Bytes(sb))
	}
	return []results.Check{c}
}
