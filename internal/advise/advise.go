// Package advise computes server settings from the hardware and a workload
// type the way pgtune does (https://pgtune.leopard.in.ua, le0pard/pgtune,
// src/features/configuration/configurationSlice.js at commit 7d204bd), each
// with its rule in words, so that `pgtrial advise` can write an experiment
// that tests the advice against the current settings.
//
// The rules are pure functions of Input. pgtune works in kB of RAM
// (RAM bytes / 1024) and rounds down at each step; so does this package,
// and it formats memory the way pgtune prints it: GB when the kB are a
// whole number of GB, else MB when a whole number of MB, else kB
// (PostgreSQL's unit syntax, 1 kB = 1024 bytes).
//
// pgtune's rules for Windows (shared_buffers ≤ 512MB before PostgreSQL 10,
// maintenance_work_mem < 2GB, no effective_io_concurrency) and its desktop
// wal_level = minimal are left out: pgtrial advises a Linux server, and a
// setting that turns replication off is not a tuning to measure.
// max_connections is the server's, not pgtune's default for the workload
// (used only when the server's is unknown): the advice keeps it.
package advise

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Workload is pgtune's "DB type".
type Workload string

// pgtune's DB types.
const (
	Web     Workload = "web"     // web application
	OLTP    Workload = "oltp"    // online transaction processing
	DW      Workload = "dw"      // data warehouse
	Desktop Workload = "desktop" // a developer's machine
	Mixed   Workload = "mixed"   // mixed type of application
)

// Workloads are the workload types in pgtune's order.
var Workloads = []Workload{Web, OLTP, DW, Desktop, Mixed}

// ParseWorkload reads a workload type (case-insensitive).
func ParseWorkload(s string) (Workload, error) {
	for _, w := range Workloads {
		if strings.EqualFold(s, string(w)) {
			return w, nil
		}
	}
	return "", fmt.Errorf("unknown workload type %q: use one of web, oltp, dw, desktop, mixed (pgtune's DB types)", s)
}

// Storage is the data's storage type, pgtune's "data storage".
type Storage string

// The storage types.
const (
	SSD     Storage = "ssd"
	HDD     Storage = "hdd"
	SAN     Storage = "san"
	Unknown Storage = "unknown" // not told: the storage rules are not applied
)

// ParseStorage reads a storage type (case-insensitive).
func ParseStorage(s string) (Storage, error) {
	for _, st := range []Storage{SSD, HDD, SAN, Unknown} {
		if strings.EqualFold(s, string(st)) {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown storage type %q: use ssd, hdd or san", s)
}

// Input is what the rules need to know about the server.
type Input struct {
	CPUs           int      // CPUs of the server's machine (0: unknown, no parallel settings)
	RAM            int64    // bytes of memory of the server's machine
	Storage        Storage  // "" counts as Unknown
	Workload       Workload // pgtune's DB type
	MaxConnections int      // the server's max_connections (0: pgtune's default for the workload)
	Version        int      // PostgreSQL major version (0: taken as current, ≥ 11)
}

// Setting is one advised setting.
type Setting struct {
	Name string
	// Value in PostgreSQL's syntax ("6GB", "0.9", "try"); "" when the rule
	// advises nothing for this input (Rule says why): leave it as it is.
	Value string
	// Rule is pgtune's rule in one sentence, with this input's numbers.
	Rule string
}

// Units of memory in kB, as pgtune's SIZE_UNIT_MAP / 1024.
const (
	kBPerMB = 1024
	kBPerGB = 1024 * 1024
)

// pgtune's defaults when the server's max_connections is unknown
// (selectMaxConnections).
var defaultConnections = map[Workload]int{Web: 200, OLTP: 300, DW: 40, Desktop: 20, Mixed: 100}

// Advise applies pgtune's rules to in, in pgtune's order of output (with
// huge_pages after work_mem).
func Advise(in Input) ([]Setting, error) {
	if _, err := ParseWorkload(string(in.Workload)); err != nil {
		return nil, err
	}
	if in.RAM < 1024*1024 {
		return nil, fmt.Errorf("advise: RAM %d bytes is less than 1 MB: give the server's memory (--ram 8GB)", in.RAM)
	}
	if in.Storage == "" {
		in.Storage = Unknown
	}
	if _, err := ParseStorage(string(in.Storage)); err != nil {
		return nil, err
	}
	if in.Version == 0 {
		in.Version = 17
	}
	ramKB := in.RAM / 1024 // pgtune: totalMemoryKb
	w := in.Workload
	sb := sharedBuffersKB(ramKB, w)
	conns, connsWhy := in.MaxConnections, "the server's max_connections"
	if conns <= 0 {
		conns, connsWhy = defaultConnections[w], "pgtune's max_connections for "+string(w)
	}
	out := []Setting{
		sharedBuffers(ramKB, w, sb),
		effectiveCacheSize(ramKB, w),
		maintenanceWorkMem(ramKB, w),
		{Name: "checkpoint_completion_target", Value: "0.9",
			Rule: "0.9 for every workload (PostgreSQL 14's default, commit bbcc4eb2): spread a checkpoint's writes over 90 % of its interval"},
		walBuffers(sb),
		defaultStatisticsTarget(w),
		randomPageCost(in.Storage),
		effectiveIOConcurrency(in.Storage),
		workMem(ramKB, sb, conns, connsWhy, in.CPUs, w),
		hugePages(ramKB),
	}
	out = append(out, walSizes(w)...)
	out = append(out, parallel(in.CPUs, in.Version, w)...)
	return out, nil
}

// sharedBuffersKB is pgtune's selectSharedBuffers (Linux): RAM/4, desktop RAM/16.
func sharedBuffersKB(ramKB int64, w Workload) int64 {
	if w == Desktop {
		return ramKB / 16
	}
	return ramKB / 4
}

func sharedBuffers(ramKB int64, w Workload, sb int64) Setting {
	if w == Desktop {
		return Setting{Name: "shared_buffers", Value: KB(sb),
			Rule: fmt.Sprintf("RAM/16 = %s/16 = %s (desktop; the others RAM/4)", KB(ramKB), KB(sb))}
	}
	return Setting{Name: "shared_buffers", Value: KB(sb),
		Rule: fmt.Sprintf("RAM/4 = %s/4 = %s (web, oltp, dw, mixed; desktop RAM/16)", KB(ramKB), KB(sb))}
}

// effectiveCacheSize is pgtune's selectEffectiveCacheSize: 3·RAM/4, desktop RAM/4.
func effectiveCacheSize(ramKB int64, w Workload) Setting {
	if w == Desktop {
		v := ramKB / 4
		return Setting{Name: "effective_cache_size", Value: KB(v),
			Rule: fmt.Sprintf("RAM/4 = %s/4 = %s (desktop; the others 3·RAM/4)", KB(ramKB), KB(v))}
	}
	v := ramKB * 3 / 4
	return Setting{Name: "effective_cache_size", Value: KB(v),
		Rule: fmt.Sprintf("3·RAM/4 = 3·%s/4 = %s (web, oltp, dw, mixed; desktop RAM/4)", KB(ramKB), KB(v))}
}

// maintenanceWorkMem is pgtune's selectMaintenanceWorkMem (Linux): RAM/16,
// dw RAM/8, at most 2GB.
func maintenanceWorkMem(ramKB int64, w Workload) Setting {
	div, which := int64(16), "web, oltp, desktop, mixed; dw RAM/8"
	if w == DW {
		div, which = 8, "dw; the others RAM/16"
	}
	v := ramKB / div
	rule := fmt.Sprintf("RAM/%d = %s/%d = %s (%s), at most 2GB", div, KB(ramKB), div, KB(v), which)
	if limit := int64(2 * kBPerGB); v >= limit {
		v = limit
		rule = fmt.Sprintf("RAM/%d = %s/%d, capped at 2GB (%s)", div, KB(ramKB), div, which)
	}
	return Setting{Name: "maintenance_work_mem", Value: KB(v), Rule: rule}
}

// walBuffers is pgtune's selectWalBuffers, PostgreSQL's own auto-tuning
// (wal_buffers = -1): 3 % of shared_buffers, at most 16MB, rounded up to
// 16MB above 14MB, at least 32kB.
func walBuffers(sb int64) Setting {
	v := 3 * sb / 100
	rule := fmt.Sprintf("3 %% of shared_buffers = 3·%s/100 = %s, at most 16MB", KB(sb), KB(v))
	const maxKB, nearKB = 16 * kBPerMB, 14 * kBPerMB
	switch {
	case v > maxKB:
		v = maxKB
		rule = fmt.Sprintf("3 %% of shared_buffers (%s) is more than the 16MB cap", KB(sb))
	case v > nearKB && v < maxKB:
		v = maxKB
		rule = fmt.Sprintf("3 %% of shared_buffers = 3·%s/100, between 14MB and 16MB: rounded up to 16MB", KB(sb))
	case v < 32:
		v = 32
		rule = fmt.Sprintf("3 %% of shared_buffers = 3·%s/100, less than 32kB: raised to 32kB", KB(sb))
	}
	return Setting{Name: "wal_buffers", Value: KB(v), Rule: rule}
}

// defaultStatisticsTarget is pgtune's: 100, dw 500.
func defaultStatisticsTarget(w Workload) Setting {
	if w == DW {
		return Setting{Name: "default_statistics_target", Value: "500", Rule: "500 for dw (the others 100, PostgreSQL's default): finer statistics for large analytical queries"}
	}
	return Setting{Name: "default_statistics_target", Value: "100", Rule: "100 for " + string(w) + " (PostgreSQL's default; dw 500)"}
}

// randomPageCost is pgtune's selectRandomPageCost: hdd 4, ssd and san 1.1.
func randomPageCost(s Storage) Setting {
	switch s {
	case HDD:
		return Setting{Name: "random_page_cost", Value: "4", Rule: "4 for hdd (PostgreSQL's default; ssd and san 1.1): a random read costs 4 sequential ones"}
	case SSD, SAN:
		return Setting{Name: "random_page_cost", Value: "1.1", Rule: "1.1 for " + string(s) + " (hdd 4): a random read costs about a sequential one"}
	}
	return Setting{Name: "random_page_cost", Rule: "storage type unknown: hdd 4, ssd and san 1.1 (give --storage)"}
}

// effectiveIOConcurrency is pgtune's selectEffectiveIoConcurrency (Linux):
// hdd 2, ssd 200, san 300.
func effectiveIOConcurrency(s Storage) Setting {
	v := map[Storage]string{HDD: "2", SSD: "200", SAN: "300"}[s]
	if v == "" {
		return Setting{Name: "effective_io_concurrency", Rule: "storage type unknown: hdd 2, ssd 200, san 300 (give --storage)"}
	}
	return Setting{Name: "effective_io_concurrency", Value: v, Rule: v + " for " + string(s) + " (hdd 2, ssd 200, san 300): concurrent prefetch requests of a bitmap heap scan"}
}

// workMem is pgtune's selectWorkMem: (RAM − shared_buffers) /
// ((max_connections + workers)·3), where workers is max_worker_processes as
// advised (CPUs, from 4 CPUs) else PostgreSQL's default 8; web and oltp
// take it whole, dw and mixed half, desktop a sixth; at least 64kB.
// pgtune divides in floating point (JavaScript) and rounds down at the end,
// as here.
func workMem(ramKB, sb int64, conns int, connsWhy string, cpus int, w Workload) Setting {
	workers, workersWhy := 8, "max_worker_processes' default 8"
	if cpus >= 4 {
		workers, workersWhy = cpus, "max_worker_processes as advised"
	}
	base := float64(ramKB-sb) / float64((conns+workers)*3)
	rule := fmt.Sprintf("(RAM − shared_buffers)/((connections + workers)·3) = (%s − %s)/((%d + %d)·3) = %s",
		KB(ramKB), KB(sb), conns, workers, KB(int64(math.Floor(base))))
	div := map[Workload]int{Web: 1, OLTP: 1, DW: 2, Desktop: 6, Mixed: 2}[w]
	v := int64(math.Floor(base / float64(div)))
	if div > 1 {
		rule += fmt.Sprintf(", /%d for %s = %s", div, w, KB(v))
	}
	rule += fmt.Sprintf(" (%d connections: %s; %d workers: %s)", conns, connsWhy, workers, workersWhy)
	if v < 64 {
		v = 64
		rule += "; at least 64kB"
	}
	return Setting{Name: "work_mem", Value: KB(v), Rule: rule}
}

// hugePages is pgtune's selectHugePages: try from 32GB of RAM, else off.
func hugePages(ramKB int64) Setting {
	if ramKB >= 32*kBPerGB {
		return Setting{Name: "huge_pages", Value: "try", Rule: fmt.Sprintf("try, since RAM %s ≥ 32GB (below, off)", KB(ramKB))}
	}
	return Setting{Name: "huge_pages", Value: "off", Rule: fmt.Sprintf("off, since RAM %s < 32GB (from 32GB, try)", KB(ramKB))}
}

// walSizes is pgtune's selectCheckpointSegments: min_wal_size and
// max_wal_size by workload.
func walSizes(w Workload) []Setting {
	sizes := map[Workload][2]int64{ // MB
		Web: {1024, 4096}, OLTP: {2048, 8192}, DW: {4096, 16384}, Desktop: {100, 2048}, Mixed: {1024, 4096},
	}[w]
	all := "web 1GB/4GB, oltp 2GB/8GB, dw 4GB/16GB, desktop 100MB/2GB, mixed 1GB/4GB"
	return []Setting{
		{Name: "min_wal_size", Value: KB(sizes[0] * kBPerMB), Rule: fmt.Sprintf("%s for %s (min/max by workload: %s)", KB(sizes[0]*kBPerMB), w, all)},
		{Name: "max_wal_size", Value: KB(sizes[1] * kBPerMB), Rule: fmt.Sprintf("%s for %s: WAL between checkpoints before one is forced (%s)", KB(sizes[1]*kBPerMB), w, all)},
	}
}

// parallel is pgtune's selectParallelSettings: nothing below 4 CPUs;
// max_worker_processes = CPUs; max_parallel_workers_per_gather = ⌈CPUs/2⌉,
// at most 4 except for dw; max_parallel_workers = CPUs (PostgreSQL ≥ 10);
// max_parallel_maintenance_workers = ⌈CPUs/2⌉, at most 4 (≥ 11).
func parallel(cpus, version int, w Workload) []Setting {
	names := []string{"max_worker_processes", "max_parallel_workers_per_gather", "max_parallel_workers", "max_parallel_maintenance_workers"}
	if cpus < 4 {
		why := fmt.Sprintf("not advised below 4 CPUs (%d)", cpus)
		if cpus <= 0 {
			why = "not advised: the number of CPUs is unknown (give --cpus)"
		}
		out := make([]Setting, len(names))
		for i, n := range names {
			out[i] = Setting{Name: n, Rule: why}
		}
		return out
	}
	half := (cpus + 1) / 2
	gather, gatherRule := half, fmt.Sprintf("⌈CPUs/2⌉ = ⌈%d/2⌉ = %d", cpus, half)
	if w != DW && gather > 4 {
		gather, gatherRule = 4, fmt.Sprintf("⌈CPUs/2⌉ = ⌈%d/2⌉ = %d, at most 4 (except dw)", cpus, half)
	} else if w != DW {
		gatherRule += ", at most 4 (except dw)"
	} else {
		gatherRule += " (dw: no cap)"
	}
	out := []Setting{
		{Name: names[0], Value: strconv.Itoa(cpus), Rule: fmt.Sprintf("CPUs = %d", cpus)},
		{Name: names[1], Value: strconv.Itoa(gather), Rule: gatherRule},
	}
	if version >= 10 {
		out = append(out, Setting{Name: names[2], Value: strconv.Itoa(cpus), Rule: fmt.Sprintf("CPUs = %d (PostgreSQL ≥ 10)", cpus)})
	}
	if version >= 11 {
		maint := min(half, 4)
		out = append(out, Setting{Name: names[3], Value: strconv.Itoa(maint), Rule: fmt.Sprintf("⌈CPUs/2⌉ = ⌈%d/2⌉ = %d, at most 4 (PostgreSQL ≥ 11)", cpus, half)})
	}
	return out
}

// KB formats kB as pgtune does (formatValue): GB when a whole number of
// GB, else MB when a whole number of MB, else kB.
func KB(kb int64) string {
	switch {
	case kb != 0 && kb%kBPerGB == 0:
		return strconv.FormatInt(kb/kBPerGB, 10) + "GB"
	case kb != 0 && kb%kBPerMB == 0:
		return strconv.FormatInt(kb/kBPerMB, 10) + "MB"
	}
	return strconv.FormatInt(kb, 10) + "kB"
}

// ParseBytes reads a memory size: a number with kB, MB, GB or TB (1024-based,
// as PostgreSQL and pgtune count; KiB, MiB, GiB, TiB too), or plain bytes.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("memory size %q: want a positive number with a unit, such as 8GB or 512MB", s)
	}
	mult := map[string]float64{"": 1, "b": 1, "kb": 1 << 10, "kib": 1 << 10, "k": 1 << 10, "mb": 1 << 20, "mib": 1 << 20, "m": 1 << 20,
		"gb": 1 << 30, "gib": 1 << 30, "g": 1 << 30, "tb": 1 << 40, "tib": 1 << 40, "t": 1 << 40}
	m, ok := mult[unit]
	if !ok {
		return 0, fmt.Errorf("memory size %q: unknown unit %q (use kB, MB, GB or TB)", s, t[i:])
	}
	if f*m > math.MaxInt64/2 {
		return 0, fmt.Errorf("memory size %q is too large", s)
	}
	return int64(f * m), nil
}
