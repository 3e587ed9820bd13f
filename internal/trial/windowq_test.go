package trial

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

// The window queries are sampled at the measured window's start (after the
// warm-up) and at its end: the growth of a counter every transaction bumps
// equals the committed transactions of the window, within the round trip
// of the start's query.
func TestWindowQueriesSampleTheMeasuredWindow(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url, `CREATE TABLE counter (n bigint)`, `INSERT INTO counter VALUES (0)`)
	// About 300 tx/s (pg_sleep), so that the start query's delay on a
	// loaded machine (tens of ms) misses a few transactions, not hundreds.
	s := testScript(t, "bump.sql", "UPDATE counter SET n = n + 1;\nSELECT pg_sleep(0.002);\n")
	const q = "SELECT n::float8 FROM counter"
	var hooked *results.Run
	c := &Config{ConnString: url, Scripts: []Script{s}, Mode: script.Simple, Clients: 1, Threads: 1,
		Duration: 1500 * time.Millisecond, Warmup: 500 * time.Millisecond, Interval: 250 * time.Millisecond,
		Collect: Collect{Off: true}, Dir: filepath.Join(t.TempDir(), "run"),
		WindowQueries: []string{q},
		BeforeFinish:  func(run *results.Run, r *Result) { hooked = run },
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := Run(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if hooked != r.Run {
		t.Error("BeforeFinish was not called with run.json's content")
	}
	if len(r.WindowValues) != 1 || r.WindowValues[0].Missing != "" {
		t.Fatalf("window values %+v", r.WindowValues)
	}
	v := r.WindowValues[0]
	if v.Start <= 0 {
		t.Errorf("start %v: want the count after the warm-up's transactions", v.Start)
	}
	committed := float64(r.Summary.Total.Committed)
	// The start's sample is taken by a query after the window's start (a
	// round trip: milliseconds, up to ~60 ms seen under the -race suite on
	// a loaded machine): it may miss the transactions of 150 ms at the
	// window's rate (10 % of the 1.5 s window) and never counts more than
	// a few extra; sampling before the warm-up would add 33 %.
	slack := committed / c.Duration.Seconds() * 0.150
	if d := v.End - v.Start; committed < 10 || d < committed-slack-3 || d > committed+3 {
		t.Errorf("Δ counter %v, committed in the window %v: want equal, or fewer by at most %.0f (150 ms of transactions)", d, committed, slack)
	}
	back, err := results.Load(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.WindowValues) != 1 || back.WindowValues[0].End != v.End {
		t.Errorf("run.json window_values %+v, want %+v", back.WindowValues, v)
	}
}
