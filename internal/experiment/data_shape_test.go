package experiment_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/report"
)

// data.shape regenerates pgbench_accounts.bid once after the scale-1 load
// (all 1 there: the top 1 % of the values hold every row), before the run;
// experiment.json's shaped records the shape reached.
func TestExperimentShapesDataBeforeTheRuns(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "exp.yaml")
	if err := os.WriteFile(path, []byte(`
name: shaped
workload: {builtin: select-only, scale: 1}
load: {clients: 1, rate: 20}
protocol: {warmup: 0s, window: 1s, repeats: 1}
collect: false
data:
  shape:
    - {table: pgbench_accounts, column: bid, dist: "zipf:s=1.1", max: 1000, permute: true, seed: 4}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := experiment.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	env := experiment.Env{ConnString: url, Dir: filepath.Join(t.TempDir(), "exp"), Out: func(s string) { log.WriteString(s + "\n") }}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec, err := experiment.Execute(ctx, spec, env)
	if err != nil {
		t.Fatalf("execute: %v\n%s", err, log.String())
	}
	// zipf s = 1.1 over 1..1000: the top 1 % (10 keys) hold Σ_{k≤10} k^-1.1 / Σ_{k≤1000} k^-1.1
	// ≈ 2.66 / 6.1 ≈ 44 % of the rows, not the 100 % of the load's single bid.
	if len(rec.Shaped) != 1 {
		t.Fatalf("shaped %+v\n%s", rec.Shaped, log.String())
	}
	s := rec.Shaped[0]
	if s.Table != "pgbench_accounts" || s.Column != "bid" || s.Rows != 100000 || s.Updated != 100000 ||
		s.Distinct < 500 || s.TopKeys != (s.Distinct+99)/100 || s.TopShare < 0.3 || s.TopShare > 0.6 || !strings.Contains(s.Generated, "permuted") {
		t.Errorf("shaped %+v", s)
	}
	var ones, pages int64
	pgtest.QueryRow(t, url, "SELECT count(*), (SELECT relpages FROM pg_class WHERE relname = 'pgbench_accounts') FROM pgbench_accounts WHERE bid = 1", nil, &ones, &pages)
	if ones > 50000 {
		t.Errorf("%d accounts still at bid 1: the column was not regenerated", ones)
	}
	// A fresh scale-1 pgbench_accounts is 1640 pages; the shaping's dead
	// versions would double it without the VACUUM FULL after.
	if pages < 1500 || pages > 1800 {
		t.Errorf("pgbench_accounts has %d pages after data.shape, want about 1640", pages)
	}
	js, err := os.ReadFile(filepath.Join(env.Dir, experiment.File))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk struct {
		Shaped []experiment.Shaped `json:"shaped"`
	}
	if err := json.Unmarshal(js, &onDisk); err != nil || len(onDisk.Shaped) != 1 || onDisk.Shaped[0].TopShare != s.TopShare {
		t.Errorf("experiment.json's shaped: %+v, %v", onDisk.Shaped, err)
	}
	var sum strings.Builder
	if err := report.WriteText(&sum, report.Experiment(rec, env.Dir)); err != nil || !strings.Contains(sum.String(), "shaped before the runs: pgbench_accounts.bid") {
		t.Errorf("the summary lacks the shaped line (%v):\n%s", err, sum.String())
	}
	t.Logf("shaped: %s (%.1f s)", s.Summary(), s.ElapsedS)
	if len(rec.Runs) != 1 || !strings.Contains(log.String(), "shaped pgbench_accounts.bid ← zipf:s=1.1 over [1, 1000], permuted") {
		t.Errorf("%d runs; log:\n%s", len(rec.Runs), log.String())
	}
}
