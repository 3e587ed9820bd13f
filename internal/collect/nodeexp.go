package collect

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/pgtrial/pgtrial/internal/results"
)

// nodeExporterTimeout bounds one scrape (the collector samples every
// second by default: a node_exporter that does not answer in 2 s makes the
// sample fail with a warning, and the next tick tries again).
const nodeExporterTimeout = 2 * time.Second

// nodeExporterCollectors are the node_exporter collectors the OS columns
// and the host information come from. Asking only for them (collect[]
// parameters) spares the measured machine the work of the other collectors
// (filesystems, network, …) every second.
const nodeExporterCollectors = "cpu,diskstats,meminfo,stat,vmstat,uname"

// nodeExporterMaxBody bounds a scrape's size (a full node_exporter page is
// 50–500 kB; the filtered one a few tens of kB).
const nodeExporterMaxBody = 32 << 20

// nodeExporter scrapes a node_exporter's /metrics page.
type nodeExporter struct {
	display  string // the URL for messages (password removed)
	plain    string // the URL as given, normalised
	filtered string // plain with the collect[] filter; "" when not used
	client   *http.Client
	warn     warnFunc
}

// nodeExporterURL normalises a --node-exporter value: "host:port" gets
// http:// and a bare host gets /metrics.
func nodeExporterURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("node_exporter URL is empty")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("node_exporter URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("node_exporter URL %s: want http:// or https://", u.Redacted())
	}
	if u.Host == "" {
		return nil, fmt.Errorf("node_exporter URL %s: no host", u.Redacted())
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/metrics"
	}
	return u, nil
}

// newNodeExporter prepares scrapes of raw (see nodeExporterURL); warn (may
// be nil) hears that the exporter refused the collector filter.
func newNodeExporter(raw string, warn warnFunc) (*nodeExporter, error) {
	u, err := nodeExporterURL(raw)
	if err != nil {
		return nil, err
	}
	if warn == nil {
		warn = func(string, ...any) {}
	}
	n := &nodeExporter{
		display: u.Redacted(),
		plain:   u.String(),
		warn:    warn,
		client: &http.Client{
			Timeout:   nodeExporterTimeout,
			Transport: http.DefaultTransport.(*http.Transport).Clone(),
		},
	}
	if q := u.Query(); !q.Has("collect[]") && !q.Has("exclude[]") {
		for _, c := range strings.Split(nodeExporterCollectors, ",") {
			q.Add("collect[]", c)
		}
		f := *u
		f.RawQuery = q.Encode()
		n.filtered = f.String()
	}
	return n, nil
}

func (n *nodeExporter) name() string { return osSourceNodeExporter }
func (n *nodeExporter) close()       { n.client.CloseIdleConnections() }

func (n *nodeExporter) read(ctx context.Context) (*osCounters, error) {
	fams, at, err := n.scrape(ctx)
	if err != nil {
		return nil, err
	}
	return countersFromFamilies(fams, at), nil
}

// scrape gets and parses the metrics page. at is the middle of the
// request (node_exporter reads /proc while it answers).
func (n *nodeExporter) scrape(ctx context.Context) (map[string]*dto.MetricFamily, time.Time, error) {
	if n.filtered != "" {
		fams, at, status, err := n.get(ctx, n.filtered)
		if status != http.StatusBadRequest {
			return fams, at, err
		}
		// node_exporter answers 400 when a collector of the filter is
		// disabled: take the whole page from now on.
		n.filtered = ""
		n.warn("%s: node_exporter %s refused the collector filter (%v): scraping all its collectors", KindOS, n.display, err)
	}
	fams, at, _, err := n.get(ctx, n.plain)
	return fams, at, err
}

// get scrapes u once; status is the HTTP status (0 without an answer).
func (n *nodeExporter) get(ctx context.Context, u string) (map[string]*dto.MetricFamily, time.Time, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, time.Time{}, 0, fmt.Errorf("scrape node_exporter %s: %w", n.display, err)
	}
	// The classic text format (node_exporter would also speak protobuf and
	// OpenMetrics).
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	start := time.Now()
	resp, err := n.client.Do(req)
	if err != nil {
		return nil, time.Time{}, 0, fmt.Errorf("scrape node_exporter %s: %w", n.display, urlErrorCause(err))
	}
	defer resp.Body.Close()
	body := io.LimitReader(resp.Body, nodeExporterMaxBody)
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(body, 200))
		first, _, _ := strings.Cut(strings.TrimSpace(string(msg)), "\n")
		return nil, time.Time{}, resp.StatusCode, fmt.Errorf("scrape node_exporter %s: HTTP %s: %s", n.display, resp.Status, first)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(body)
	end := time.Now()
	if err != nil {
		return nil, time.Time{}, resp.StatusCode, fmt.Errorf("scrape node_exporter %s: %w", n.display, err)
	}
	return fams, start.Add(end.Sub(start) / 2), resp.StatusCode, nil
}

// urlErrorCause drops net/http's `Get "URL":` prefix (the caller names the
// URL, without its password).
func urlErrorCause(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// countersFromFamilies converts a node_exporter page to the /proc model:
// bytes to kB, seconds to ms, bytes to 512-byte sectors.
func countersFromFamilies(fams map[string]*dto.MetricFamily, at time.Time) *osCounters {
	c := &osCounters{at: at, disks: map[string]diskCounters{}}
	single := func(name string, scale float64) float64 {
		f, ok := fams[name]
		if !ok || len(f.GetMetric()) == 0 {
			c.missing = append(c.missing, "node_exporter has no "+name)
			return math.NaN()
		}
		return promValue(f.GetMetric()[0]) * scale
	}
	c.running = single("node_procs_running", 1)
	c.blocked = single("node_procs_blocked", 1)
	c.intr = single("node_intr_total", 1)
	c.ctxt = single("node_context_switches_total", 1)
	const kb = 1.0 / 1024
	c.memTotal = single("node_memory_MemTotal_bytes", kb)
	c.memFree = single("node_memory_MemFree_bytes", kb)
	c.memAvailable = single("node_memory_MemAvailable_bytes", kb)
	c.buffers = single("node_memory_Buffers_bytes", kb)
	c.cached = single("node_memory_Cached_bytes", kb)
	c.sReclaimable = single("node_memory_SReclaimable_bytes", kb)
	c.swapTotal = single("node_memory_SwapTotal_bytes", kb)
	c.swapFree = single("node_memory_SwapFree_bytes", kb)
	c.dirty = single("node_memory_Dirty_bytes", kb)
	c.writeback = single("node_memory_Writeback_bytes", kb)
	c.pswpin = single("node_vmstat_pswpin", 1)
	c.pswpout = single("node_vmstat_pswpout", 1)
	c.pgpgin = single("node_vmstat_pgpgin", 1)
	c.pgpgout = single("node_vmstat_pgpgout", 1)

	// CPU: sum each mode over the cpus. A mode missing counts 0 (with a
	// warning): the others keep their shares of what was counted.
	modes := map[string]*float64{
		"user": &c.cpu.user, "nice": &c.cpu.nice, "system": &c.cpu.system, "idle": &c.cpu.idle,
		"iowait": &c.cpu.iowait, "irq": &c.cpu.irq, "softirq": &c.cpu.softirq, "steal": &c.cpu.steal,
	}
	seen := map[string]bool{}
	if f, ok := fams["node_cpu_seconds_total"]; ok {
		for _, m := range f.GetMetric() {
			mode := promLabel(m, "mode")
			if p, ok := modes[mode]; ok {
				*p += promValue(m)
				seen[mode] = true
			}
		}
	}
	if len(seen) == 0 {
		c.missing = append(c.missing, "node_exporter has no node_cpu_seconds_total")
		c.cpu = cpuTimes{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	} else {
		for _, mode := range osSortedKeys(modes) {
			if !seen[mode] {
				c.missing = append(c.missing, fmt.Sprintf("node_exporter has no node_cpu_seconds_total{mode=%q} (counted 0)", mode))
			}
		}
	}

	// Disks: node_exporter's diskstats counters, back to /proc's units.
	disk := func(name string, scale float64, set func(*diskCounters, float64)) {
		f, ok := fams[name]
		if !ok {
			c.missing = append(c.missing, "node_exporter has no "+name)
			return
		}
		for _, m := range f.GetMetric() {
			dev := promLabel(m, "device")
			if dev == "" || !diskNameKept(dev) {
				continue
			}
			d, ok := c.disks[dev]
			if !ok {
				d = nanDisk()
			}
			set(&d, promValue(m)*scale)
			c.disks[dev] = d
		}
	}
	disk("node_disk_reads_completed_total", 1, func(d *diskCounters, v float64) { d.reads = v })
	disk("node_disk_writes_completed_total", 1, func(d *diskCounters, v float64) { d.writes = v })
	disk("node_disk_read_bytes_total", 1.0/512, func(d *diskCounters, v float64) { d.readSectors = v })
	disk("node_disk_written_bytes_total", 1.0/512, func(d *diskCounters, v float64) { d.writeSectors = v })
	disk("node_disk_read_time_seconds_total", 1000, func(d *diskCounters, v float64) { d.readMs = v })
	disk("node_disk_write_time_seconds_total", 1000, func(d *diskCounters, v float64) { d.writeMs = v })
	disk("node_disk_io_time_seconds_total", 1000, func(d *diskCounters, v float64) { d.ioMs = v })
	disk("node_disk_io_time_weighted_seconds_total", 1000, func(d *diskCounters, v float64) { d.weightedMs = v })
	return c
}

func nanDisk() diskCounters {
	n := math.NaN()
	return diskCounters{n, n, n, n, n, n, n, n}
}

// promValue is a sample's value whatever its type (node_vmstat_* are
// untyped, the others counters or gauges).
func promValue(m *dto.Metric) float64 {
	switch {
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue()
	}
	return math.NaN()
}

func promLabel(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// nodeExporterHost scrapes once for the host information.
func nodeExporterHost(ctx context.Context, raw string) (*results.Host, error) {
	h := &results.Host{Local: false}
	n, err := newNodeExporter(raw, nil)
	if err != nil {
		return h, err
	}
	defer n.close()
	fams, _, err := n.scrape(ctx)
	if err != nil {
		return h, err
	}
	hostFromFamilies(fams, h)
	return h, nil
}

// hostFromFamilies fills the CPUs (distinct cpu labels of
// node_cpu_seconds_total), MemTotal and the kernel release.
func hostFromFamilies(fams map[string]*dto.MetricFamily, h *results.Host) {
	cpus := map[string]bool{}
	for _, m := range fams["node_cpu_seconds_total"].GetMetric() {
		cpus[promLabel(m, "cpu")] = true
	}
	h.CPUs = len(cpus)
	if f := fams["node_memory_MemTotal_bytes"]; len(f.GetMetric()) > 0 {
		h.MemoryBytes = int64(promValue(f.GetMetric()[0]))
	}
	if f := fams["node_uname_info"]; len(f.GetMetric()) > 0 {
		h.Kernel = promLabel(f.GetMetric()[0], "release")
	}
}
