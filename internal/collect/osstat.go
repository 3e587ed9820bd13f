package collect

// The OS collector (os.csv): what the server's machine did, one row per
// interval, in vmstat's and iostat -x's columns and units, from the local
// /proc (the server runs on this machine) or from a node_exporter on the
// server's machine (nodeexp.go). Both sources fill one model of raw
// counters (osCounters, in /proc's units), so one set of formulas computes
// every column whatever the source.
//
// Columns of os.csv, each for the interval (t_{k-1}, t_k] between two reads
// Δt seconds apart (the real time between the reads, not the period):
//
//	source             "proc" or "node_exporter"
//	r, b               gauges at the read: runnable tasks (procs_running,
//	                   which counts the reader itself, as vmstat's does) and
//	                   tasks blocked on I/O (procs_blocked)
//	swpd free buff cache  kB at the read: SwapTotal−SwapFree, MemFree,
//	                   Buffers, Cached+SReclaimable (vmstat's cache)
//	si, so             kB/s swapped in/out: Δpswpin·pagesize/1024/Δt
//	bi, bo             kB/s read from/written to block devices: Δpgpgin/Δt
//	                   (the kernel counts pgpgin/pgpgout in kB)
//	in, cs             interrupts and context switches per second
//	us sy id wa st     percent of all CPUs' time over the interval:
//	                   100·Δmode/D with D = Δ(user+nice+system+irq+softirq+
//	                   idle+iowait+steal); us = user+nice, sy = system+irq+
//	                   softirq. Guest time stays inside us (the kernel
//	                   counts it in user and nice, and so does node_exporter's
//	                   mode="user"); newer procps-ng vmstat moves it to a
//	                   separate gu column. A counter that ran backwards (idle
//	                   can) counts 0.
//	mem_available_kb, dirty_kb, writeback_kb  kB at the read
//	client_cpu         pgtrial's own CPU (user+system seconds per second of
//	                   real time, /proc/self/stat), always of this machine
//	disk_<name>_r_s, _w_s          reads, writes completed per second
//	disk_<name>_rkb_s, _wkb_s      kB/s: Δsectors·512/1024/Δt
//	disk_<name>_await_ms           Δ(read ms + write ms)/Δ(reads + writes),
//	                               0 without I/O (discards and flushes left out)
//	disk_<name>_aqu_sz             average queue: Δweighted ms/Δt ms
//	disk_<name>_util               percent of time busy: Δio ms/Δt ms·100,
//	                               at most 100
//
// Disks are whole block devices (partitions, loop, ram and zram devices
// left out; dm-* and md* kept), fixed at the first read: the header is
// written then, a disk that appears later is ignored, one that disappears
// leaves its columns empty. An empty value means "not measured" (a counter
// missing from this kernel or exporter, or reset).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"

	"github.com/pgtrial/pgtrial/internal/results"
)

// Values of os.csv's source column.
const (
	osSourceProc         = "proc"
	osSourceNodeExporter = "node_exporter"
)

// osCounters is one read of the machine, in /proc's units, so that both
// sources share the formulas. NaN means not available.
type osCounters struct {
	at time.Time // when read (the middle of the read), with the monotonic clock

	running, blocked float64 // tasks (gauges)

	// kB (gauges)
	memTotal, memFree, memAvailable, buffers, cached, sReclaimable float64
	swapTotal, swapFree, dirty, writeback                          float64

	pswpin, pswpout float64 // pages swapped in/out (counters)
	pgpgin, pgpgout float64 // kB paged in/out (counters)
	intr, ctxt      float64 // interrupts, context switches (counters)

	cpu cpuTimes // seconds, summed over all CPUs (counters)

	disks map[string]diskCounters // whole devices only

	// pgtrial's own user+system CPU seconds and when they were read (this
	// machine's clock, whatever the source).
	clientCPU float64
	clientAt  time.Time

	// missing names what this read could not provide (warned once each).
	missing []string
}

// cpuTimes are the CPU time counters of /proc/stat's cpu line in seconds.
type cpuTimes struct {
	user, nice, system, idle, iowait, irq, softirq, steal float64
}

// diskCounters are one device's /proc/diskstats counters in their units:
// I/Os, 512-byte sectors and milliseconds.
type diskCounters struct {
	reads, writes             float64 // completed
	readSectors, writeSectors float64
	readMs, writeMs           float64 // time spent by all reads, writes
	ioMs                      float64 // time with at least one I/O in flight
	weightedMs                float64 // Σ over time of I/Os in flight
}

// osReader is a source of osCounters: /proc or a node_exporter.
type osReader interface {
	read(ctx context.Context) (*osCounters, error)
	name() string // the source column
	close()
}

// osStats is the OS collector.
type osStats struct {
	cfg    *Config
	warn   warnFunc
	src    osReader
	pageKB float64 // page size in kB, for si/so
	self   *selfCPU

	prev   *osCounters        // the last successful read; nil before the first
	disks  []string           // fixed at the first read
	out    *results.CSVWriter // created at the first read
	warned map[string]bool
}

// newOSStats starts the OS collector: /proc when the server is local, else
// the node_exporter of cfg.NodeExporter. It reads the baseline at once, so
// the first row covers the first interval; when a node_exporter does not
// answer yet, the baseline is taken by the first sample that succeeds.
func newOSStats(ctx context.Context, cfg *Config, warn warnFunc) (*osStats, error) {
	o := &osStats{
		cfg:    cfg,
		warn:   warn,
		warned: map[string]bool{},
		self:   newSelfCPU(),
	}
	switch {
	case cfg.Local:
		pr, err := newProcReader()
		if err != nil {
			return nil, err
		}
		o.src = pr
		o.pageKB = float64(os.Getpagesize()) / 1024
	case cfg.NodeExporter != "":
		ne, err := newNodeExporter(cfg.NodeExporter, o.warnOnce)
		if err != nil {
			return nil, err
		}
		o.src = ne
		// node_exporter does not export the page size; 4 KiB is every
		// x86-64 and most arm64 kernels' (wrong for 16/64 KiB-page kernels).
		o.pageKB = 4
	default:
		return nil, errors.New("the server is not on this machine: OS metrics need a node_exporter on its machine (--node-exporter URL)")
	}
	if err := o.sample(ctx, time.Time{}); err != nil {
		if cfg.Local {
			o.src.close()
			return nil, err
		}
		warn("%s: %v", KindOS, err) // the orchestrator's wording: one warning for both
	}
	return o, nil
}

func (o *osStats) period() time.Duration { return o.cfg.Interval }

// sample reads the counters and writes the row of the interval since the
// previous successful read, ending at t. The first successful read is the
// baseline: it fixes the disks and writes the header, no row.
func (o *osStats) sample(ctx context.Context, t time.Time) error {
	cur, err := o.src.read(ctx)
	if err != nil {
		return err
	}
	cur.missing = append(cur.missing, o.self.read(cur)...)
	for _, m := range cur.missing {
		o.warnOnce("%s: %s", KindOS, m)
	}
	if o.out == nil {
		o.disks = osSortedKeys(cur.disks)
		out, err := results.CreateOS(o.cfg.Dir, o.disks)
		if err != nil {
			return err
		}
		o.out = out
		o.prev = cur
		return nil
	}
	prev := o.prev
	if !cur.at.After(prev.at) {
		return fmt.Errorf("read at %v, not after the previous read", cur.at)
	}
	o.prev = cur
	row := o.row(prev, cur, t)
	if err := o.out.Write(row.Record()); err != nil {
		return err
	}
	return o.out.Flush()
}

func (o *osStats) close() error {
	o.src.close()
	if o.out == nil {
		return nil
	}
	return o.out.Close()
}

// warnOnce warns the first time a text comes up (the orchestrator
// deduplicates too; this spares it the repeats every interval).
func (o *osStats) warnOnce(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if o.warned[msg] {
		return
	}
	o.warned[msg] = true
	o.warn("%s", msg)
}

// row computes the interval (prev, cur] ending on the grid at t.
func (o *osStats) row(prev, cur *osCounters, t time.Time) OSRow {
	dt := cur.at.Sub(prev.at).Seconds()
	rate := func(p, c float64) float64 { return osCounterDelta(p, c) / dt }
	r := OSRow{
		Time:     t,
		ElapsedS: t.Sub(o.cfg.RunStart).Seconds(),
		Source:   o.src.name(),
		R:        cur.running,
		B:        cur.blocked,
		Swpd:     cur.swapTotal - cur.swapFree,
		Free:     cur.memFree,
		Buff:     cur.buffers,
		Cache:    cur.cached + osZeroIfNaN(cur.sReclaimable),
		SI:       rate(prev.pswpin, cur.pswpin) * o.pageKB,
		SO:       rate(prev.pswpout, cur.pswpout) * o.pageKB,
		BI:       rate(prev.pgpgin, cur.pgpgin),
		BO:       rate(prev.pgpgout, cur.pgpgout),
		In:       rate(prev.intr, cur.intr),
		CS:       rate(prev.ctxt, cur.ctxt),

		MemAvailableKB: cur.memAvailable,
		DirtyKB:        cur.dirty,
		WritebackKB:    cur.writeback,
		ClientCPU:      cur.clientCPURate(prev),
	}
	r.US, r.SY, r.ID, r.WA, r.ST = cpuPercents(prev.cpu, cur.cpu)
	for _, name := range o.disks {
		d := DiskRow{Name: name}
		p, okp := prev.disks[name]
		c, okc := cur.disks[name]
		if okp && okc {
			d = diskRates(name, p, c, dt)
		} else {
			d.ReadsPerS, d.WritesPerS, d.ReadKBPerS, d.WriteKBPerS = math.NaN(), math.NaN(), math.NaN(), math.NaN()
			d.AwaitMs, d.AquSz, d.Util = math.NaN(), math.NaN(), math.NaN()
		}
		r.Disks = append(r.Disks, d)
	}
	return r
}

// cpuPercents are vmstat's us sy id wa st over the interval: 100·Δ/D with
// D the sum of the eight modes' deltas (NaN when D is 0: no tick passed).
func cpuPercents(p, c cpuTimes) (us, sy, id, wa, st float64) {
	d := func(a, b float64) float64 { return max(b-a, 0) } // idle can run backwards
	user := d(p.user, c.user) + d(p.nice, c.nice)
	sys := d(p.system, c.system) + d(p.irq, c.irq) + d(p.softirq, c.softirq)
	idle := d(p.idle, c.idle)
	iow := d(p.iowait, c.iowait)
	steal := d(p.steal, c.steal)
	total := user + sys + idle + iow + steal
	if !(total > 0) {
		nan := math.NaN()
		return nan, nan, nan, nan, nan
	}
	return 100 * user / total, 100 * sys / total, 100 * idle / total, 100 * iow / total, 100 * steal / total
}

// diskRates computes iostat -x's columns from two reads dt seconds apart.
func diskRates(name string, p, c diskCounters, dt float64) DiskRow {
	reads := diskDelta(p.reads, c.reads)
	writes := diskDelta(p.writes, c.writes)
	ticks := diskDelta(p.readMs, c.readMs) + diskDelta(p.writeMs, c.writeMs)
	await := 0.0
	if ios := reads + writes; ios > 0 {
		await = ticks / ios
	} else if math.IsNaN(ios) {
		await = math.NaN()
	}
	return DiskRow{
		Name:        name,
		ReadsPerS:   reads / dt,
		WritesPerS:  writes / dt,
		ReadKBPerS:  diskDelta(p.readSectors, c.readSectors) / 2 / dt,
		WriteKBPerS: diskDelta(p.writeSectors, c.writeSectors) / 2 / dt,
		AwaitMs:     await,
		AquSz:       diskDelta(p.weightedMs, c.weightedMs) / (dt * 1000),
		// Timing jitter between the kernel's tick and our clock can push a
		// saturated device a little over 100 %.
		Util: min(diskDelta(p.ioMs, c.ioMs)/(dt*1000)*100, 100),
	}
}

// osCounterDelta is c − p for a 64-bit counter; NaN when it went backwards
// (a reset: the interval's value is unknown).
func osCounterDelta(p, c float64) float64 {
	if c < p {
		return math.NaN()
	}
	return c - p
}

// diskDelta is c − p for a /proc/diskstats counter, which is an unsigned
// long: 32 bits on 32-bit kernels, so a smaller value after one below 2³²
// is a wrap (+2³²); after a larger one it is a reset (NaN).
func diskDelta(p, c float64) float64 {
	if c >= p {
		return c - p
	}
	if p < 1<<32 {
		return c + 1<<32 - p
	}
	return math.NaN()
}

func osZeroIfNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func osSortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// osEvidence summarises os.csv over the window (from, to]: the CPU shares
// (means of us sy id wa st over the rows, /100), the disk with the highest
// mean util (means of its columns; util as 0..1) and pgtrial's mean CPU. A
// value missing in a row leaves that row out of that mean.
func osEvidence(dir string, from, to time.Time, interval time.Duration, ev *results.Evidence) error {
	rows, err := results.ReadOS(dir)
	if err != nil {
		return err
	}
	var in []OSRow
	for _, r := range rows {
		if inWindow(r.Time, from, to, interval) {
			in = append(in, r)
		}
	}
	if len(in) == 0 {
		return nil
	}
	mean := func(f func(*OSRow) float64) (float64, bool) {
		var s float64
		n := 0
		for i := range in {
			if v := f(&in[i]); !math.IsNaN(v) {
				s += v
				n++
			}
		}
		if n == 0 {
			return math.NaN(), false
		}
		return s / float64(n), true
	}
	if us, ok := mean(func(r *OSRow) float64 { return r.US }); ok {
		sy, _ := mean(func(r *OSRow) float64 { return r.SY })
		id, _ := mean(func(r *OSRow) float64 { return r.ID })
		wa, _ := mean(func(r *OSRow) float64 { return r.WA })
		st, _ := mean(func(r *OSRow) float64 { return r.ST })
		ev.CPU = &results.CPUShare{User: us / 100, System: sy / 100, Idle: id / 100, IOWait: wa / 100, Steal: st / 100}
	}
	if c, ok := mean(func(r *OSRow) float64 { return r.ClientCPU }); ok {
		ev.ClientCPU = c
	}
	// The disks are the same in every row (the file's columns).
	bestUtil := -1.0
	for k, d := range in[0].Disks {
		col := func(f func(*DiskRow) float64) float64 {
			v, _ := mean(func(r *OSRow) float64 { return f(&r.Disks[k]) })
			return v
		}
		util := col(func(d *DiskRow) float64 { return d.Util })
		if math.IsNaN(util) || util <= bestUtil {
			continue
		}
		bestUtil = util
		ev.BusiestDisk = &results.DiskStats{
			Name:        d.Name,
			ReadsPerS:   col(func(d *DiskRow) float64 { return d.ReadsPerS }),
			WritesPerS:  col(func(d *DiskRow) float64 { return d.WritesPerS }),
			ReadKBPerS:  col(func(d *DiskRow) float64 { return d.ReadKBPerS }),
			WriteKBPerS: col(func(d *DiskRow) float64 { return d.WriteKBPerS }),
			AwaitMs:     osZeroIfNaN(col(func(d *DiskRow) float64 { return d.AwaitMs })),
			QueueSize:   osZeroIfNaN(col(func(d *DiskRow) float64 { return d.AquSz })),
			Util:        util / 100,
		}
	}
	return nil
}

// readHost describes the server's machine: this one when local; else what
// the node_exporter reports (CPUs = distinct cpu labels, MemTotal, the
// kernel from node_uname_info); else only that it is not local. What could
// not be read is left zero and named in the error.
func readHost(ctx context.Context, local bool, nodeExporter string) (*results.Host, error) {
	if !local {
		if nodeExporter == "" {
			return &results.Host{Local: false}, nil
		}
		return nodeExporterHost(ctx, nodeExporter)
	}
	h := &results.Host{Local: true, CPUs: runtime.NumCPU()}
	var errs []error
	name, err := os.Hostname()
	if err != nil {
		errs = append(errs, fmt.Errorf("hostname: %w", err))
	}
	h.Hostname = name
	fs, err := procfs.NewFS(procfs.DefaultMountPoint)
	if err != nil {
		return h, errors.Join(append(errs, fmt.Errorf("read /proc: %w", err))...)
	}
	// Online CPUs: /proc/stat has one cpuN line per online CPU (as
	// node_exporter counts them); runtime.NumCPU is only this process's
	// affinity mask.
	if st, err := fs.Stat(); err != nil {
		errs = append(errs, fmt.Errorf("read /proc/stat: %w", err))
	} else if len(st.CPU) > 0 {
		h.CPUs = len(st.CPU)
	}
	if mi, err := fs.Meminfo(); err != nil {
		errs = append(errs, fmt.Errorf("read /proc/meminfo: %w", err))
	} else if mi.MemTotal != nil {
		h.MemoryBytes = int64(*mi.MemTotal) * 1024
	}
	if rel, err := os.ReadFile(filepath.Join(procfs.DefaultMountPoint, "sys/kernel/osrelease")); err != nil {
		errs = append(errs, fmt.Errorf("kernel release: %w", err))
	} else {
		h.Kernel = strings.TrimSpace(string(rel))
	}
	return h, errors.Join(errs...)
}

// procReader reads the local /proc (and /sys to tell partitions apart).
type procReader struct {
	proc  string // mount points
	sys   string
	fs    procfs.FS
	block blockdevice.FS
}

func newProcReader() (*procReader, error) {
	p := &procReader{proc: procfs.DefaultMountPoint, sys: "/sys"}
	var err error
	if p.fs, err = procfs.NewFS(p.proc); err != nil {
		return nil, fmt.Errorf("read /proc: %w", err)
	}
	if p.block, err = blockdevice.NewFS(p.proc, p.sys); err != nil {
		return nil, fmt.Errorf("read /proc: %w", err)
	}
	return p, nil
}

func (p *procReader) name() string { return osSourceProc }
func (p *procReader) close()       {}

// read takes /proc/stat, /proc/meminfo, /proc/vmstat and /proc/diskstats
// (a fraction of a millisecond; timed at the middle).
func (p *procReader) read(ctx context.Context) (*osCounters, error) {
	start := time.Now()
	st, err := p.fs.Stat()
	if err != nil {
		return nil, fmt.Errorf("read /proc/stat: %w", err)
	}
	mi, err := p.fs.Meminfo()
	if err != nil {
		return nil, fmt.Errorf("read /proc/meminfo: %w", err)
	}
	vm, err := p.vmstat()
	if err != nil {
		return nil, err
	}
	ds, err := p.block.ProcDiskstats()
	if err != nil {
		return nil, fmt.Errorf("read /proc/diskstats: %w", err)
	}
	end := time.Now()

	c := &osCounters{
		at:      start.Add(end.Sub(start) / 2),
		running: float64(st.ProcessesRunning),
		blocked: float64(st.ProcessesBlocked),
		intr:    float64(st.IRQTotal),
		ctxt:    float64(st.ContextSwitches),
		cpu: cpuTimes{
			user: st.CPUTotal.User, nice: st.CPUTotal.Nice, system: st.CPUTotal.System,
			idle: st.CPUTotal.Idle, iowait: st.CPUTotal.Iowait, irq: st.CPUTotal.IRQ,
			softirq: st.CPUTotal.SoftIRQ, steal: st.CPUTotal.Steal,
		},
		disks: map[string]diskCounters{},
	}
	kb := func(v *uint64, name string) float64 {
		if v == nil {
			c.missing = append(c.missing, "/proc/meminfo has no "+name)
			return math.NaN()
		}
		return float64(*v)
	}
	c.memTotal = kb(mi.MemTotal, "MemTotal")
	c.memFree = kb(mi.MemFree, "MemFree")
	c.memAvailable = kb(mi.MemAvailable, "MemAvailable")
	c.buffers = kb(mi.Buffers, "Buffers")
	c.cached = kb(mi.Cached, "Cached")
	c.sReclaimable = kb(mi.SReclaimable, "SReclaimable")
	c.swapTotal = kb(mi.SwapTotal, "SwapTotal")
	c.swapFree = kb(mi.SwapFree, "SwapFree")
	c.dirty = kb(mi.Dirty, "Dirty")
	c.writeback = kb(mi.Writeback, "Writeback")
	field := func(name string) float64 {
		v, ok := vm[name]
		if !ok {
			c.missing = append(c.missing, "/proc/vmstat has no "+name)
			return math.NaN()
		}
		return v
	}
	c.pswpin, c.pswpout = field("pswpin"), field("pswpout")
	c.pgpgin, c.pgpgout = field("pgpgin"), field("pgpgout")
	for _, d := range ds {
		if !p.wholeDisk(d.DeviceName) {
			continue
		}
		c.disks[d.DeviceName] = diskCounters{
			reads: float64(d.ReadIOs), writes: float64(d.WriteIOs),
			readSectors: float64(d.ReadSectors), writeSectors: float64(d.WriteSectors),
			readMs: float64(d.ReadTicks), writeMs: float64(d.WriteTicks),
			ioMs: float64(d.IOsTotalTicks), weightedMs: float64(d.WeightedIOTicks),
		}
	}
	return c, nil
}

// vmstat reads the counters of /proc/vmstat the collector uses.
func (p *procReader) vmstat() (map[string]float64, error) {
	data, err := os.ReadFile(filepath.Join(p.proc, "vmstat"))
	if err != nil {
		return nil, fmt.Errorf("read /proc/vmstat: %w", err)
	}
	m := map[string]float64{}
	for line := range strings.Lines(string(data)) {
		name, val, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		switch name {
		case "pswpin", "pswpout", "pgpgin", "pgpgout":
			v, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("read /proc/vmstat: %s: %w", name, err)
			}
			m[name] = float64(v)
		}
	}
	return m, nil
}

// wholeDisk says whether a /proc/diskstats device is a whole disk: not a
// loop, ram or zram device, and not a partition (sysfs marks partitions
// with a "partition" file; without sysfs, by name).
func (p *procReader) wholeDisk(name string) bool {
	if !diskNameKept(name) {
		return false
	}
	dev := filepath.Join(p.sys, "class", "block", strings.ReplaceAll(name, "/", "!"))
	if _, err := os.Stat(dev); err != nil {
		return true // no sysfs entry: the name rule decided
	}
	_, err := os.Stat(filepath.Join(dev, "partition"))
	return err != nil
}

// diskNameKept applies the rule both sources share (node_exporter reports
// names only): leave out loop, ram, zram and floppy devices and the usual
// partition names (sda1, vdb2, xvda1, nvme0n1p1, mmcblk0p1, md0p1).
func diskNameKept(name string) bool {
	base := strings.TrimRight(name, "0123456789")
	if base == name || base == "" {
		return true // no trailing number: sda, vda, sr… are whole
	}
	switch base {
	case "loop", "ram", "zram", "fd":
		return false
	}
	// nvme0n1p1, mmcblk0p1: "p" after a digit, then the partition number.
	if n := len(base); n >= 2 && base[n-1] == 'p' && base[n-2] >= '0' && base[n-2] <= '9' {
		return false
	}
	// sda1, hdb2, vdc3, xvda1: [hsv]d or xvd, letters, then the number.
	for _, prefix := range []string{"sd", "hd", "vd", "xvd"} {
		if rest, ok := strings.CutPrefix(base, prefix); ok && rest != "" && strings.Trim(rest, "abcdefghijklmnopqrstuvwxyz") == "" {
			return false
		}
	}
	return true
}

// selfCPU reads pgtrial's own CPU time from /proc/self/stat (always this
// machine, whatever the OS source).
type selfCPU struct {
	proc procfs.Proc
	err  error
}

func newSelfCPU() *selfCPU {
	p, err := procfs.Self()
	return &selfCPU{proc: p, err: err}
}

// read stores the process's user+system seconds and the time of the read
// into c; it returns what it could not read.
func (s *selfCPU) read(c *osCounters) []string {
	c.clientCPU, c.clientAt = math.NaN(), time.Now()
	if s.err != nil {
		return []string{fmt.Sprintf("client_cpu not measured: %v", s.err)}
	}
	st, err := s.proc.Stat()
	if err != nil {
		return []string{fmt.Sprintf("client_cpu not measured: %v", err)}
	}
	c.clientCPU = st.CPUTime()
	return nil
}

// clientCPURate is pgtrial's CPU seconds per second since prev.
func (c *osCounters) clientCPURate(prev *osCounters) float64 {
	dt := c.clientAt.Sub(prev.clientAt).Seconds()
	if !(dt > 0) {
		return math.NaN()
	}
	return osCounterDelta(prev.clientCPU, c.clientCPU) / dt
}
