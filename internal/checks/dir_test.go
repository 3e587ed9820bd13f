package checks

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
)

// writeRunDir writes a closed-model tpcb-like run through internal/results
// (10 s warm-up, 30 s measured, about 50 transactions a second), with a
// checkpoint and an autovacuum in the window and an os.csv whose client_cpu
// is 5 in the warm-up and 0.25 in the window; run.json has no evidence, so
// Run reads the CPU from os.csv.
func writeRunDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	run := &results.Run{
		Tool:       results.Tool{Name: "pgtrial"},
		StartedAt:  t0,
		Target:     results.Target{Settings: map[string]string{"shared_buffers": "128MB", "checkpoint_timeout": "5min"}},
		Workload:   results.Workload{Name: "tpcb-like", Scripts: []results.ScriptWeight{{Name: "tpcb-like", Weight: 1}}, Scale: 1},
		Model:      results.Model{Kind: results.ModelClosed, Clients: 1, Threads: 1, DurationS: 40},
		Collectors: []string{"server", "os"},
		Server:     &results.ServerInfo{DatabaseBytes: 30 << 20, Settings: map[string]string{"shared_buffers": "128MB"}},
		Host:       &results.Host{Local: true, CPUs: 2, MemoryBytes: 4 << 30},
	}
	d, err := results.Create(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	event := func(e results.Event) {
		if err := d.Event(e); err != nil {
			t.Fatal(err)
		}
	}
	event(results.Event{Time: t0, Kind: results.EventPhase, Phase: results.PhaseWarmup})
	set := metrics.NewSet(1, metrics.Layout{Scripts: 1})
	measure := metrics.NewInterval(metrics.Layout{Scripts: 1})
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 40 {
		phase := results.PhaseMeasure
		if i < 10 {
			phase = results.PhaseWarmup
		}
		if i == 10 {
			event(results.Event{Time: at(10), Kind: results.EventPhase, Phase: results.PhaseMeasure})
		}
		rec := set.Recorder(0)
		for range 48 + rng.IntN(5) {
			us := int64(2000 + rng.IntN(400))
			rec.Record(&metrics.Tx{Outcome: metrics.Committed, Tries: 1, Response: us, Service: us})
		}
		iv := set.Tick(at(float64(i)), at(float64(i+1)))
		if err := d.WriteInterval(phase, iv, []string{"tpcb-like"}); err != nil {
			t.Fatal(err)
		}
		if phase == results.PhaseMeasure {
			measure.Merge(iv)
		}
	}
	event(results.Event{Time: at(25.4), Kind: results.EventCheckpoint, Data: map[string]any{"kind": "timed", "write_ms": 120.0}})
	event(results.Event{Time: at(30), Kind: results.EventAutovacuum, Data: map[string]any{"table": "pgbench_accounts", "vacuums": 0, "analyzes": 1}})

	var os1 strings.Builder
	os1.WriteString("time,elapsed_s,us,sy,client_cpu,disk_sda_util\n")
	for i := 1; i <= 40; i++ {
		cpu := 0.25
		if i <= 10 {
			cpu = 5
		}
		fmt.Fprintf(&os1, "%s,%d.000,10.00,5.00,%.3f,1.0\n", at(float64(i)).Format("2006-01-02T15:04:05.000Z07:00"), i, cpu)
	}
	os1.WriteString(at(41).Format(time.RFC3339) + ",41.0") // cut short by a crash
	if err := os.WriteFile(filepath.Join(dir, results.OSFile), []byte(os1.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	run.EndedAt = at(40)
	run.Phases = []results.Phase{
		{Name: results.PhaseWarmup, Start: t0, End: at(10)},
		{Name: results.PhaseMeasure, Start: measure.Start, End: measure.End},
	}
	sum := results.Summarize(measure, []string{"tpcb-like"}, 0)
	run.Summary = &sum
	if err := d.Finish(run); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunDir writes one run directory (the slow part: every file is
// fsynced) and checks it whole and in damaged copies.
func TestRunDir(t *testing.T) {
	template := writeRunDir(t)
	t.Run("whole", func(t *testing.T) { testRunDirWhole(t, template) })
	testRunDirDamaged(t, template)
}

func testRunDirWhole(t *testing.T, dir string) {
	list, err := Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		ItemWarmup: Pass, ItemCheckpoint: Pass, ItemRepeats: Warn, ItemOpenModel: Warn,
		ItemSkippedDropped: Pass, ItemFailed: Pass, ItemDataVsMemory: Pass, ItemScaleVsClients: Pass,
		ItemClientCPU: Pass, ItemRateAchieved: Pass, ItemAutovacuum: Warn,
	}
	if len(list) != len(want) {
		t.Fatalf("%d items, want %d:\n%+v", len(list), len(want), list)
	}
	for _, c := range list {
		if c.Status != want[c.Name] {
			t.Errorf("%s: %s, want %s: %s", c.Name, c.Status, want[c.Name], c.Message)
		}
	}
	check := func(name string, value any, words string) {
		t.Helper()
		c, _ := find(list, name)
		if value != nil && !sameValue(c.Value, value) {
			t.Errorf("%s: value %#v, want %#v", name, c.Value, value)
		}
		if !strings.Contains(c.Message, words) {
			t.Errorf("%s: message %q lacks %q", name, c.Message, words)
		}
	}
	check(ItemWarmup, nil, "warm-up of 10 s discarded; the measured window is steady")
	check(ItemCheckpoint, 1, "1 checkpoint completed in the 30 s measured window")
	check(ItemClientCPU, 0.25, "pgtrial used 0.25 CPU (25 % of its 1 thread, 12 % of the 2 CPUs")
	check(ItemAutovacuum, int64(1), "pgbench_accounts (1 analyze)")
	check(ItemDataVsMemory, int64(30<<20), "fits in shared_buffers")
	c, _ := find(list, ItemOpenModel)
	if v, ok := c.Value.(float64); !ok || v < 1000/53.0 || v > 1000/47.0 {
		t.Errorf("Little's law mean %v ms, want 1 client / about 50 tps", c.Value)
	}

	// The same run in memory gives the same statuses (without os.csv the
	// client CPU is unknown).
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := results.ReadTimeline(dir)
	events, _ := results.ReadEvents(dir)
	mem := RunChecks(run, rows, events)
	for i := range mem {
		if mem[i].Name == ItemClientCPU {
			continue
		}
		if mem[i].Status != list[i].Status || mem[i].Message != list[i].Message {
			t.Errorf("in memory %+v, from the directory %+v", mem[i], list[i])
		}
	}
}

// copyRunDir copies the run directory src to a new one.
func copyRunDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func testRunDirDamaged(t *testing.T, template string) {
	t.Run("no run.json", func(t *testing.T) {
		if _, err := Run(t.TempDir()); err == nil || !strings.Contains(err.Error(), "checks: load run") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("run.json only", func(t *testing.T) {
		dir := copyRunDir(t, template)
		for _, f := range []string{results.TimelineFile, results.EventsFile, results.OSFile, results.LatencyFile} {
			if err := os.Remove(filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
		}
		list, err := Run(dir)
		if err != nil || len(list) != 11 {
			t.Fatalf("%d items, err %v", len(list), err)
		}
		// The window still comes from run.json's phases; checkpoints and
		// autovacuum are unknown without events or evidence.
		if c, _ := find(list, ItemCheckpoint); c.Status != Warn || !strings.Contains(c.Message, "30 s measured window") {
			t.Errorf("checkpoint: %+v", c)
		}
		if c, _ := find(list, ItemClientCPU); c.Status != Warn {
			t.Errorf("client cpu: %+v", c)
		}
	})
	t.Run("bad timeline", func(t *testing.T) {
		dir := copyRunDir(t, template)
		path := filepath.Join(dir, results.TimelineFile)
		data, _ := os.ReadFile(path)
		data = append(data, []byte("2025-03-01T12:00:41.000Z,41.000,measure,x,1,0,0,0,0,1.0,1,1,1,1,0,0,0,1,1,0,1\n")...)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(dir); err == nil || !strings.Contains(err.Error(), "column started") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("bad os.csv", func(t *testing.T) {
		dir := copyRunDir(t, template)
		if err := os.WriteFile(filepath.Join(dir, results.OSFile), []byte("time,client_cpu\n\"unterminated,1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		list, err := Run(dir)
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := find(list, ItemClientCPU); c.Status != Warn || c.Value != nil || !strings.Contains(c.Message, "os.csv") {
			t.Errorf("client cpu: %+v", c)
		}
	})
}
