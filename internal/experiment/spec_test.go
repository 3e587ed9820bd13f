package experiment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/script"
)

func u64(v uint64) *uint64 { return &v }

// TestLoadComplete: every key of the schema lands in its field.
func TestLoadComplete(t *testing.T) {
	got, err := Load("testdata/complete.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Spec{
		File:        "testdata/complete.yaml",
		Name:        "sync-commit",
		Description: "synchronous_commit off vs on for tpcb-like at 500 tx/s",
		Target:      Target{Local: "bench", Given: "the file's target.local"},
		Workload: Workload{
			Builtin:         "tpcb-like",
			Scale:           75,
			Variables:       []Variable{{"delta", "5000"}, {"note", "a b"}},
			Protocol:        script.Extended,
			MaxTries:        3,
			ContinueOnError: true,
		},
		Load: LoadSpec{
			Clients:      16,
			Threads:      2,
			Rate:         500,
			Arrival:      engine.Uniform,
			Overload:     engine.Drop,
			LatencyLimit: 100 * time.Millisecond,
		},
		Protocol: Protocol{Warmup: 2 * time.Minute, Window: 2 * time.Minute, Repeats: 4, Interleave: false},
		Variants: []Variant{
			{Name: "sync-on", Settings: []Setting{{"synchronous_commit", "on", Pos{32, 16}}}, Pos: Pos{31, 5}},
			{
				Name: "sync-off",
				Settings: []Setting{
					{"synchronous_commit", "off", Pos{35, 7}},
					{"shared_buffers", "1GB", Pos{36, 7}},
					{"checkpoint_completion_target", "0.9", Pos{37, 7}},
					{"work_mem", "4096", Pos{38, 7}},
				},
				Setup:    []string{"CREATE INDEX pgbench_history_mtime ON pgbench_history (mtime)"},
				Teardown: []string{"DROP INDEX pgbench_history_mtime"},
				Pos:      Pos{33, 5},
			},
		},
		Injections: []Injection{
			{At: 20 * time.Second, Kind: InjectLock, Table: "pgbench_branches", Duration: 5 * time.Second, Pos: Pos{44, 5},
				index: 0, atPos: Pos{44, 10}, durPos: Pos{44, 62}},
			{At: time.Minute, Kind: InjectCheckpoint, Pos: Pos{45, 5}, index: 1, atPos: Pos{45, 10}},
			{At: 90 * time.Second, Kind: InjectVacuum, Table: "pgbench_accounts", Pos: Pos{46, 5}, index: 2, atPos: Pos{46, 10}},
			{At: 100 * time.Second, Kind: InjectVacuum, Pos: Pos{47, 5}, index: 3, atPos: Pos{47, 10}},
		},
		SLOs: []SLO{
			{Quantile: 0.99, Limit: 100 * time.Millisecond, AtRate: 500, Pos: Pos{50, 5}},
			{Quantile: 0.999, Limit: time.Second, Pos: Pos{51, 5}},
		},
		Seed:     u64(42),
		Interval: 500 * time.Millisecond,
		Collect:  Collect{Kinds: []string{"waits", "statements"}, WaitInterval: 50 * time.Millisecond, WaitSource: "pg_wait_sampling"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Load:\n got %+v\nwant %+v", *got, *want)
	}
	if m := got.Model(); m != ModelOpen {
		t.Errorf("Model = %v, want open", m)
	}
	if s := got.SLOs[0].String(); s != "p99 ≤ 100ms at 500 tx/s" {
		t.Errorf("SLO.String = %q", s)
	}
	if s := got.SLOs[1].String(); s != "p99.9 ≤ 1s" {
		t.Errorf("SLO.String = %q", s)
	}
}

// TestLoadExamples: the other valid files, and the defaults of what they
// leave out.
func TestLoadExamples(t *testing.T) {
	t.Run("search", func(t *testing.T) {
		s, err := Load("testdata/search.yaml")
		if err != nil {
			t.Fatal(err)
		}
		want := &Search{
			SLO:            SLO{Quantile: 0.99, Limit: 50 * time.Millisecond, Pos: Pos{7, 8}},
			Fractions:      []float64{0.5, 0.75, 1},
			CeilingRepeats: 2,
			BracketRepeats: 2,
			Precision:      0.02,
			MaxSteps:       5,
		}
		if !reflect.DeepEqual(s.Search, want) {
			t.Errorf("Search = %+v, want %+v", s.Search, want)
		}
		if s.Model() != ModelSearch || !s.Collect.Off || s.Load.Clients != 8 || s.Workload.Builtin != "select-only" {
			t.Errorf("model %v, collect %+v, clients %d, builtin %q", s.Model(), s.Collect, s.Load.Clients, s.Workload.Builtin)
		}
		if want := []Variant{{Name: DefaultVariant}}; !reflect.DeepEqual(s.Variants, want) {
			t.Errorf("Variants = %+v, want one baseline", s.Variants)
		}
	})
	t.Run("ramp", func(t *testing.T) {
		s, err := Load("testdata/ramp.yaml")
		if err != nil {
			t.Fatal(err)
		}
		want := &Ramp{By: RampClients, From: 4, To: 64, Steps: 5, Spacing: Geometric, StepDuration: 2 * time.Minute}
		if !reflect.DeepEqual(s.Load.Ramp, want) {
			t.Errorf("Ramp = %+v, want %+v", s.Load.Ramp, want)
		}
		if got := s.Load.Ramp.Levels(); !reflect.DeepEqual(got, []float64{4, 8, 16, 32, 64}) {
			t.Errorf("Levels = %v", got)
		}
		if s.Load.Clients != 0 || s.Model() != ModelRamp {
			t.Errorf("clients %d, model %v", s.Load.Clients, s.Model())
		}
		if got := s.Measured(0); got != 10*time.Minute {
			t.Errorf("Measured = %v, want 10m", got)
		}
		// Defaults of what the file leaves out.
		if s.Name != "ramp" || s.Target.Local != "default" || s.Target.Given != "" || s.Target.Remote() || s.Workload.Builtin != "tpcb-like" ||
			s.Workload.Protocol != script.Prepared || s.Workload.MaxTries != 1 || s.Protocol != (Protocol{Warmup: 30 * time.Second, Repeats: 3, Interleave: true}) ||
			s.Interval != time.Second || s.Seed != nil {
			t.Errorf("defaults: %+v", s)
		}
		// The merged mapping: explicit keys, then the anchor's.
		want2 := []Setting{{"wal_compression", "on", Pos{14, 7}}, {"synchronous_commit", "on", Pos{3, 3}}}
		if !reflect.DeepEqual(s.Variants[1].Settings, want2) {
			t.Errorf("merged settings = %+v, want %+v", s.Variants[1].Settings, want2)
		}
		if !reflect.DeepEqual(s.Collect.Kinds, []string{"waits", "os"}) {
			t.Errorf("collect = %+v", s.Collect)
		}
	})
	t.Run("remote", func(t *testing.T) {
		s, err := Load("testdata/remote.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if !s.Target.Remote() || s.Target.RestartCommand == "" || s.Target.NodeExporter != "db1:9100" || s.Target.Local != "" {
			t.Errorf("target = %+v", s.Target)
		}
		if s.Collect.Off || s.Collect.Kinds != nil || s.Collect.WaitSource != "auto" {
			t.Errorf("collect = %+v, want all", s.Collect)
		}
	})
}

// TestScripts: script files are found relative to the experiment file,
// parsed, and their errors point into them.
func TestScripts(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sql/mix.sql", "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n")
	write("sql/bad.sql", "\\set aid random(1,\nSELECT 1;\n")
	write("sql/empty.sql", "-- nothing\n")
	write("exp.yaml", `load: {closed: true}
workload:
  scripts:
    - {file: sql/mix.sql, weight: 9}
    - file: sql/mix.sql
`)
	s, err := Load(filepath.Join(dir, "exp.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Script{
		{File: "sql/mix.sql", Path: filepath.Join(dir, "sql/mix.sql"), Weight: 9, Pos: Pos{4, 7}},
		{File: "sql/mix.sql", Path: filepath.Join(dir, "sql/mix.sql"), Weight: 1, Pos: Pos{5, 7}},
	}
	if !reflect.DeepEqual(s.Workload.Scripts, want) || s.Workload.Builtin != "" {
		t.Errorf("scripts = %+v, builtin %q", s.Workload.Scripts, s.Workload.Builtin)
	}

	write("bad.yaml", `load: {closed: true}
workload:
  scripts:
    - {file: sql/bad.sql}
    - {file: sql/empty.sql}
    - {file: sql/none.sql, weight: 0}
    - {file: sql}
`)
	_, err = Load(filepath.Join(dir, "bad.yaml"))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 4 {
		t.Fatalf("want 4 problems, got %v", err)
	}
	for i, want := range []string{
		"workload.scripts[0].file " + filepath.Join(dir, "sql/bad.sql") + ":1: ",
		"workload.scripts[1].file " + filepath.Join(dir, "sql/empty.sql") + " has no commands",
		"workload.scripts[2].file " + filepath.Join(dir, "sql/none.sql") + " does not exist (script files are found relative to the experiment file)",
		"workload.scripts[3].file " + filepath.Join(dir, "sql") + " is not a regular file",
	} {
		p := ve.Problems[i]
		got := p.Path + " " + p.Message
		if !strings.HasPrefix(got, want) || p.Line != 4+i || p.Column != 14 {
			t.Errorf("problem %d = %d:%d %q, want %d:14 %q…", i, p.Line, p.Column, got, 4+i, want)
		}
	}
	if !strings.Contains(ve.Problems[0].Message, "(at "+filepath.Join(dir, "sql/bad.sql")+":1:") {
		t.Errorf("the script error does not say where: %q", ve.Problems[0].Message)
	}
}

// TestBadFiles: each bad file gives exactly these errors, with line and
// column, all at once.
func TestBadFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
		want string // the whole Error(), lines joined by "\n"
	}{
		{"unknown key with a suggestion", "load: {rate: 10}\nvaraints: []\n",
			`x.yaml:2:1: varaints: unknown key "varaints"; did you mean "variants"?`},
		{"key of another section", "load:\n  rate: 10\n  repeats: 5\n",
			`x.yaml:3:3: load.repeats: unknown key "repeats" here: it belongs in protocol`},
		{"unknown key without a near one", "load: {rate: 10, colour: red}\n",
			`x.yaml:1:18: load.colour: unknown key "colour": expected "clients", "threads", "rate", "closed", "ramp", "arrival", "overload", "latency_limit" or "segments"`},
		{"wrong type", "load: {rate: 10, clients: many}\n",
			`x.yaml:1:27: load.clients: expected a whole number (at least 1 client), got "many"`},
		{"bare number duration", "load: {rate: 10}\nprotocol: {window: 90}\n",
			`x.yaml:2:20: protocol.window: 90 has no unit: write a duration such as 90s, 90ms or 2m`},
		{"bad duration", "load: {rate: 10}\nprotocol: {warmup: 2 minutes}\n",
			`x.yaml:2:20: protocol.warmup: "2 minutes" is not a duration: use Go syntax such as 90s, 2m, 1m30s or 250ms`},
		{"negative duration", "load: {rate: 10, latency_limit: -5ms}\n",
			`x.yaml:1:33: load.latency_limit: -5ms is negative`},
		{"zero and negative counts", "load: {rate: 10, clients: 0, threads: -1}\nprotocol: {repeats: 0}\n",
			"x.yaml:1:27: load.clients: 0 is out of range: at least 1 client\n" +
				"x.yaml:1:39: load.threads: -1 is out of range: give at least 1, or 0 for min(clients, CPUs)\n" +
				"x.yaml:2:21: protocol.repeats: 0 is out of range: at least 1 run per variant (3 or more to see the noise)"},
		{"too many clients and threads, too high a rate", "load: {rate: 2e9, clients: 2000000, threads: 2000000}\n",
			"x.yaml:1:14: load.rate: 2e9 is out of range: transactions per second, above 0 and at most 1e9\n" +
				"x.yaml:1:28: load.clients: 2000000 is out of range: at most 1000000 clients\n" +
				"x.yaml:1:46: load.threads: 2000000 is out of range: at most 1000000 threads (never more than the clients are used)"},
		{"rate and closed", "load:\n  rate: 100\n  closed: true\n",
			`x.yaml:3:3: load.closed: rate and closed exclude each other: choose one load model`},
		{"no load model", "load: {clients: 8}\n",
			`x.yaml:1:1: load: choose the load model: rate: N (open model: latency counts from the scheduled start), closed: true (each client loops; its latency understates what users see), ramp: {…}, or a capacity search (search:)`},
		{"ramp and search", "load:\n  ramp: {by: rate, from: 100, to: 400, steps: 4}\nsearch: {slo: {p99: 10ms}}\n",
			`x.yaml:2:3: load.ramp: ramp and search exclude each other: a search finds one rate, a ramp steps through given levels`},
		{"injection after the window", "load: {rate: 10}\nprotocol: {window: 60s}\ninjections:\n  - {at: 1m, kind: checkpoint}\n  - {at: 50s, kind: lock, table: t, duration: 15s}\n",
			"x.yaml:4:10: injections[0].at: 1m0s is after the end of the measured window (1m0s): nothing would measure it\n" +
				"x.yaml:5:47: injections[1].duration: the lock would be held until 1m5s, after the end of the measured window (1m0s)"},
		{"duplicate variant names", "load: {rate: 10}\nvariants:\n  - name: a\n  - name: b\n  - name: a\n",
			`x.yaml:5:11: variants[2].name: duplicate variant name "a" (first at line 3)`},
		{"empty variants", "load: {rate: 10}\nvariants: []\n",
			`x.yaml:2:1: variants: empty: give at least one variant ({name: A}), or leave the key out for one variant named "baseline"`},
		{"lock without table or duration", "load: {rate: 10}\ninjections:\n  - at: 20s\n    kind: lock\n",
			"x.yaml:3:5: injections[0]: a lock needs a table (table: pgbench_branches)\n" +
				"x.yaml:3:5: injections[0]: a lock needs a duration: how long it is held (duration: 5s)"},
		{"unknown injection kind", "load: {rate: 10}\ninjections: [{at: 5s, kind: chekpoint}]\n",
			`x.yaml:2:29: injections[0].kind: "chekpoint": expected "lock", "checkpoint" or "vacuum"; did you mean "checkpoint"?`},
		{"checkpoint with table and duration", "load: {rate: 10}\ninjections: [{at: 5s, kind: checkpoint, table: t, duration: 1s}]\n",
			"x.yaml:2:41: injections[0].table: a checkpoint takes no table\n" +
				"x.yaml:2:51: injections[0].duration: a checkpoint takes no duration: only a lock is held for a time"},
		{"missing script", "load: {rate: 10}\nworkload:\n  scripts: [{file: missing.sql}]\n",
			`x.yaml:3:20: workload.scripts[0].file: missing.sql does not exist (script files are found relative to the experiment file)`},
		{"builtin and scripts", "load: {rate: 10}\nworkload:\n  builtin: tpcb-like\n  scripts: [{file: spec_test.go}]\n",
			`x.yaml:4:3: workload.scripts: builtin and scripts exclude each other: run a built-in script or script files`},
		{"ambiguous builtin", "load: {rate: 10}\nworkload: {builtin: s}\n",
			`x.yaml:2:21: workload.builtin: ambiguous built-in script name "s": choose "tpcb-like", "simple-update" or "select-only" (any unambiguous prefix), or give script files (scripts)`},
		{"remote restart setting without restart_command", "target: {url: 'postgres://u:secret@db1/bench'}\nload: {rate: 10}\nvariants:\n  - name: big\n    settings:\n      work_mem: 64MB\n      Shared_Buffers: 4GB\n",
			`x.yaml:7:7: variants[0].settings.Shared_Buffers: needs a server restart, and the target is a remote server (target.url) without target.restart_command: give the command that restarts it, or use the local cluster`},
		{"ramp going down", "load:\n  ramp: {by: rate, from: 400, to: 100, steps: 4}\n",
			`x.yaml:2:35: load.ramp.to: 100 is not above from (400): a ramp goes up from its start level to its finish level`},
		{"ramp with one step", "load:\n  ramp: {by: clients, from: 1, to: 8, steps: 1}\n",
			`x.yaml:2:46: load.ramp.steps: 1 is out of range: a ramp has 2 to 1000 steps`},
		{"ramp repeating levels", "load:\n  ramp: {by: clients, from: 1, to: 3, steps: 5}\n",
			`x.yaml:2:46: load.ramp.steps: 5 linear steps from 1 to 3 clients repeat a level (2): use fewer steps`},
		{"ramp without by", "load:\n  ramp: {from: 1, to: 3, steps: 2}\n",
			`x.yaml:2:9: load.ramp: no by: a ramp steps clients (by: clients) or the rate (by: rate)`},
		{"ramp by clients with clients", "load:\n  clients: 8\n  ramp: {by: clients, from: 1, to: 8, steps: 4}\n",
			`x.yaml:2:3: load.clients: a ramp by clients sets the clients of each step: leave clients out`},
		{"ramp with a window", "load:\n  ramp: {by: rate, from: 10, to: 80, steps: 4}\nprotocol: {window: 2m}\n",
			`x.yaml:3:12: protocol.window: a ramp measures each step for ramp.step_duration: give that instead of a window`},
		{"slo with the closed model", "load: {closed: true}\nslo: [{p99: 10ms}]\n",
			`x.yaml:2:1: slo: SLOs need the open model (rate, ramp by rate or search): a closed model's latency understates what users see`},
		{"arrival with the closed model", "load: {closed: true, arrival: uniform}\n",
			`x.yaml:1:22: load.arrival: applies to the open model (rate, ramp by rate or search), not to the closed model`},
		{"restart_command on the local cluster", "target: {local: true, restart_command: pg_ctl restart}\nload: {rate: 10}\n",
			`x.yaml:1:23: target.restart_command: applies to a server given by url: a local cluster is restarted with pg_ctl`},
		{"a connection string where a mapping belongs", "target: postgres://u:secret@db1/bench\nload: {rate: 10}\n",
			`x.yaml:1:9: target: expected a mapping (url or local, restart_command, node_exporter), got a connection string (not shown)`},
		{"a connection string as the cluster name", "target: {local: 'host=db1 password=secret'}\nload: {rate: 10}\n",
			`x.yaml:1:17: target.local: a connection string (not shown) is not a cluster name: use letters, digits, '_', '.', '-' (at most 64, not starting with '.' or '-'); a server is target.url`},
		{"a URL of another database", "target: {url: 'mysql://u:secret@db1/shop'}\nload: {rate: 10}\n",
			`x.yaml:1:15: target.url: mysql://u:xxxxx@db1/shop is not a PostgreSQL URL; give postgres://USER@HOST:PORT/DATABASE (or postgresql://), a key=value connection string (host=… port=… dbname=…) or a database name`},
		{"url and local", "target: {url: 'host=db1', local: true}\nload: {rate: 10}\n",
			`x.yaml:1:27: target.local: url and local exclude each other: the target is either a server (url) or a local cluster`},
		{"yaml syntax", "load: {rate: 10\nprotocol: x\n",
			`x.yaml:1: not valid YAML: did not find expected ',' or '}'`},
		{"empty file", "# nothing\n",
			`x.yaml: the file is empty: an experiment needs at least a load model, e.g. "load: {rate: 500}"`},
		{"a list, not a mapping", "- load\n",
			`x.yaml:1:1: expected a mapping of keys (target, workload, load, protocol, variants, …), got a list`},
		{"two documents", "load: {rate: 10}\n---\nload: {rate: 20}\n",
			`x.yaml:2:1: a second YAML document: an experiment file holds one (remove the "---")`},
		{"repeated key", "load: {rate: 10}\nseed: 1\nseed: 2\n",
			`x.yaml:3:1: seed: repeated key (first at line 2)`},
		{"seed negative", "load: {rate: 10}\nseed: -1\n",
			`x.yaml:2:7: seed: expected an unsigned integer (0 to 18446744073709551615), got the number -1; leave it out to have one chosen and recorded`},
		{"query protocol at the top", "load: {rate: 10}\nprotocol: prepared\n",
			`x.yaml:2:11: protocol: expected a mapping (warmup, window, repeats, interleave), got "prepared"; the query protocol is workload.protocol`},
		{"unknown collector", "load: {rate: 10}\ncollect: [waits, wiats, cpu]\n",
			"x.yaml:2:18: collect[1]: \"wiats\": expected \"waits\", \"statements\", \"server\" or \"os\"; did you mean \"waits\"?\n" +
				`x.yaml:2:25: collect[2]: "cpu": expected "waits", "statements", "server" or "os"`},
		{"search fractions and slo", "load: {clients: 4}\nsearch:\n  slo: {p99: 10ms, at_rate: 100}\n  fractions: [0.6, 0.3, 1.5]\n",
			"x.yaml:3:20: search.slo.at_rate: a capacity search finds the rate: leave at_rate out\n" +
				"x.yaml:4:20: search.fractions[1]: 0.3 is not above 0.6: list the fractions in increasing order\n" +
				"x.yaml:4:25: search.fractions[2]: 1.5 is out of range: a fraction of the ceiling, above 0 and at most 1"},
		{"slo at a rate the load never runs", "load: {rate: 100}\nslo: [{p99: 10ms, at_rate: 200}]\n",
			`x.yaml:2:28: slo[0].at_rate: 200 tx/s, but the load runs at 100 tx/s: leave at_rate out, or make it the load's rate`},
		{"slo outside the ramp", "load: {ramp: {by: rate, from: 10, to: 40, steps: 4}}\nslo: [{p99: 10ms, at_rate: 50}]\n",
			`x.yaml:2:28: slo[0].at_rate: 50 tx/s is outside the ramp (10 to 40 tx/s)`},
		{"slo with two quantiles and none", "load: {rate: 10}\nslo:\n  - {p99: 10ms, p95: 5ms}\n  - {at_rate: 10}\n",
			"x.yaml:3:6: slo[0].p99: one quantile per SLO (this one has p95 and p99): write one SLO each\n" +
				"x.yaml:4:5: slo[1]: no quantile: give one of p50, p90, p95, p99, p99.9 with its limit (p99: 100ms)"},
		{"bad variant name and settings", "load: {rate: 10}\nvariants:\n  - name: a/b\n    settings: {work_mem: , 1bad: x}\n    setup: [\"\"]\n",
			"x.yaml:3:11: variants[0].name: \"a/b\": use letters, digits, '_', '.' and '-' (at most 64, not starting with '.' or '-'): it names the variant's run directories\n" +
				"x.yaml:4:26: variants[0].settings.work_mem: no value: give the value to set (quote it for an empty string: \"\")\n" +
				"x.yaml:4:28: variants[0].settings.1bad: \"1bad\" is not a setting name (letters, digits, '_', and '.' for an extension's settings)\n" +
				"x.yaml:5:13: variants[0].setup[0]: empty: expected an SQL statement"},
		{"segments that do not divide the threads", "load: {rate: 10, clients: 6, threads: 3, segments: 2}\n",
			"x.yaml:1:42: load.segments: 2 segments need threads a multiple of 2 (load.threads is 3): each segment runs threads/2 of them"},
		{"segments without threads", "load: {rate: 10, segments: 2}\n",
			"x.yaml:1:18: load.segments: segments need load.threads (a multiple of 2): each segment runs threads/2 of them"},
		{"segments out of range", "load: {rate: 10, threads: 2, segments: 100}\n",
			"x.yaml:1:40: load.segments: 100 is out of range: 1 to 64"},
		{"segments with tpcc", "workload: {builtin: tpcc}\nload: {rate: 10, threads: 2, segments: 2}\n",
			"x.yaml:2:30: load.segments: segments with builtin tpcc are not supported: its NOPM is read by one generator"},
		{"merge cycle", "load: &l {rate: 10, <<: *l}\n",
			`x.yaml:1:7: load: a merge key (<<) refers to a mapping that contains it`},
		{"variable names", "load: {rate: 10}\nworkload:\n  variables: {9x: 1, ok: [1]}\n",
			"x.yaml:3:15: workload.variables.9x: \"9x\" is not a variable name (letters, digits, '_'; not starting with a digit)\n" +
				"x.yaml:3:26: workload.variables.ok: expected a value, got a list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error; spec %+v", s)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %T, want *ValidationError: %v", err, err)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("error:\n%s\nwant:\n%s", got, tc.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error shows the password")
			}
		})
	}
}

// TestBadManyAtOnce: every problem of a file, sorted by line.
func TestBadManyAtOnce(t *testing.T) {
	_, err := Load("testdata/bad-many.yaml")
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want a ValidationError, got %v", err)
	}
	want := []string{
		"6:3 workload.scripts",
		"8:12 load.clients",
		"10:3 load.closed",
		"11:3 load.latency_limt",
		"13:11 protocol.warmup",
		"15:12 protocol.repeats",
		"18:16 variants[0].settings.shared_buffers",
		"19:11 variants[1].name",
		"20:26 variants[1].settings.work_mem",
		"22:10 injections[0].at",
		"23:5 injections[1]",
		"23:5 injections[1]",
		"24:21 injections[2].kind",
		"25:62 injections[3].duration",
	}
	var got []string
	for _, p := range ve.Problems {
		got = append(got, fmt.Sprintf("%d:%d %s", p.Line, p.Column, p.Path))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(err.Error(), "testdata/bad-many.yaml:6:3: workload.scripts: ") {
		t.Errorf("Error() = %q", err.Error())
	}
}

func TestRampLevels(t *testing.T) {
	for _, tc := range []struct {
		name string
		ramp Ramp
		want []float64
	}{
		{"linear rate", Ramp{By: RampRate, From: 100, To: 400, Steps: 4}, []float64{100, 200, 300, 400}},
		{"geometric rate", Ramp{By: RampRate, From: 100, To: 800, Steps: 4, Spacing: Geometric}, []float64{100, 200, 400, 800}},
		{"linear clients rounded", Ramp{By: RampClients, From: 1, To: 8, Steps: 3}, []float64{1, 5, 8}},                          // 4.5 rounds up
		{"geometric clients rounded", Ramp{By: RampClients, From: 2, To: 20, Steps: 3, Spacing: Geometric}, []float64{2, 6, 20}}, // √40 = 6.32
		{"two steps", Ramp{By: RampRate, From: 1.5, To: 2.5, Steps: 2}, []float64{1.5, 2.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.ramp.Levels()
			if len(got) != len(tc.want) {
				t.Fatalf("Levels = %v, want %v", got, tc.want)
			}
			for i := range got {
				if d := got[i] - tc.want[i]; d > 1e-9 || d < -1e-9 {
					t.Fatalf("Levels = %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestWindow(t *testing.T) {
	for _, tc := range []struct {
		window, checkpointTimeout, want time.Duration
	}{
		{0, 5 * time.Minute, 10 * time.Minute}, // 2 × checkpoint_timeout
		{0, time.Minute, 2 * time.Minute},
		{0, 30 * time.Second, time.Minute}, // never below 60 s
		{0, 0, time.Minute},
		{45 * time.Second, 5 * time.Minute, 45 * time.Second}, // the file's, even when short
	} {
		if got := (Protocol{Window: tc.window}).WindowFor(tc.checkpointTimeout); got != tc.want {
			t.Errorf("window %v, checkpoint_timeout %v: WindowFor = %v, want %v", tc.window, tc.checkpointTimeout, got, tc.want)
		}
	}
}

// TestCheckWindow: with the window left to the server, injections are
// checked once the runner knows it.
func TestCheckWindow(t *testing.T) {
	s, err := Parse("w.yaml", []byte("load: {rate: 10}\ninjections:\n  - {at: 90s, kind: checkpoint}\n  - {at: 50s, kind: lock, table: t, duration: 15s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckWindow(10 * time.Minute); err != nil {
		t.Errorf("CheckWindow(10m): %v", err)
	}
	err = s.CheckWindow(s.Protocol.WindowFor(30 * time.Second))
	want := "w.yaml:3:10: injections[0].at: 1m30s is after the end of the measured window (1m0s): nothing would measure it\n" +
		"w.yaml:4:47: injections[1].duration: the lock would be held until 1m5s, after the end of the measured window (1m0s)"
	if err == nil || err.Error() != want {
		t.Errorf("CheckWindow(60s) = %v, want\n%s", err, want)
	}

	// A ramp without step_duration measures the window per step.
	s, err = Parse("r.yaml", []byte("load: {ramp: {by: rate, from: 10, to: 40, steps: 4}}\ninjections: [{at: 3m, kind: checkpoint}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Measured(time.Minute); got != 4*time.Minute {
		t.Errorf("Measured(1m) = %v, want 4m", got)
	}
	if err := s.CheckWindow(time.Minute); err != nil {
		t.Errorf("CheckWindow(1m): %v", err)
	}
	if err := s.CheckWindow(30 * time.Second); err == nil {
		t.Errorf("CheckWindow(30s): no error for an injection at 3m of a 2m ramp")
	}
}

// TestMergeKeys: anchors and merge keys share parts between variants.
func TestMergeKeys(t *testing.T) {
	s, err := Parse("m.yaml", []byte(`x-base: &base
  name: base
  settings: &s {work_mem: 4MB, synchronous_commit: "on"}
  setup: [SELECT 1]
load: {rate: 10}
variants:
  - *base
  - <<: *base
    name: fast
    settings: {<<: *s, synchronous_commit: "off"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Variants) != 2 {
		t.Fatalf("variants = %+v", s.Variants)
	}
	fast := s.Variants[1]
	if fast.Name != "fast" || !reflect.DeepEqual(fast.Setup, []string{"SELECT 1"}) {
		t.Errorf("fast = %+v", fast)
	}
	got := map[string]string{}
	for _, st := range fast.Settings {
		got[st.Name] = st.Value
	}
	if want := map[string]string{"work_mem": "4MB", "synchronous_commit": "off"}; !reflect.DeepEqual(got, want) {
		t.Errorf("fast settings = %v, want %v", got, want)
	}
}

// TestExpansionBudget: merge keys that would expand to 10^9 mappings stop
// at the node budget, quickly.
func TestExpansionBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("x-a0: &a0 {rate: 10}\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "x-a%d: &a%d {<<: [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]}\n")
	}
	b.WriteString("load: {<<: *a9}\n")
	_, err := Parse("big.yaml", []byte(b.String()))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || !strings.Contains(ve.Problems[0].Message, "expands to more than 200000 YAML nodes") {
		t.Fatalf("want one budget problem, got %v", err)
	}
}

func TestTooLarge(t *testing.T) {
	data := []byte("load: {rate: 10}\n" + strings.Repeat("# padding\n", maxFileSize/10+1))
	_, err := Parse("huge.yaml", data)
	if err == nil || err.Error() != "huge.yaml: the file is larger than 1048576 bytes: an experiment file is a page of YAML" {
		t.Errorf("err = %v", err)
	}
	if _, err := Load("testdata/does-not-exist.yaml"); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v", err)
	}
}

func TestClosest(t *testing.T) {
	for _, tc := range []struct {
		key, section, want string
	}{
		{"warmpu", "protocol", `unknown key "warmpu"; did you mean "warmup"?`},  // swapped letters
		{"Clients", "load", `unknown key "Clients"; did you mean "clients"?`},   // case
		{"step", "load.ramp", `unknown key "step"; did you mean "steps"?`},      // one missing
		{"window", "load", `unknown key "window" here: it belongs in protocol`}, // another section
		{"name", "load", `unknown key "name" here: it belongs in the top level or scenarios[…] or variants[…]`},
		{"zzz", "collect", `unknown key "zzz": expected "kinds", "wait_interval" or "wait_source"`},
	} {
		if got := unknownKey(tc.key, tc.section); got != tc.want {
			t.Errorf("unknownKey(%q, %q) = %q, want %q", tc.key, tc.section, got, tc.want)
		}
	}
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"kitten", "sitting", 3}, {"", "abc", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNeedsRestart(t *testing.T) {
	for name, want := range map[string]bool{
		"shared_buffers": true, "MAX_CONNECTIONS": true, "wal_level": true, "huge_pages": true,
		"work_mem": false, "synchronous_commit": false, "max_wal_size": false,
	} {
		if got := NeedsRestart(name); got != want {
			t.Errorf("NeedsRestart(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestValidationErrorFormat(t *testing.T) {
	e := &ValidationError{File: "f.yaml", Problems: []Problem{
		{Message: "whole file"},
		{Line: 3, Message: "no column"},
		{Line: 4, Column: 2, Path: "a.b", Message: "full"},
	}}
	want := "f.yaml: whole file\nf.yaml:3: no column\nf.yaml:4:2: a.b: full"
	if got := e.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	many := &ValidationError{File: "f.yaml"}
	for i := 0; i < maxShown+5; i++ {
		many.Problems = append(many.Problems, Problem{Line: i + 1, Message: "x"})
	}
	lines := strings.Split(many.Error(), "\n")
	if len(lines) != maxShown+1 || lines[maxShown] != "f.yaml: and 5 more problems" {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

// TestOddInputs: odd YAML gives problems, not panics.
func TestOddInputs(t *testing.T) {
	for _, in := range []string{
		"",
		"\x00",
		"~",
		"load: {rate: 10}\n? [a, b]\n: c\n",
		"load: {rate: 10}\n<<: 5\n",
		"load: {rate: 10, <<: [1, *x]}\n",
		"load: &x {rate: 10, <<: [*x]}\n",
		"load: !!binary aGVsbG8=\n",
		"load: {rate: !!str 10}\n",
		"load: {rate: .nan}\n",
		"load: {rate: .inf}\n",
		"load: {rate: 1e400}\n",
		"seed: 99999999999999999999999\nload: {rate: 10}\n",
		"load: {clients: 0x7fffffffffffffff, rate: 10}\n",
		"variants: [{name: a, settings: {<<: [*s]}}]\n",
		"variants: [{name: a, settings: &s {<<: *s}}]\nload: {rate: 1}\n",
		"variants: [{name: a, settings: {<<: &q [*q, *q]}}]\nload: {rate: 1}\n",
		"load: {rate: 1, <<: &q [*q, *q, *q]}\n",
		"collect: {kinds: ''}\nload: {rate: 1}\n",
		"collect: ','\nload: {rate: 1}\n",
		"workload: {scripts: [{file: /dev/null}]}\nload: {rate: 1}\n",
		"workload: {scripts: [{file: /}]}\nload: {rate: 1}\n",
		strings.Repeat("[", 20000),
		strings.Repeat("- ", 5000) + "x\n",
		"load:\n\trate: 10\n",
	} {
		s, err := Parse("odd.yaml", []byte(in))
		if err == nil {
			t.Errorf("%q: no error, spec %+v", in, s)
			continue
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Problems) == 0 {
			t.Errorf("%q: error %T %v, want a ValidationError", in, err, err)
		}
	}
}

// FuzzParse: arbitrary bytes never panic; an error is a ValidationError
// with sorted problems; a spec keeps its invariants.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("load: &x {rate: 10, <<: [*x]}\n"))
	f.Add([]byte("load: {ramp: {by: clients, from: 1, to: 9, steps: 3}}\nvariants: [{name: a}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("testdata/fuzz.yaml", data)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("error %T %v, want a ValidationError", err, err)
			}
			for i := 1; i < len(ve.Problems); i++ {
				a, b := ve.Problems[i-1], ve.Problems[i]
				if a.Line > b.Line || a.Line == b.Line && a.Column > b.Column {
					t.Fatalf("problems out of order: %+v before %+v", a, b)
				}
			}
			_ = err.Error()
			return
		}
		models := 0
		if s.Load.Rate > 0 {
			models++
		}
		if s.Load.Closed {
			models++
		}
		if s.Load.Ramp != nil {
			models++
		}
		if s.Search != nil {
			models++
		}
		switch {
		case models != 1:
			t.Fatalf("%d load models: %+v", models, s.Load)
		case len(s.Variants) == 0:
			t.Fatal("no variants")
		case s.Protocol.Repeats < 1:
			t.Fatalf("repeats %d", s.Protocol.Repeats)
		case s.Load.Ramp == nil && s.Load.Clients < 1 && s.Search == nil:
			t.Fatalf("clients %d", s.Load.Clients)
		case s.Target.Remote() == (s.Target.Local != ""):
			t.Fatalf("target %+v", s.Target)
		case s.Interval < 10*time.Millisecond:
			t.Fatalf("interval %v", s.Interval)
		}
		if r := s.Load.Ramp; r != nil {
			lv := r.Levels()
			if len(lv) != r.Steps || r.Steps < 2 || !(r.From < r.To) {
				t.Fatalf("ramp %+v levels %v", r, lv)
			}
		}
		names := map[string]bool{}
		for _, v := range s.Variants {
			if names[v.Name] || v.Name == "" {
				t.Fatalf("variant names %+v", s.Variants)
			}
			names[v.Name] = true
		}
		if s.Protocol.Window > 0 {
			if err := s.CheckWindow(s.Protocol.Window); err != nil {
				t.Fatalf("Parse accepted what CheckWindow rejects: %v", err)
			}
		}
	})
}

// TestDocExamples: the files in the package documentation are valid.
func TestDocExamples(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	var cur []string
	for _, line := range strings.Split(string(src), "\n") {
		if body, ok := strings.CutPrefix(line, "//\t"); ok {
			cur = append(cur, body)
			continue
		}
		if len(cur) > 0 && line != "//" {
			blocks = append(blocks, strings.Join(cur, "\n")+"\n")
			cur = nil
		}
		if strings.HasPrefix(line, "package ") {
			break
		}
	}
	// The error example, the complete file, the search, the scenarios.
	if len(blocks) != 4 {
		t.Fatalf("%d indented blocks in the package doc, want 4", len(blocks))
	}
	s, err := Parse("doc.yaml", []byte(blocks[1]))
	if err != nil {
		t.Fatalf("the complete example: %v", err)
	}
	if s.Model() != ModelOpen || len(s.Variants) != 2 || len(s.Injections) != 3 || s.Workload.Scale != 75 {
		t.Errorf("the complete example gave %+v", s)
	}
	s, err = Parse("doc.yaml", []byte("load: {clients: 8}\n"+blocks[2]))
	if err != nil {
		t.Fatalf("the search example: %v", err)
	}
	if s.Search == nil || s.Search.SLO.Limit != 50*time.Millisecond {
		t.Errorf("the search example gave %+v", s.Search)
	}
	s, err = Parse("doc.yaml", []byte(blocks[3]))
	if err != nil {
		t.Fatalf("the scenarios example: %v", err)
	}
	if len(s.Scenarios) != 2 || s.Model() != ModelRamp || s.Scenarios[1].Open() {
		t.Errorf("the scenarios example gave %+v", s.Scenarios)
	}
}

// TestDocShowsEveryKey: every key of every section's table has a line of
// doc and appears in the package documentation (go doc shows it), and no
// section repeats a key.
func TestDocShowsEveryKey(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	docs := map[string]string{}
	collectDocs := func(section string, names []string, docOf func(i int) string) {
		seen := map[string]bool{}
		for i, name := range names {
			if seen[name] {
				t.Errorf("%s: key %q twice", sectionPath(section), name)
			}
			seen[name] = true
			if docOf(i) == "" {
				t.Errorf("%s.%s: no doc in its table", section, name)
			}
			docs[child(section, name)] = docOf(i)
		}
	}
	collectDocs("", topSection().names(), func(i int) string { return topSection().keys[i].doc })
	collectDocs("target", targetSection().names(), func(i int) string { return targetSection().keys[i].doc })
	collectDocs("workload", workloadSection().names(), func(i int) string { return workloadSection().keys[i].doc })
	collectDocs("workload.scripts", scriptSection().names(), func(i int) string { return scriptSection().keys[i].doc })
	collectDocs("load", loadSection().names(), func(i int) string { return loadSection().keys[i].doc })
	collectDocs("load.ramp", rampSection().names(), func(i int) string { return rampSection().keys[i].doc })
	collectDocs("scenarios", scenarioSection().names(), func(i int) string { return scenarioSection().keys[i].doc })
	collectDocs("protocol", protocolSection().names(), func(i int) string { return protocolSection().keys[i].doc })
	collectDocs("variants", variantSection().names(), func(i int) string { return variantSection().keys[i].doc })
	collectDocs("injections", injectionSection().names(), func(i int) string { return injectionSection().keys[i].doc })
	collectDocs("slo", sloSection("slo").names(), func(i int) string { return sloSection("slo").keys[i].doc })
	collectDocs("search", searchSection().names(), func(i int) string { return searchSection().keys[i].doc })
	collectDocs("protocol.calibrate", calibrateSection().names(), func(i int) string { return calibrateSection().keys[i].doc })
	collectDocs("collect", collectSection().names(), func(i int) string { return collectSection().keys[i].doc })
	collectDocs("data", dataSection().names(), func(i int) string { return dataSection().keys[i].doc })
	collectDocs("data.shape", dataShapeSection().names(), func(i int) string { return dataShapeSection().keys[i].doc })
	collectDocs("data.age", dataAgeSection().names(), func(i int) string { return dataAgeSection().keys[i].doc })
	tables := 0
	for _, kt := range keyTables() {
		tables++
		for _, name := range kt.keys {
			word := regexp.MustCompile(`(^|[^A-Za-z0-9_.])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_])`)
			if !word.MatchString(doc) {
				t.Errorf("%s: key %q is not in the package documentation", sectionPath(kt.section), name)
			}
		}
	}
	if tables != 18 || len(docs) < 50 {
		t.Errorf("%d tables, %d keys: a section is missing from keyTables", tables, len(docs))
	}
}

// TestUnknownKeyHomes: a key of another section names every section it
// belongs in, from the same tables that decode.
func TestUnknownKeyHomes(t *testing.T) {
	for _, tc := range []struct{ key, section, want string }{
		{"p99", "load", `unknown key "p99" here: it belongs in slo[…] or search.slo`},
		{"weight", "variants", `unknown key "weight" here: it belongs in workload.scripts[…]`},
		{"steps", "search", `unknown key "steps" here: it belongs in load.ramp`},
	} {
		if got := unknownKey(tc.key, tc.section); got != tc.want {
			t.Errorf("unknownKey(%q, %q) = %q, want %q", tc.key, tc.section, got, tc.want)
		}
	}
}
