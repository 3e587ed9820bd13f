package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

// TestSegmentBlocks: a segment's report says which of how many it is and
// that it did not watch the server; a merged run's lists its segments with
// their counts and shifts; a run of one generator has neither.
func TestSegmentBlocks(t *testing.T) {
	text := func(run *results.Run) string {
		var b bytes.Buffer
		if err := WriteText(&b, &Doc{Blocks: SegmentBlocks(run)}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if got := text(&results.Run{}); got != "" {
		t.Errorf("one generator: %q", got)
	}
	seg := text(&results.Run{Segment: &results.Segment{Index: 2, Count: 4, Clients: 8, Threads: 4, Rate: 1000, FirstClient: 4, FirstThread: 2}})
	for _, want := range []string{"segment 2 of 4 of a load of 8 clients on 4 threads at 1000.0 tx/s (clients from 4, threads from 2)", "only segment 0 collects"} {
		if !strings.Contains(seg, want) {
			t.Errorf("segment's text lacks %q:\n%s", want, seg)
		}
	}
	if s0 := text(&results.Run{Segment: &results.Segment{Index: 0, Count: 2, Clients: 2, Threads: 2}}); !strings.Contains(s0, "closed model") || strings.Contains(s0, "only segment 0") {
		t.Errorf("segment 0 of a closed load:\n%s", s0)
	}
	merged := text(&results.Run{Merge: &results.Merge{StartSpreadMs: 0.463, Notes: []string{"a note"}, Segments: []results.MergedSegment{
		{Index: 0, Committed: 2005, Started: 2005, OffsetMs: 0.018, Dir: "s/000"},
		{Index: 1, Committed: 1964, Started: 1965, OffsetMs: -0.442, ShiftMs: -0.46, Dir: "s/001", Interrupted: true},
	}}})
	for _, want := range []string{"merged from 2 segments (their starts 0.463 ms apart", "1 (interrupted)", "1964", "-0.460", "s/001", "a note"} {
		if !strings.Contains(merged, want) {
			t.Errorf("merged run's text lacks %q:\n%s", want, merged)
		}
	}
}
