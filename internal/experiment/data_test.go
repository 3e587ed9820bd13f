package experiment_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// data.age ages the table once before the runs and experiment.json records the
// state it reached; a bad key of data.age is a problem at its place.
func TestExperimentAgesDataBeforeTheRuns(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url, "CREATE TABLE aged_e (id int PRIMARY KEY, n int, pad text) WITH (fillfactor = 100)",
		"COMMENT ON TABLE aged_e IS 'pgtrial:test'",
		"INSERT INTO aged_e SELECT g, 0, repeat('x', 60) FROM generate_series(1, 20000) g", "VACUUM ANALYZE aged_e")
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("point.sql", "\\set k random(1, 20000)\nSELECT n FROM aged_e WHERE id = :k;\n")
	if _, err := experiment.Parse("bad.yaml", []byte("data: {age: {dayz: 3, daily: 2}}\n")); err == nil ||
		!strings.Contains(err.Error(), "data.age") || !strings.Contains(err.Error(), "days") || !strings.Contains(err.Error(), "data.age.daily") {
		t.Errorf("bad data.age: %v", err)
	}
	spec, err := experiment.Load(write("exp.yaml", `
name: aged
workload: {scripts: [{file: point.sql}]}
load: {clients: 1, rate: 20}
protocol: {warmup: 0s, window: 1s, repeats: 1}
collect: false
data: {age: {table: aged_e, set: "n = n + 1", days: 5, until_size: 1.3, daily: 0.5, vacuum_every: 2}}
`))
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
	a := rec.Aged
	if a == nil || !a.Reached || a.Days < 1 || a.Days > 5 || a.Growth() < 1.3 || !a.After.Exact || a.After.Rows != 20000 {
		t.Fatalf("aged %+v\n%s", a, log.String())
	}
	var sum int64
	pgtest.QueryRow(t, url, "SELECT sum(n) FROM aged_e", nil, &sum)
	if sum != a.Updated {
		t.Errorf("sum(n) %d, updates recorded %d: the aging ran more or less than once", sum, a.Updated)
	}
	js, err := os.ReadFile(filepath.Join(env.Dir, experiment.File))
	if err != nil || !strings.Contains(string(js), `"aged"`) || !strings.Contains(string(js), `"free_percent"`) {
		t.Errorf("experiment.json lacks the aged state: %v", err)
	}
	fresh := false
	for _, c := range rec.Checks {
		if c.Name == checks.ItemFreshData {
			fresh = c.Status == checks.Pass && strings.Contains(c.Message, "aged")
		}
	}
	if !fresh {
		t.Errorf("checklist %+v: want fresh_data passed (aged)", rec.Checks)
	}
	if len(rec.Runs) != 1 || !strings.Contains(log.String(), "age: day 1:") {
		t.Errorf("%d runs; log:\n%s", len(rec.Runs), log.String())
	}
}
