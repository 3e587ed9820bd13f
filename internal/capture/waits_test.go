package capture

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// writeWaits writes waits.csv into dir: per type its client samples (and
// a background row that must not count).
func writeWaits(t *testing.T, dir, source string, by map[string]int64) {
	t.Helper()
	w, err := results.CreateWaits(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for typ, n := range by {
		r := results.WaitRow{Time: now, Elapsed: 1, Source: source, Class: "client", Type: typ, Event: typ, Samples: n, Ticks: 10}
		if err := w.Write(r.Record()); err != nil {
			t.Fatal(err)
		}
	}
	bg := results.WaitRow{Time: now, Elapsed: 1, Source: "activity", Class: "background", Type: "IO", Event: "DataFileWrite", Samples: 1000, Ticks: 10}
	if err := w.Write(bg.Record()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func profileWithWaits(t *testing.T, w *WaitProfile) string {
	t.Helper()
	dir := testProfile(t)
	p, err := LoadProfile(dir)
	if err != nil {
		t.Fatal(err)
	}
	p.Waits = w
	if err := WriteProfile(dir, p); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCompareWaits: a run whose client waits are spread as the capture's
// (within 10 points per type) is similar; one that spends 30 points more
// in IO waits is flagged in words; background rows are not counted; a
// profile without active samples says the waits were not compared.
func TestCompareWaits(t *testing.T) {
	captured := &WaitProfile{Source: "activity", Ticks: 50, Samples: 100, ByType: map[string]int64{"CPU": 70, "IO": 20, "LWLock": 10}}
	captured.Shares = shares(captured.ByType)
	dir := profileWithWaits(t, captured)
	statements := [][4]string{{"11", "9000", "9000", "27000"}, {"2", "1000", "1000", "6000"}}
	for _, c := range []struct {
		by      map[string]int64
		similar bool
		want    string
	}{
		{map[string]int64{"CPU": 650, "IO": 250, "LWLock": 100}, true, "; every wait type's share within 10 points of the capture's"},
		{map[string]int64{"CPU": 400, "IO": 500, "Lock": 100}, false, "the run's sessions spend more of their time in IO waits than the source's: 50 % against 20 % captured"},
	} {
		run := writeRun(t, statements)
		writeWaits(t, run, "activity", c.by)
		sim, err := Compare(dir, run, DefaultThresholds)
		if err != nil {
			t.Fatal(err)
		}
		out := bytes.NewBufferString(sim.Summary())
		if c.similar && (len(sim.Waits) != 3 || sim.Waits[1].Type != "IO" || sim.Waits[1].RunShare != 0.25 || sim.Waits[1].CapturedShare != 0.2) {
			t.Errorf("waits %v: %+v", c.by, sim.Waits)
		}
		if sim.Similar != c.similar || !strings.Contains(out.String(), c.want) {
			t.Errorf("waits %v: similar %v, want %v and %q:\n%s", c.by, sim.Similar, c.similar, c.want, out.String())
		}
	}
	idle := profileWithWaits(t, &WaitProfile{Source: "activity", Ticks: 51, Seconds: 5, ByType: map[string]int64{}})
	run := writeRun(t, statements)
	writeWaits(t, run, "activity", map[string]int64{"IO": 5})
	sim, err := Compare(idle, run, DefaultThresholds)
	if err != nil {
		t.Fatal(err)
	}
	if !sim.Similar || !strings.Contains(sim.WaitsNote, "no active session was seen in "+strconv.Itoa(51)+" samples") {
		t.Errorf("idle capture: similar %v, note %q", sim.Similar, sim.WaitsNote)
	}
	// A run whose waits came from pg_wait_sampling is compared, with a caveat.
	run = writeRun(t, statements)
	writeWaits(t, run, "pg_wait_sampling", map[string]int64{"CPU": 70, "IO": 20, "LWLock": 10})
	if sim, err = Compare(dir, run, DefaultThresholds); err != nil {
		t.Fatal(err)
	}
	if !sim.Similar || len(sim.Waits) != 3 || !strings.Contains(sim.WaitsCaveat, "the run's waits came from pg_wait_sampling") {
		t.Errorf("pg_wait_sampling run: similar %v, waits %+v, caveat %q", sim.Similar, sim.Waits, sim.WaitsCaveat)
	}
}
