package cli

// runout.go: what `pgtrial run` prints: the start line and the live status
// line on stderr, and the text summary on stdout (report.Run of runView).

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/report"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// describeStart is the line before the run: workload, server, model and
// length.
func describeStart(p *runPlan, o *runOptions, tgt *runTarget) string {
	var b strings.Builder
	b.WriteString("pgtrial: ")
	b.WriteString(p.workload)
	if p.needsPgbench {
		fmt.Fprintf(&b, " (scale %d)", tgt.scale)
	}
	t := tgt.target
	fmt.Fprintf(&b, " on %s", hostPortDB(t))
	if t.ServerVersion != "" {
		fmt.Fprintf(&b, " (PostgreSQL %s)", t.ServerVersion)
	}
	b.WriteString("; ")
	b.WriteString(modeLine(o, p))
	if o.transactions > 0 {
		fmt.Fprintf(&b, "; %d transactions per client", o.transactions)
	} else {
		fmt.Fprintf(&b, "; %s measured", format.Duration(o.duration.d))
	}
	if o.warmup.d > 0 {
		fmt.Fprintf(&b, " after %s of warm-up", format.Duration(o.warmup.d))
	}
	return b.String()
}

func hostPortDB(t results.Target) string {
	host := t.Host
	if strings.HasPrefix(host, "/") {
		host = "socket " + host
	}
	return fmt.Sprintf("%s:%d/%s", host, t.Port, t.Database)
}

// modeLine describes the load model in one line.
func modeLine(o *runOptions, p *runPlan) string {
	if len(p.scenarios) > 0 {
		return scenarioModeLine(o, p) // scenario.go
	}
	threads := format.Plural(p.threads, "thread", "threads")
	clients := format.Plural(o.clients, "client", "clients")
	var b strings.Builder
	if o.closed {
		b.WriteString("closed model")
	} else {
		fmt.Fprintf(&b, "open model, %s tx/s (%s arrivals, %s on overload)", format.Rate(o.rate), p.arrival, p.overload)
	}
	fmt.Fprintf(&b, ", %d %s, %d %s, %s protocol", o.clients, clients, p.threads, threads, p.mode)
	if o.latencyLimit.d > 0 {
		fmt.Fprintf(&b, ", latency limit %s", format.Duration(o.latencyLimit.d))
	}
	return b.String()
}

// statusLine is the live status of one interval: elapsed time, phase, tps
// (committed / the interval's seconds), the p99 of response time (and of
// lag in the open model) in ms, and the failures so far. The figures are
// right-aligned so that a rewritten line does not jump.
func statusLine(t *trial.Tick, rate float64) string {
	st := &t.Interval.Total.Stats
	tps := 0.0
	if d := t.Interval.Duration().Seconds(); d > 0 {
		tps = float64(st.Count) / d
	}
	p99 := float64(metrics.Quantile(t.Interval.Total.Response, 0.99)) / 1000 // µs → ms
	lag := float64(metrics.Quantile(t.Interval.Total.Lag, 0.99)) / 1000
	s := fmt.Sprintf("%8s  %-7s  %9s tps  p99 %8s ms", format.Duration(t.Elapsed.Round(100*time.Millisecond)), t.Phase, format.Rate(tps), format.MsFixed(p99))
	if rate > 0 {
		s += fmt.Sprintf("  lag p99 %8s ms", format.MsFixed(lag))
	}
	s += fmt.Sprintf("  failed %d", t.Run.Failed())
	if n := st.Failed(); n > 0 {
		s += fmt.Sprintf(" (+%d)", n)
	}
	if n := t.Run.Skipped() + t.Run.Dropped(); n > 0 {
		s += fmt.Sprintf("  skipped+dropped %d", n)
	}
	return s
}

// liveOut is stderr shared by the status line and messages: on a terminal
// the status line is rewritten in place (\r), and a message first clears it;
// otherwise every status is a line of its own.
type liveOut struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	pending bool // a status line without its newline is on the screen
}

func (l *liveOut) status(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tty {
		io.WriteString(l.w, "\r"+s+"\x1b[K")
		l.pending = true
		return
	}
	io.WriteString(l.w, "progress: "+s+"\n")
}

func (l *liveOut) println(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending {
		io.WriteString(l.w, "\r\x1b[K")
		l.pending = false
	}
	io.WriteString(l.w, strings.TrimSuffix(s, "\n")+"\n")
}

// end leaves the last status line on the screen.
func (l *liveOut) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending {
		io.WriteString(l.w, "\n")
		l.pending = false
	}
}

// runView is what the text summary shows (report.Run), from the run's
// plan, options, target and results.
func runView(p *runPlan, o *runOptions, tgt *runTarget, r *trial.Result, dir string) *report.RunView {
	v := &report.RunView{
		Workload:      p.workload,
		Server:        hostPortDB(tgt.target),
		ServerVersion: tgt.target.ServerVersion,
		Model:         modeLine(o, p),
		Warmup:        o.warmup.d,
		LatencyLimit:  o.latencyLimit.d,
		Closed:        o.closed,
		Summary:       &r.Summary,
		Run:           r.Run,
		Dir:           dir,
		Measured:      r.Measured,
	}
	if p.needsPgbench {
		v.Scale = tgt.scale
	}
	for _, sc := range p.scripts {
		rs := report.RunScript{Name: sc.Name, Weight: sc.Weight}
		if sc.Parsed != nil {
			for _, c := range sc.Parsed.Commands {
				rs.Commands = append(rs.Commands, c.FirstLine)
			}
		}
		v.Scripts = append(v.Scripts, rs)
	}
	return v
}
