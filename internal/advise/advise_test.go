package advise

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

const gib = int64(1) << 30

// values maps each setting to its value ("" when not advised).
func values(t *testing.T, in Input) map[string]string {
	t.Helper()
	ss, err := Advise(in)
	if err != nil {
		t.Fatalf("Advise(%+v): %v", in, err)
	}
	m := map[string]string{}
	for _, s := range ss {
		if _, dup := m[s.Name]; dup {
			t.Errorf("%s advised twice", s.Name)
		}
		if s.Rule == "" {
			t.Errorf("%s has no rule", s.Name)
		}
		m[s.Name] = s.Value
	}
	return m
}

// TestAdviseMatchesPgtune: pgtune's outputs for known inputs, computed by
// hand from its rules (configurationSlice.js at 7d204bd), in kB of RAM.
func TestAdviseMatchesPgtune(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		want map[string]string
	}{
		{
			// seed 003's machine: 2 CPUs, 4 GB, SSD, 20 connections.
			// work_mem = (4194304 − 1048576)/((20 + 8)·3) = 37449.1
			name: "web 4GB 2 CPUs ssd",
			in:   Input{CPUs: 2, RAM: 4 * gib, Storage: SSD, Workload: Web, MaxConnections: 20, Version: 15},
			want: map[string]string{
				"shared_buffers": "1GB", "effective_cache_size": "3GB", "maintenance_work_mem": "256MB",
				"checkpoint_completion_target": "0.9", "wal_buffers": "16MB", "default_statistics_target": "100",
				"random_page_cost": "1.1", "effective_io_concurrency": "200", "work_mem": "37449kB",
				"huge_pages": "off", "min_wal_size": "1GB", "max_wal_size": "4GB",
				"max_worker_processes": "", "max_parallel_workers_per_gather": "", "max_parallel_workers": "", "max_parallel_maintenance_workers": "",
			},
		},
		{
			// pgtune's default connections for oltp (300); workers = 8 CPUs.
			// work_mem = (16777216 − 4194304)/((300 + 8)·3) = 13617.9
			name: "oltp 16GB 8 CPUs ssd",
			in:   Input{CPUs: 8, RAM: 16 * gib, Storage: SSD, Workload: OLTP, Version: 17},
			want: map[string]string{
				"shared_buffers": "4GB", "effective_cache_size": "12GB", "maintenance_work_mem": "1GB",
				"wal_buffers": "16MB", "default_statistics_target": "100", "work_mem": "13617kB",
				"huge_pages": "off", "min_wal_size": "2GB", "max_wal_size": "8GB",
				"max_worker_processes": "8", "max_parallel_workers_per_gather": "4", "max_parallel_workers": "8", "max_parallel_maintenance_workers": "4",
			},
		},
		{
			// maintenance_work_mem = 64GB/8 capped at 2GB; gather not capped
			// for dw; PostgreSQL 10 has no max_parallel_maintenance_workers.
			// work_mem = (67108864 − 16777216)/((40 + 32)·3)/2 = 116508.4
			name: "dw 64GB 32 CPUs hdd v10",
			in:   Input{CPUs: 32, RAM: 64 * gib, Storage: HDD, Workload: DW, MaxConnections: 40, Version: 10},
			want: map[string]string{
				"shared_buffers": "16GB", "effective_cache_size": "48GB", "maintenance_work_mem": "2GB",
				"wal_buffers": "16MB", "default_statistics_target": "500", "random_page_cost": "4",
				"effective_io_concurrency": "2", "work_mem": "116508kB", "huge_pages": "try",
				"min_wal_size": "4GB", "max_wal_size": "16GB",
				"max_worker_processes": "32", "max_parallel_workers_per_gather": "16", "max_parallel_workers": "32",
			},
		},
		{
			// desktop: RAM/16, RAM/4; pgtune's 20 connections; wal_buffers
			// 3 % of 131072 = 3932.2; work_mem (2097152 − 131072)/84/6 = 3900.9
			name: "desktop 2GB 1 CPU san",
			in:   Input{CPUs: 1, RAM: 2 * gib, Storage: SAN, Workload: Desktop, Version: 13},
			want: map[string]string{
				"shared_buffers": "128MB", "effective_cache_size": "512MB", "maintenance_work_mem": "128MB",
				"wal_buffers": "3932kB", "random_page_cost": "1.1", "effective_io_concurrency": "300",
				"work_mem": "3900kB", "min_wal_size": "100MB", "max_wal_size": "2GB",
			},
		},
		{
			// work_mem = (262144 − 65536)/((100 + 4)·3)/2 = 315.1; ⌈4/2⌉ = 2
			name: "mixed 256MB 4 CPUs",
			in:   Input{CPUs: 4, RAM: 256 << 20, Storage: SSD, Workload: Mixed, MaxConnections: 100, Version: 16},
			want: map[string]string{
				"shared_buffers": "64MB", "effective_cache_size": "192MB", "maintenance_work_mem": "16MB",
				"wal_buffers": "1966kB", "work_mem": "315kB",
				"max_worker_processes": "4", "max_parallel_workers_per_gather": "2", "max_parallel_workers": "4", "max_parallel_maintenance_workers": "2",
			},
		},
		{
			// 3 % of 512000kB = 15360kB, between 14MB and 16MB: 16MB.
			name: "wal_buffers rounded up",
			in:   Input{RAM: 2000 << 20, Storage: Unknown, Workload: Web, MaxConnections: 100},
			want: map[string]string{"shared_buffers": "500MB", "wal_buffers": "16MB", "random_page_cost": "", "effective_io_concurrency": ""},
		},
		{
			// 2MB: shared_buffers 512kB, wal_buffers 15kB → 32kB, work_mem → 64kB.
			name: "minimums",
			in:   Input{RAM: 2 << 20, Workload: OLTP, MaxConnections: 100},
			want: map[string]string{"shared_buffers": "512kB", "wal_buffers": "32kB", "work_mem": "64kB", "maintenance_work_mem": "128kB"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := values(t, c.in)
			for k, v := range c.want {
				if g, ok := got[k]; !ok && v != "" {
					t.Errorf("%s not advised, want %q", k, v)
				} else if g != v {
					t.Errorf("%s = %q, want %q", k, g, v)
				}
			}
		})
	}
}

// TestAdviseVersionGates: settings a version lacks are left out.
func TestAdviseVersionGates(t *testing.T) {
	got := values(t, Input{CPUs: 8, RAM: 8 * gib, Storage: SSD, Workload: Web, Version: 10})
	if _, ok := got["max_parallel_maintenance_workers"]; ok {
		t.Errorf("PostgreSQL 10 got max_parallel_maintenance_workers")
	}
	got = values(t, Input{CPUs: 8, RAM: 8 * gib, Storage: SSD, Workload: Web, Version: 9})
	if _, ok := got["max_parallel_workers"]; ok {
		t.Errorf("PostgreSQL 9.6 got max_parallel_workers")
	}
}

func TestRulesCarryTheNumbers(t *testing.T) {
	ss, err := Advise(Input{CPUs: 8, RAM: 24 * gib, Storage: SSD, Workload: OLTP, MaxConnections: 100, Version: 15})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"shared_buffers":                  "RAM/4 = 24GB/4 = 6GB",
		"effective_cache_size":            "3·RAM/4 = 3·24GB/4 = 18GB",
		"work_mem":                        "(24GB − 6GB)/((100 + 8)·3) = 58254kB",
		"max_parallel_workers_per_gather": "⌈CPUs/2⌉ = ⌈8/2⌉ = 4",
	}
	for _, s := range ss {
		if w, ok := want[s.Name]; ok && !strings.Contains(s.Rule, w) {
			t.Errorf("%s rule %q lacks %q", s.Name, s.Rule, w)
		}
	}
	ss, _ = Advise(Input{RAM: 8 * gib, Workload: Web})
	for _, s := range ss {
		if (strings.HasPrefix(s.Name, "max_parallel") || s.Name == "max_worker_processes") && (s.Value != "" || !strings.Contains(s.Rule, "--cpus")) {
			t.Errorf("unknown CPUs: %s = %q, rule %q; want not advised, with --cpus", s.Name, s.Value, s.Rule)
		}
	}
}

func TestAdviseRefuses(t *testing.T) {
	for _, in := range []Input{
		{RAM: 8 * gib, Workload: "batch"},
		{RAM: 1000, Workload: Web},
		{RAM: 8 * gib, Workload: Web, Storage: "nvme"},
	} {
		if _, err := Advise(in); err == nil {
			t.Errorf("Advise(%+v) accepted", in)
		}
	}
}

func TestKB(t *testing.T) {
	for kb, want := range map[int64]string{0: "0kB", 32: "32kB", 1024: "1MB", 1536: "1536kB", 1048576: "1GB", 1572864: "1536MB", 6170896: "6170896kB"} {
		if got := KB(kb); got != want {
			t.Errorf("KB(%d) = %q, want %q", kb, got, want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{"8GB": 8 * gib, "8 gib": 8 * gib, "512MB": 512 << 20, "1.5GB": 3 * gib / 2, "4096": 4096, "2TB": 2 << 40, "64kB": 64 << 10} {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "GB", "-1GB", "8 parsecs", "0"} {
		if _, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) accepted", s)
		}
	}
}

func TestParseWorkloadStorage(t *testing.T) {
	if w, err := ParseWorkload("OLTP"); err != nil || w != OLTP {
		t.Errorf("ParseWorkload(OLTP) = %q, %v", w, err)
	}
	if _, err := ParseWorkload("batch"); err == nil || !strings.Contains(err.Error(), "web, oltp, dw, desktop, mixed") {
		t.Errorf("ParseWorkload(batch): %v", err)
	}
	if s, err := ParseStorage("Hdd"); err != nil || s != HDD {
		t.Errorf("ParseStorage(Hdd) = %q, %v", s, err)
	}
}

// fakeSys makes a /sys tree where dir's device is a partition of disk
// name with the given rotational flag.
func fakeSys(t *testing.T, dir, name, rotational string) string {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	sys := t.TempDir()
	disk := filepath.Join(sys, "devices", "virtual", "block", name)
	part := filepath.Join(disk, name+"1")
	for _, d := range []string{filepath.Join(disk, "queue"), part, filepath.Join(sys, "dev", "block")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.WriteFile(filepath.Join(disk, "queue", "rotational"), []byte(rotational+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(part, "partition"), []byte("1\n"), 0o644))
	link := filepath.Join(sys, "dev", "block", fmt.Sprintf("%d:%d", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev))))
	must(t, os.Symlink(part, link))
	return sys
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestStorageOf(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		disk, flag string
		want       Storage
		src        string
	}{
		{"nvme0n1", "0", SSD, "/sys/block/nvme0n1/queue/rotational = 0"},
		{"sda", "1", HDD, "/sys/block/sda/queue/rotational = 1"},
		{"vda", "1", HDD, "a virtual disk"},
		{"sdb", "x", Unknown, "give --storage"},
	}
	for _, c := range cases {
		got, src := StorageOf(dir, fakeSys(t, dir, c.disk, c.flag))
		if got != c.want || !strings.Contains(src, c.src) {
			t.Errorf("%s rotational %s: %q, %q; want %q and %q", c.disk, c.flag, got, src, c.want, c.src)
		}
	}
	if got, src := StorageOf(dir, t.TempDir()); got != Unknown || !strings.Contains(src, "not a block device") {
		t.Errorf("no device: %q, %q", got, src)
	}
	if got, src := StorageOf(filepath.Join(dir, "missing"), "/sys"); got != Unknown || !strings.Contains(src, "cannot stat") {
		t.Errorf("missing directory: %q, %q", got, src)
	}
}
