package report

import (
	"fmt"
	"strconv"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// SegmentBlocks say what part of a shared load a run is: for a segment
// (`run --segment i/n`) which one of how many, of what whole load, and
// that only segment 0 watches the server; for a merged run (`pgtrial
// merge`) its segments with their counts and clock shifts. Nothing for a
// run of one generator.
func SegmentBlocks(run *results.Run) []Block {
	var out []Block
	if s := run.Segment; s != nil {
		load := fmt.Sprintf("%d clients on %d threads", s.Clients, s.Threads)
		if s.Rate > 0 {
			load += " at " + format.Rate(s.Rate) + " tx/s"
		} else {
			load += ", closed model"
		}
		l := &Lines{Lines: []string{fmt.Sprintf("segment %d of %d of a load of %s (clients from %d, threads from %d): the figures above are this segment's; pgtrial merge makes the whole load's",
			s.Index, s.Count, load, s.FirstClient, s.FirstThread)}}
		if !s.Collects() {
			l.Lines = append(l.Lines, "only segment 0 collects the server's evidence: this one recorded its own machine's OS metrics")
		}
		out = append(out, l)
	}
	m := run.Merge
	if m == nil {
		return out
	}
	t := &Table{Title: fmt.Sprintf("merged from %s (their starts %s ms apart on the server's clock)", format.Plural(len(m.Segments), "1 segment", strconv.Itoa(len(m.Segments))+" segments"), format.Ms(m.StartSpreadMs)),
		Head: []string{"segment", "committed", "started", "clock offset ms", "shift ms", "dir"}}
	for _, s := range m.Segments {
		idx := strconv.Itoa(s.Index)
		if s.Interrupted {
			idx += " (interrupted)"
		}
		t.Rows = append(t.Rows, []Cell{Text(idx), Text(strconv.FormatInt(s.Committed, 10)), Text(strconv.FormatInt(s.Started, 10)),
			Text(strconv.FormatFloat(s.OffsetMs, 'f', 3, 64)), Text(strconv.FormatFloat(s.ShiftMs, 'f', 3, 64)), Text(s.Dir)})
	}
	t.Notes = append(t.Notes, m.Notes...)
	return append(out, t)
}
