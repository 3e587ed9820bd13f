package experiment

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

// TestExperimentSegments: load.segments: 2 makes each run two segments of
// its load begun at one instant, merged into the run's directory: the
// merged run has the whole load's rate and clients, the segments'
// directories are kept under segments/, and only segment 0 watched the
// server.
func TestExperimentSegments(t *testing.T) {
	url := measuredStatementsDB(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one.sql"), []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "seg.yaml")
	if err := os.WriteFile(path, []byte(`
workload: {scripts: [{file: one.sql}]}
load: {clients: 4, threads: 2, rate: 200, arrival: uniform, segments: 2}
protocol: {warmup: 500ms, window: 2s, repeats: 2}
collect: [waits, server, os]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	env, log := testEnv(t, url, nil)
	rec := execute(t, spec, env, log)
	if len(rec.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(rec.Runs))
	}
	for _, rr := range rec.Runs {
		// Uniform arrivals at 200 tx/s over 2 s: 400, whatever the split.
		if rr.TPS < 180 || rr.TPS > 220 || rr.Error != "" {
			t.Errorf("run %d: %.1f tps (error %q), want about 200", rr.N, rr.TPS, rr.Error)
		}
		run, err := results.Load(filepath.Join(env.Dir, rr.Dir))
		if err != nil {
			t.Fatal(err)
		}
		if run.Model.Clients != 4 || run.Model.Rate != 200 || run.Segment != nil {
			t.Errorf("run %d: merged model %+v, segment %+v: want the whole load", rr.N, run.Model, run.Segment)
		}
		if _, err := os.Stat(filepath.Join(env.Dir, rr.Dir, results.WaitsFile)); err != nil {
			t.Errorf("run %d: the merged run has no waits (segment 0's): %v", rr.N, err)
		}
		for i, want := range []bool{true, false} {
			seg, err := results.Load(filepath.Join(env.Dir, SegmentsDir, filepath.Base(rr.Dir), []string{"000", "001"}[i]))
			if err != nil {
				t.Fatal(err)
			}
			if seg.Segment == nil || seg.Segment.Index != i || (seg.Server != nil) != want {
				t.Errorf("run %d segment %d: %+v, server info %v", rr.N, i, seg.Segment, seg.Server != nil)
			}
		}
	}
}
