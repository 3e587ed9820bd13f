package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/loader"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// writeScript writes a custom script into dir and returns its path.
func writeScript(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestShapeSkewLab is seed 001's skew lab at this machine's size: pgbench's
// accounts (scale 4: 51 MB, and 9 MB of key) on a server with 16 MB of
// shared_buffers, looked up by uniform and by zipf (s = 1.1) ids: the zipf
// run's buffer hit ratio (run.json's evidence, from pg_stat_database over
// the measured window) is at least 10 points higher.
func TestShapeSkewLab(t *testing.T) {
	began := time.Now()
	c := pgtest.OwnCluster(t, pgtest.Own{Settings: map[string]string{"shared_buffers": "16MB"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := c.Connect(ctx, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE skewlab")
	conn.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	url := c.URL("skewlab")
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	const scale = 4
	if _, err := loader.Run(ctx, loader.Config{Conn: cfg, Schema: workload.Pgbench{Scale: scale, Fillfactor: 100},
		Steps: "dtgvp", Format: workload.CopyBinary, Out: io.Discard}); err != nil {
		t.Fatalf("load pgbench's tables: %v", err)
	}
	var tableMB, buffersMB float64
	pgtest.QueryRow(t, url, `select pg_relation_size('pgbench_accounts') / 1048576.0,
		pg_size_bytes(current_setting('shared_buffers')) / 1048576.0`, nil, &tableMB, &buffersMB)
	if tableMB < 3*buffersMB {
		t.Fatalf("pgbench_accounts is %.0f MB, shared_buffers %.0f MB: the lab wants a table well over the buffers", tableMB, buffersMB)
	}
	t.Logf("loaded in %.1f s: pgbench_accounts %.0f MB, shared_buffers %.0f MB", time.Since(began).Seconds(), tableMB, buffersMB)

	tmp := t.TempDir()
	ratio := map[string]float64{}
	for _, lab := range []struct{ name, draw string }{
		{"uniform", "random(1, 100000 * :scale)"},
		{"zipf", "random_zipfian(1, 100000 * :scale, 1.1)"},
	} {
		script := writeScript(t, tmp, lab.name+".sql",
			"\\set aid "+lab.draw+"\nselect abalance from pgbench_accounts where aid = :aid;\n")
		dir := filepath.Join(tmp, lab.name)
		// -D scale: a custom script's :scale is 1 otherwise, as pgbench's.
		mustRun(t, 0, "run", url, "--closed", "-c", "2", "-T", "2s", "--warmup", "1s", "-f", script, "-D", "scale="+strconv.Itoa(scale),
			"--collect", "server", "--no-report", "--quiet", "--run-dir", dir)
		run, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		ev := run.Evidence
		if ev == nil || ev.BlocksHit+ev.BlocksRead < 1000 {
			t.Fatalf("%s: evidence %+v: want the buffers' counters of the window", lab.name, ev)
		}
		ratio[lab.name] = ev.HitRatio
		t.Logf("%s: %d tx, hit ratio %.1f %% (%d hit, %d read)", lab.name, run.Summary.Total.Committed, 100*ev.HitRatio, ev.BlocksHit, ev.BlocksRead)
	}
	if ratio["zipf"] < ratio["uniform"]+0.10 {
		t.Errorf("zipf hit ratio %.1f %%, uniform %.1f %%: want zipf at least 10 points higher",
			100*ratio["zipf"], 100*ratio["uniform"])
	}
	t.Logf("skew lab in %.1f s", time.Since(began).Seconds())
}

// TestShapePlanLab is seed 001's plan lab: tasks with a project_id shaped
// uniform over 20,000 projects (project 1 has a handful of rows) and then
// log-uniform (project 1 has about 7 %); the same query's plan changes shape
// (a scan of the project_id index and a sort, then a backward scan of the
// primary key that stops at the 20th match), and pgtrial's plan comparison
// of the two runs (the experiment findings' "plans that changed") names it.
func TestShapePlanLab(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url,
		`create table tasks (id bigint primary key, project_id bigint not null default 0, note text not null default '')`,
		`insert into tasks (id) select g from generate_series(1, 50000) g`,
		`create index tasks_project_id_idx on tasks (project_id)`)

	// A table pgtrial did not create is refused without --force.
	code, _, errOut := runCLI(t, "shape", url, "--table", "tasks", "--column", "project_id", "--dist", "uniform")
	if code == 0 || !strings.Contains(errOut, "not created by pgtrial") || !strings.Contains(errOut, "--force") {
		t.Fatalf("shape of an unmarked table: exit %d\n%s", code, errOut)
	}
	pgtest.Exec(t, url, `comment on table tasks is 'pgtrial:lab'`)

	tmp := t.TempDir()
	script := writeScript(t, tmp, "latest.sql", "select id, note from tasks where project_id = 1 order by id desc limit 20;\n")
	variants := []string{"uniform", "loguniform"}
	in := &explain.ExperimentInput{Dir: tmp, Variants: variants}
	for _, v := range variants {
		dist := map[string]string{"uniform": "uniform", "loguniform": "loguniform:n=20000"}[v]
		out, _ := mustRun(t, 0, "shape", url, "--table", "tasks", "--column", "project_id", "--dist", dist, "--max", "20000", "--seed", "11")
		for _, want := range []string{"rows:      50000", "distinct:", "top 1 %:", "TOAST:"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: shape's report lacks %q:\n%s", v, want, out)
			}
		}
		t.Logf("%s:\n%s", v, out)
		var first, topShare float64
		pgtest.QueryRow(t, url, `select count(*) filter (where project_id = 1) / 50000.0,
			(select sum(n) from (select count(*) n from tasks group by project_id order by n desc limit 200) s) / 50000.0
			from tasks`, nil, &first, &topShare)
		switch v {
		case "uniform":
			if first > 0.001 || topShare > 0.05 {
				t.Errorf("uniform: project 1 has %.2f %%, the top 200 %.1f %%", 100*first, 100*topShare)
			}
		case "loguniform":
			if first < 0.05 || first > 0.09 || topShare < 0.5 {
				t.Errorf("log-uniform: project 1 has %.2f %% (want about 7 %%), the top 200 %.1f %% (want over half)", 100*first, 100*topShare)
			}
		}
		pgtest.Exec(t, url, "vacuum analyze tasks")
		dir := filepath.Join(tmp, v)
		mustRun(t, 0, "run", url, "--closed", "-c", "1", "-T", "1s", "--warmup", "0s", "-f", script,
			"--collect", "server", "--no-report", "--quiet", "--run-dir", dir)
		run, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		in.Runs = append(in.Runs, explain.ExpRun{Variant: v, Repeat: 1, Dir: dir, Run: run})
	}
	f := explain.Experiment(in, explain.Config{})
	if f == nil || f.Plans == nil || len(f.Plans.Changed) != 1 {
		t.Fatalf("plan findings: %+v", f)
	}
	ch := f.Plans.Changed[0]
	if ch.Kind != explain.PlanChanged || len(ch.Variants) != 2 || !ch.Variants[1].Changed {
		t.Fatalf("plan change: %+v", ch)
	}
	u, s := ch.Variants[0].Shapes[0].Line, ch.Variants[1].Shapes[0].Line
	t.Logf("uniform:     %s\nlog-uniform: %s", u, s)
	if !strings.Contains(u, "Sort") || !strings.Contains(u, "tasks_project_id_idx") {
		t.Errorf("uniform plan %q: want a scan of tasks_project_id_idx under a Sort", u)
	}
	if !strings.Contains(s, "Index Scan Backward using tasks_pkey on tasks") || strings.Contains(s, "Sort") {
		t.Errorf("log-uniform plan %q: want a backward scan of tasks_pkey and no Sort", s)
	}
}

// TestShapePlanLabExperiment is the plan lab as an experiment: two variants
// whose setup reshapes project_id (uniform; seed 001's log-uniform one-liner),
// one run each; experiment.json's findings name the plan that changed.
func TestShapePlanLabExperiment(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url,
		`create table tasks (id bigint primary key, project_id bigint not null default 0, note text not null default '')`,
		`insert into tasks (id) select g from generate_series(1, 50000) g`,
		`create index tasks_project_id_idx on tasks (project_id)`)
	dir := t.TempDir()
	writeScript(t, dir, "latest.sql", "select id, note from tasks where project_id = 1 order by id desc limit 20;\n")
	file := writeScript(t, dir, "plans.yaml", `
name: planlab
workload: {scripts: [{file: latest.sql}]}
load: {clients: 1, closed: true}
protocol: {warmup: 0s, window: 1s, repeats: 1}
variants:
  - name: uniform
    setup: ["update tasks set project_id = 1 + floor(random() * 20000)::bigint", "analyze tasks"]
  - name: loguniform
    setup: ["update tasks set project_id = floor(exp(random() * ln(20000)))::bigint", "analyze tasks"]
collect: [server]
`)
	expDir := filepath.Join(dir, "exp")
	mustRun(t, 0, "experiment", "--url", url, "--dir", expDir, "--quiet", "--no-report", file)
	var rec struct {
		Findings *explain.ExperimentFindings `json:"findings"`
	}
	if err := results.ReadExperiment(expDir, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Findings == nil || rec.Findings.Plans == nil || len(rec.Findings.Plans.Changed) != 1 {
		t.Fatalf("experiment.json's plan findings: %+v", rec.Findings)
	}
	ch := rec.Findings.Plans.Changed[0]
	if ch.Kind != explain.PlanChanged || len(ch.Variants) != 2 || !ch.Variants[1].Changed ||
		!strings.Contains(ch.Variants[1].Shapes[0].Line, "Index Scan Backward using tasks_pkey") {
		t.Fatalf("plan change: %+v", ch)
	}
	t.Logf("uniform:     %s\nlog-uniform: %s", ch.Variants[0].Shapes[0].Line, ch.Variants[1].Shapes[0].Line)
}

// TestShapeBadFlags: the flags' combinations are refused before connecting.
func TestShapeBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--column", "c", "--dist", "uniform"}, "--table is required"},
		{[]string{"--table", "t", "--dist", "uniform"}, "--dist needs --column"},
		{[]string{"--table", "t", "--column", "c", "--dist", "zipf:s=0.2"}, "[1.001, 1000]"},
		{[]string{"--table", "t", "--pad", "p"}, "needs --size"},
		{[]string{"--table", "t", "--pad", "p", "--json", "j", "--size", "1KB"}, "give one of"},
		{[]string{"--table", "t", "--column", "c", "--dist", "uniform", "--size", "1KB"}, "--size goes with --pad or --json"},
		{[]string{"--table", "t", "--json", "j", "--size", "8KB-1KB"}, "MIN <= MAX"},
	} {
		code, _, errOut := runCLI(t, append([]string{"shape"}, c.args...)...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("shape %v: exit %d, %q; want it to say %q", c.args, code, errOut, c.want)
		}
	}
}
