package compare

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// envRun is a run.json as the collectors record it: PostgreSQL version,
// settings (the target's and the collectors'), the data's sizes, the host
// and pgtrial; edit changes it.
func envRun(t0 time.Time, i int, edit func(*results.Run)) *results.Run {
	r := &results.Run{
		Tool:      results.Tool{Name: "pgtrial", Version: "v0.9.0", Commit: "abc1234", Go: "go1.26.0"},
		StartedAt: t0.Add(time.Duration(2*i) * time.Minute),
		Target: results.Target{Host: "/tmp", Port: 5432, Database: "bench", ServerVersion: "17.2",
			Settings: map[string]string{"shared_buffers": "128MB", "synchronous_commit": "on", "fsync": "on"}},
		Workload:   results.Workload{Name: "tpcb-like", Scale: 10},
		Model:      results.Model{Kind: results.ModelClosed, Clients: 8},
		Collectors: []string{"waits", "statements", "server", "os"},
		Server: &results.ServerInfo{
			Version:    "PostgreSQL 17.2 on x86_64-pc-linux-gnu, compiled by gcc 12.2.0, 64-bit",
			VersionNum: 170002,
			Settings:   map[string]string{"shared_buffers": "128MB", "synchronous_commit": "on", "work_mem": "4MB", "pgtrial.unrestored": ""},
			// Sizes grow a little from run to run: within SizeTolerance.
			DatabaseBytes: 160<<20 + int64(i)<<20,
			Tables: []results.TableSize{
				{Name: "pgbench_accounts", TotalBytes: 150<<20 + int64(i)<<19},
				{Name: "pgbench_history", TotalBytes: int64(i) << 16},
			},
			Extensions: map[string]string{"plpgsql": "1.0", "pg_stat_statements": "1.11"},
		},
		Host: &results.Host{Local: true, Hostname: "db1", CPUs: 8, MemoryBytes: 16 << 30, Kernel: "6.1.0-18-amd64"},
	}
	if edit != nil {
		edit(r)
	}
	return r
}

// envSideDirs writes n run directories under root/name and loads them as a
// side.
func envSideDirs(t *testing.T, root, name string, n int, t0 time.Time, edit func(i int, r *results.Run)) []RunRef {
	t.Helper()
	for i := range n {
		run := envRun(t0, i, func(r *results.Run) {
			if edit != nil {
				edit(i, r)
			}
		})
		summary := &results.Summary{Duration: 60, Total: results.ScriptSummary{Committed: 60000, TPS: 1000 + float64(i),
			Response: results.Percentiles{P50: 1, P95: 2, P99: 3, P999: 4, Max: 5}}}
		dir := filepath.Join(root, name, fmt.Sprintf("%d", i+1))
		d, err := results.Create(dir, run)
		if err != nil {
			t.Fatal(err)
		}
		run.Summary = summary
		if err := d.Finish(run); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := LoadSide(name, []string{filepath.Join(root, name)})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func envDiff(env *Environment, name string) *EnvDiff {
	for i := range env.Differs {
		if env.Differs[i].Name == name {
			return &env.Differs[i]
		}
	}
	return nil
}

// Two sets of run directories that differ in the server's version and a
// setting: both are listed with each side's value, nothing else is (sizes
// that grow a little, pgtrial's own marker setting), and the other recorded
// items are counted as compared.
func TestEnvironmentDiffers(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	a := envSideDirs(t, root, "A", 4, t0, nil)
	b := envSideDirs(t, root, "B", 4, t0.Add(time.Minute), func(i int, r *results.Run) {
		r.Target.ServerVersion = "17.4"
		r.Server.Version = strings.Replace(r.Server.Version, "17.2", "17.4", 1)
		r.Server.VersionNum = 170004
		r.Server.Settings["work_mem"] = "64MB"
		r.Server.Settings["pgtrial.unrestored"] = "/tmp/exp"
	})
	rep := Build(Options{NameA: "A", NameB: "B", Seed: 1}, a, b)
	env := rep.Environment
	if env == nil {
		t.Fatal("no environment in the report")
	}
	var names []string
	for _, d := range env.Differs {
		names = append(names, d.Name)
	}
	t.Logf("compared %d items; differ: %q", env.Compared, names)
	if got, want := strings.Join(names, "; "), "server version; server build; setting work_mem"; got != want {
		t.Errorf("differs in %q, want %q", got, want)
	}
	if d := envDiff(env, "server version"); d == nil || d.A != "17.2" || d.B != "17.4" || len(d.ValuesA) != 4 || *d.ValuesB[3] != "17.4" {
		t.Errorf("server version: %+v", d)
	}
	if d := envDiff(env, "setting work_mem"); d == nil || d.A != "4MB" || d.B != "64MB" {
		t.Errorf("setting work_mem: %+v", d)
	}
	// address, version, build, 4 settings (not pgtrial.unrestored), 2
	// extensions, database and 2 tables, host name, CPUs, memory, kernel,
	// pgtrial, collectors.
	if env.Compared != 18 {
		t.Errorf("compared %d items, want 18", env.Compared)
	}
	if env.VariantKnown {
		t.Error("compare's own call knows no variant")
	}

	// Same runs: nothing differs.
	same := Build(Options{NameA: "A", NameB: "A2", Seed: 1}, a[:2], a[2:])
	if len(same.Environment.Differs) != 0 || same.Environment.Compared != 18 {
		t.Errorf("A against A: %+v", same.Environment)
	}
}

// A side whose runs disagree is shown with its values and their runs; a
// size differs beyond 10 % (and 1 MiB) only; an experiment's variant
// settings are left out; a run that did not record an item (--no-collect)
// is left out of it, not counted as a different value.
func TestEnvironmentRules(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	a := envSideDirs(t, root, "A", 4, t0, func(i int, r *results.Run) {
		if i == 2 {
			r.Host.Kernel = "6.1.0-20-amd64"
		}
		if i == 3 {
			r.Server, r.Host, r.Collectors = nil, nil, nil // --no-collect
		}
	})
	b := envSideDirs(t, root, "B", 4, t0.Add(time.Minute), func(i int, r *results.Run) {
		r.Target.Settings["synchronous_commit"] = "off"
		r.Server.Settings["synchronous_commit"] = "off"
		r.Server.Settings["commit_delay"] = "10"  // not recorded on A: A is at the default
		r.Server.Tables[0].TotalBytes += 10 << 20 // +6.7 %: not a difference
		r.Server.Tables[1].TotalBytes += 5 << 20  // 5 MiB vs ~0.1 MiB: a difference
	})
	rep := Build(Options{NameA: "A", NameB: "B", Seed: 1, VariantKnown: true, VariantSettings: []string{"Synchronous_Commit"}}, a, b)
	env := rep.Environment
	var names []string
	for _, d := range env.Differs {
		names = append(names, d.Name+": "+d.A+" | "+d.B)
	}
	t.Logf("compared %d items; differ:\n%s", env.Compared, strings.Join(names, "\n"))
	if d := envDiff(env, "host kernel"); d == nil || d.A != "2 values: 6.1.0-18-amd64 (A#1, A#2); 6.1.0-20-amd64 (A#3)" || d.B != "6.1.0-18-amd64" || d.ValuesA[3] != nil {
		t.Errorf("host kernel: %+v", d)
	}
	if d := envDiff(env, "setting commit_delay"); d == nil || d.A != "(default)" || d.B != "10" {
		t.Errorf("setting commit_delay: %+v", d)
	}
	if d := envDiff(env, "table pgbench_history size"); d == nil || d.A != "0 B–128 KiB" || d.B != "5.1 MiB" {
		t.Errorf("table pgbench_history size: %+v", d)
	}
	// A#4 ran without collectors: that is listed, its server and host
	// items are left out.
	if d := envDiff(env, "collectors"); d == nil || d.A != "2 values: waits, statements, server, os (A#1, A#2, A#3); none (A#4)" {
		t.Errorf("collectors: %+v", d)
	}
	for _, name := range []string{"setting synchronous_commit", "table pgbench_accounts size", "database size", "host name"} {
		if d := envDiff(env, name); d != nil {
			t.Errorf("%s listed: %+v", name, d)
		}
	}
	if !env.VariantKnown || strings.Join(env.VariantSettings, ",") != "Synchronous_Commit" {
		t.Errorf("variant: %v %q", env.VariantKnown, env.VariantSettings)
	}
	if got := len(env.Differs); got != 4 {
		t.Errorf("%d items differ, want 4 (commit_delay, pgbench_history, kernel, collectors)", got)
	}
}

// A table that grows through interleaved runs (A 0, 6, 12, 18 MiB; B 3, 9,
// 15, 21 MiB: medians 9 and 12 MiB, 25 % apart) is natural growth, not a
// difference: the sides' ranges overlap. The same growth with A's runs all
// before B's is listed.
func TestEnvironmentGrowingTable(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	side := func(name string, mib []int64) []RunRef {
		runs := make([]RunRef, len(mib))
		for i, m := range mib {
			r := envRun(t0, i, func(r *results.Run) { r.Server.Tables[1].TotalBytes = m << 20 })
			runs[i] = RunRef{Label: fmt.Sprintf("%s#%d", name, i+1), Run: r}
		}
		return runs
	}
	env := environment(side("A", []int64{0, 6, 12, 18}), side("B", []int64{3, 9, 15, 21}), false, nil)
	if d := envDiff(env, "table pgbench_history size"); d != nil {
		t.Errorf("interleaved growth listed: %+v", d)
	}
	env = environment(side("A", []int64{0, 3, 6, 9}), side("B", []int64{12, 15, 18, 21}), false, nil)
	if d := envDiff(env, "table pgbench_history size"); d == nil || d.A != "0 B–9 MiB" || d.B != "12 MiB–21 MiB" {
		t.Errorf("A's runs all before B's: %+v", d)
	}
}
