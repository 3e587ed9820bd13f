package report

import (
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

// The sessions panel shows connected, idle and busy when the timeline
// counted them, and is left out (without a note) when it did not.
func TestSessionsPanel(t *testing.T) {
	r := &runReport{timeline: []results.TimelineRow{{Elapsed: 1}, {Elapsed: 2}}}
	if c := r.sessionsPanel(); c != nil {
		t.Errorf("a panel without counts: %+v", c)
	}
	r.timeline[1] = results.TimelineRow{Elapsed: 2, Connected: 2000, ConnectedMax: 2000, Busy: 3, Idle: 1997}
	c := r.sessionsPanel()
	if c == nil || len(c.Series) != 3 || c.Series[0].Y[1] != 2000 || c.Series[1].Y[1] != 1997 || c.Series[2].Y[1] != 3 || !c.Series[2].Right {
		t.Fatalf("panel %+v", c)
	}
}
