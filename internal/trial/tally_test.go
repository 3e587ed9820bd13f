package trial

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

func tallyConfig(t *testing.T, s Script, dir string) *Config {
	return &Config{
		ConnString: pgtest.ConnString(t),
		Scripts:    []Script{s},
		Mode:       script.Simple,
		Clients:    2,
		Threads:    1,
		Warmup:     400 * time.Millisecond,
		Duration:   time.Second,
		Interval:   200 * time.Millisecond,
		MaxTries:   1,
		Seed:       prng.Seed{Value: 42},
		Dir:        dir,
		Tool:       results.Tool{Name: "pgtrial", Version: "test"},
	}
}

// TestRunTallies: \tally's counts of the measured window are in run.json.
func TestRunTallies(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	// pg_sleep keeps the rate near 2 × 300 tx/s, so that the few
	// milliseconds between the engine's and the recorder's window edges on a
	// loaded machine are a few transactions, not hundreds.
	s := testScript(t, "ycsb.sql", "\\set k :client_id + 10\n\\tally key :k\nSELECT pg_sleep(0.002);\n")
	r, err := Run(context.Background(), tallyConfig(t, s, dir))
	if err != nil {
		t.Fatal(err)
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	committed := r.Summary.Total.Committed
	if len(run.Tallies) != 1 {
		t.Fatalf("tallies %+v", run.Tallies)
	}
	ty := run.Tallies[0]
	// Counted by when the \tally ran: at the warm-up's end and the
	// window's a transaction per client may fall on either side, and the
	// two clocks' edges differ by milliseconds, tens under the -race suite
	// on a loaded machine: 150 ms of the 1 s window's transactions (15 %);
	// counting the warm-up's 0.4 s too would be 40 % more.
	if ty.Name != "key" || ty.Distinct != 2 || len(ty.TopCounts) != 2 || ty.TopCounts[0]+ty.TopCounts[1] != ty.Draws ||
		math.Abs(float64(ty.Draws-committed)) > 4+0.15*float64(committed) || committed < 10 {
		t.Errorf("tally %+v for %d committed in the window", ty, committed)
	}
}

// TestRunThinkOpenModel: a rate with a \think script is refused before
// the run directory is made.
func TestRunThinkOpenModel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	c := tallyConfig(t, testScript(t, "think.sql", "\\think 1 s\nSELECT 1;\n"), dir)
	c.Rate = 10
	if _, err := Run(context.Background(), c); !errors.Is(err, engine.ErrThinkOpen) {
		t.Fatalf("Run: %v, want engine.ErrThinkOpen", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("the run directory was made")
	}
}
