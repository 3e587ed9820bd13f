package resultstest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// A written directory reads back through results: summary over the
// measured window, every file, and the crash leaves Create's run.json.
func TestWriteRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	run, err := WriteRun(dir, Options{Scripts: 2, Duration: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary == nil || run.Summary.Total.Committed == 0 || len(run.Summary.Scripts) != 2 {
		t.Fatalf("summary %+v", run.Summary)
	}
	tl, err := results.ReadTimeline(dir)
	if err != nil || len(tl) != 35 {
		t.Errorf("timeline: %d rows, %v", len(tl), err)
	}
	for _, read := range []func(string) (int, error){
		func(d string) (int, error) { r, err := results.ReadWaits(d); return len(r), err },
		func(d string) (int, error) { r, err := results.ReadServer(d); return len(r), err },
		func(d string) (int, error) { r, err := results.ReadOS(d); return len(r), err },
		func(d string) (int, error) { r, err := results.ReadStatements(d); return len(r), err },
	} {
		if n, err := read(dir); err != nil || n == 0 {
			t.Errorf("collector file: %d rows, %v", n, err)
		}
	}
	evs, err := results.ReadEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range evs {
		kinds[e.Kind]++
	}
	for _, k := range []string{results.EventPhase, results.EventCheckpoint, results.EventCheckpointStart, results.EventAutovacuum, results.EventInjection} {
		if kinds[k] == 0 {
			t.Errorf("no %s event: %v", k, kinds)
		}
	}
	if _, err := results.MeasuredResponse(dir, run); err != nil {
		t.Error(err)
	}

	crashed := filepath.Join(t.TempDir(), "c")
	if _, err := WriteRun(crashed, Options{Crashed: true}); err != nil {
		t.Fatal(err)
	}
	got, err := results.Load(crashed)
	if err != nil || got.Summary != nil || !got.EndedAt.IsZero() {
		t.Errorf("crashed run.json %+v, %v", got, err)
	}
}
