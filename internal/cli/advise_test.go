package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/advise"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/target"
)

// TestAdviseWritesACheckedExperiment: advise against a real server prints
// the settings with current, advised, restart and rule, and writes a file
// that experiment --check accepts; a server given by URL gets its restart
// settings only with --restart-command.
func TestAdviseWritesACheckedExperiment(t *testing.T) {
	url := pgtest.ConnString(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "advise.yaml")

	code, stdout, stderr := runCLI(t, "advise", url, "--workload", "web", "--cpus", "8", "--ram", "4GB", "--storage", "ssd", "--out", out)
	if code != 0 {
		t.Fatalf("advise: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"pgtune's advice for workload type web (PostgreSQL ",
		"CPUs     8: --cpus", "RAM      4 GiB: --ram", "storage  ssd: --storage",
		"setting  ", "current", "advised", "restart", "rule",
		"RAM/4 = 4GB/4 = 1GB (web, oltp, dw, mixed; desktop RAM/16)",
		"3·RAM/4 = 3·4GB/4 = 3GB",
		"max_parallel_workers_per_gather", "⌈CPUs/2⌉ = ⌈8/2⌉ = 4",
		"left out of the experiment: shared_buffers", // no --restart-command
		"pgtrial experiment --check " + out,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("advise output lacks %q:\n%s", want, stdout)
		}
	}
	if !lineHas(stdout, "shared_buffers", "1GB", "yes, left out") || !lineHas(stdout, "work_mem", "4MB", "(4GB − 1GB)/((") {
		t.Errorf("the shared_buffers or work_mem row is wrong:\n%s", stdout)
	}
	file := readFile(t, out)
	if strings.Contains(file, "shared_buffers:") || !strings.Contains(file, "# Left out (they need a restart, and a server given by URL --restart-command): shared_buffers, wal_buffers") || !strings.Contains(file, `effective_cache_size: "3GB" # 3·RAM/4`) || !strings.Contains(file, "repeats: 5") {
		t.Errorf("file without --restart-command:\n%s", file)
	}
	checkExperimentFile(t, out)

	// With --restart-command the restart settings go in; the URL keeps no password.
	code, stdout, stderr = runCLI(t, "advise", "--url", url, "--cpus", "8", "--ram", "4GB", "--storage", "ssd",
		"--restart-command", "true", "--repeats", "6", "--builtin", "select-only", "--out", out)
	if code != 0 {
		t.Fatalf("advise --restart-command: exit %d\n%s%s", code, stdout, stderr)
	}
	file = readFile(t, out)
	for _, want := range []string{`shared_buffers: "1GB" # RAM/4`, `max_worker_processes: "8"`, "restart_command: \"true\"", "repeats: 6", "builtin: select-only", "url: postgres://"} {
		if !strings.Contains(file, want) {
			t.Errorf("file with --restart-command lacks %q:\n%s", want, file)
		}
	}
	checkExperimentFile(t, out)

	// Measured: the figures say where they came from.
	code, stdout, stderr = runCLI(t, "advise", url, "--out", out)
	if code != 0 || !strings.Contains(stdout, "/proc/meminfo") || !strings.Contains(stdout, "storage  ") || !strings.Contains(stdout, "/proc/stat") {
		t.Errorf("measured hardware: exit %d\n%s%s", code, stdout, stderr)
	}
	checkExperimentFile(t, out)
}

func TestAdviseRefusesBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "batch"}, "web, oltp, dw, desktop, mixed"},
		{[]string{"--repeats", "3"}, "at least 5"},
		{[]string{"--clients", "0"}, "--clients 0"},
	} {
		code, _, stderr := runCLI(t, append([]string{"advise", "--out", filepath.Join(t.TempDir(), "a.yaml")}, c.args...)...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr, exitBadInput, c.want)
		}
	}
}

// TestAdviseExperimentOnTheLocalCluster: the local cluster is the file's
// target.local, and its restart settings stay in (pg_ctl restarts it).
func TestAdviseExperimentOnTheLocalCluster(t *testing.T) {
	hw := &hardware{cpus: 4, ram: 16 << 30, storage: advise.HDD, cpusSrc: "--cpus", ramSrc: "--ram", stSrc: "--storage"}
	advice, err := advise.Advise(advise.Input{CPUs: 4, RAM: hw.ram, Storage: hw.storage, Workload: advise.OLTP, MaxConnections: 100, Version: 15})
	if err != nil {
		t.Fatal(err)
	}
	facts := &serverFacts{versionNum: 150000, maxConnections: 100, checkpointTimeout: 5 * time.Minute, settings: map[string]currentSetting{}}
	for _, s := range advice {
		facts.settings[s.Name] = currentSetting{value: "x", restart: experiment.NeedsRestart(s.Name)}
	}
	o := &adviseOptions{builtin: "tpcb-like", clients: 8, repeats: 5, out: "advise.yaml"}
	for _, c := range []struct{ name, want string }{{"default", "local: true"}, {"lab", "local: lab"}} {
		res := &target.Resolved{Local: namedCluster(c.name)}
		file, err := adviseExperiment(o, advise.OLTP, hw, facts, advice, res, true)
		if err != nil {
			t.Fatal(err)
		}
		s := string(file)
		for _, want := range []string{c.want, `shared_buffers: "4GB"`, `huge_pages: "off"`, `random_page_cost: "4"`, "- name: current", "- name: advised", "≈ 105 min"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: file lacks %q:\n%s", c.name, want, s)
			}
		}
		spec, err := experiment.Parse("advise.yaml", file)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, s)
		}
		if len(spec.Variants) != 2 || len(spec.Variants[0].Settings) != 0 || len(spec.Variants[1].Settings) == 0 || spec.Protocol.Repeats != 5 {
			t.Errorf("%s: variants %+v, repeats %d", c.name, spec.Variants, spec.Protocol.Repeats)
		}
	}
}

// namedCluster is a local cluster of a name, for the file's target.
type namedCluster string

func (c namedCluster) Name() string    { return string(c) }
func (namedCluster) Created() bool     { return true }
func (namedCluster) Running() bool     { return true }
func (namedCluster) URL(string) string { return "" }
func (namedCluster) Start(context.Context) (localpg.StartResult, error) {
	return localpg.StartResult{}, nil
}

// checkExperimentFile runs experiment --check on the file, as
// TestExampleExperimentsAreValid does.
func checkExperimentFile(t *testing.T, f string) {
	t.Helper()
	if code, out, errOut := runCLI(t, "experiment", "--check", f); code != 0 || !strings.Contains(out, "the file is valid") {
		t.Errorf("experiment --check %s: exit %d, %q %q\n%s", f, code, out, errOut, readFile(t, f))
	}
}

func readFile(t *testing.T, f string) string {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lineHas says whether a line of out starts (after blanks) with name and
// holds every one of parts.
func lineHas(out, name string, parts ...string) bool {
	for l := range strings.Lines(out) {
		if !strings.HasPrefix(strings.TrimSpace(l), name+" ") {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return true
		}
	}
	return false
}
