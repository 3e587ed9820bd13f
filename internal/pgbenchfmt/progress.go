package pgbenchfmt

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// Progress writes pgbench's -P lines (printProgressReport; pgbench prints them
// on stderr from thread 0):
//
//	progress: %.1f s, %.1f tps, lat %.3f ms stddev %.3f, %lld failed[, lag %.3f ms[, %lld skipped]][, %lld retried, %lld retries]
//
// The time is seconds since Start ("%.1f s"), or with --progress-timestamp
// the Unix time of the report ("%.3f s"). The figures are over the
// transactions finished since the previous report, over all threads:
//
//	tps     = 1e6 × Δcnt / Δt(µs)
//	lat     = 0.001 × Δsum / Δcnt                      (ms; 0 when Δcnt is 0)
//	stddev  = 0.001 × sqrt(Δsum2/Δcnt − 1e6 × lat²)    (NaN, "-nan", when rounding makes it negative)
//	lag     = 0.001 × Δlag_sum / Δcnt                  (-R only)
//	failed  = Δ(serialization + deadlock [+ other]) failures
//	skipped = Δskipped                                 (-R with -L only)
//	retried, retries                                   (--max-tries other than 1 only)
//
// A Progress is used by one goroutine.
type Progress struct {
	Opts *Options
	// Start is thread 0's start (pgbench's thread_start: before its clients
	// connect); the non-timestamp time column counts from it.
	Start time.Time

	// last and lastTime are the cumulative stats and the time of the previous
	// Report call (pgbench's *last and *last_report).
	last     metrics.Stats
	lastTime time.Time
}

// Line is the progress line (with its newline) for the stats delta of the
// transactions finished in the interval of length elapsed that ends at now.
// elapsed is the Δt of tps (pgbench's now − last_report).
func (p *Progress) Line(now time.Time, delta *metrics.Stats, elapsed time.Duration) string {
	o := p.Opts
	if o == nil {
		o = &Options{}
	}
	var d metrics.Stats
	if delta != nil {
		d = *delta
	}
	run := elapsed.Microseconds() // pg_time_usec_t
	cnt := d.Count
	totalRun := float64(now.Sub(p.Start).Microseconds()) / 1000000.0
	tps := 1000000.0 * float64(cnt) / float64(run)

	var latency, stdev, lag float64
	if cnt > 0 {
		n := float64(cnt)
		latency = 0.001 * d.Latency.Sum / n
		sqlat := 1.0 * d.Latency.Sum2 / n
		stdev = 0.001 * math.Sqrt(sqlat-float64(1000000.0*latency*latency))
		lag = 0.001 * d.Lag.Sum / n
	}

	var b strings.Builder
	b.WriteString("progress: ")
	if o.ProgressTimestamp {
		// PG_TIME_GET_DOUBLE(now + epoch_shift): epoch µs × 0.000001.
		b.WriteString(cFloat(3, pgTimeGetDouble(now.UnixMicro())))
	} else {
		// "round seconds are expected, but the thread may be late"
		b.WriteString(cFloat(1, totalRun))
	}
	b.WriteString(" s, ")
	b.WriteString(cFloat(1, tps))
	b.WriteString(" tps, lat ")
	b.WriteString(cFloat(3, latency))
	b.WriteString(" ms stddev ")
	b.WriteString(cFloat(3, stdev))
	b.WriteString(", ")
	b.WriteString(strconv.FormatInt(failuresOf(&d), 10))
	b.WriteString(" failed")
	if o.Rate > 0 {
		b.WriteString(", lag ")
		b.WriteString(cFloat(3, lag))
		b.WriteString(" ms")
		if o.LatencyLimit > 0 {
			b.WriteString(", ")
			b.WriteString(strconv.FormatInt(d.Skipped(), 10))
			b.WriteString(" skipped")
		}
	}
	if o.MaxTries != 1 {
		b.WriteString(", ")
		b.WriteString(strconv.FormatInt(d.Retried, 10))
		b.WriteString(" retried, ")
		b.WriteString(strconv.FormatInt(d.Retries, 10))
		b.WriteString(" retries")
	}
	b.WriteByte('\n')
	return b.String()
}

// Report is the progress line at now for the cumulative stats cur (all
// threads since the start), as pgbench computes it: the delta against the
// stats of the previous Report call (none before the first: the delta is
// then cur) over the time since that call (since Start for the first).
func (p *Progress) Report(now time.Time, cur *metrics.Stats) string {
	if p.lastTime.IsZero() {
		p.lastTime = p.Start
	}
	var c metrics.Stats
	if cur != nil {
		c = *cur
	}
	d := subStats(&c, &p.last)
	line := p.Line(now, &d, now.Sub(p.lastTime))
	p.last, p.lastTime = c, now
	return line
}

// subStats is cur − last for the fields a progress line shows (sums are
// subtracted as pgbench does; min and max are meaningless in a delta).
func subStats(cur, last *metrics.Stats) metrics.Stats {
	d := metrics.Stats{
		Count:   cur.Count - last.Count,
		Retried: cur.Retried - last.Retried,
		Retries: cur.Retries - last.Retries,
		Late:    cur.Late - last.Late,
	}
	for i := range d.Outcome {
		d.Outcome[i] = cur.Outcome[i] - last.Outcome[i]
	}
	sub := func(c, l *metrics.Summary) metrics.Summary {
		return metrics.Summary{N: c.N - l.N, Sum: c.Sum - l.Sum, Sum2: c.Sum2 - l.Sum2}
	}
	d.Latency = sub(&cur.Latency, &last.Latency)
	d.Service = sub(&cur.Service, &last.Service)
	d.Lag = sub(&cur.Lag, &last.Lag)
	return d
}
