package cli

// runout.go: what `pgtrial run` prints: the start line, the live status line
// on stderr and the text summary on stdout.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// describeStart is the line before the run: workload, server, model, length
// and run directory.
func describeStart(p *runPlan, o *runOptions, tgt *runTarget, dir string) string {
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
		fmt.Fprintf(&b, "; %v measured", o.duration.d)
	}
	if o.warmup.d > 0 {
		fmt.Fprintf(&b, " after %v of warm-up", o.warmup.d)
	}
	fmt.Fprintf(&b, "\npgtrial: writing %s", dir)
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
	threads := "thread"
	if p.threads != 1 {
		threads = "threads"
	}
	clients := "client"
	if o.clients != 1 {
		clients = "clients"
	}
	var b strings.Builder
	if o.closed {
		b.WriteString("closed model")
	} else {
		fmt.Fprintf(&b, "open model, %s tx/s (%s arrivals, %s on overload)", fmtRate(o.rate), p.arrival, p.overload)
	}
	fmt.Fprintf(&b, ", %d %s, %d %s, %s protocol", o.clients, clients, p.threads, threads, p.mode)
	if o.latencyLimit.d > 0 {
		fmt.Fprintf(&b, ", latency limit %v", o.latencyLimit.d)
	}
	return b.String()
}

func fmtRate(r float64) string { return strconv.FormatFloat(r, 'f', 1, 64) }

// statusLine is the live status of one interval.
func statusLine(t *trial.Tick, rate float64) string {
	st := &t.Interval.Total.Stats
	tps := 0.0
	if d := t.Interval.Duration().Seconds(); d > 0 {
		tps = float64(st.Count) / d
	}
	p99 := float64(metrics.Quantile(t.Interval.Total.Response, 0.99)) / 1000
	lag := float64(metrics.Quantile(t.Interval.Total.Lag, 0.99)) / 1000
	s := fmt.Sprintf("%6.1f s  %-7s  %9.1f tps  p99 %8.3f ms", t.Elapsed.Seconds(), t.Phase, tps, p99)
	if rate > 0 {
		s += fmt.Sprintf("  lag p99 %8.3f ms", lag)
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

// summaryView is what the text summary shows.
type summaryView struct {
	summary  *results.Summary
	plan     *runPlan
	opts     *runOptions
	target   *runTarget
	run      *results.Run
	dir      string
	measured bool
}

// writeRunSummary prints the summary table.
func writeRunSummary(w io.Writer, v *summaryView) {
	s, o, p := v.summary, v.opts, v.plan
	fmt.Fprintf(w, "workload:  %s", p.workload)
	if p.needsPgbench {
		fmt.Fprintf(w, " (scale %d)", v.target.scale)
	}
	fmt.Fprintf(w, " on %s", hostPortDB(v.target.target))
	if sv := v.target.target.ServerVersion; sv != "" {
		fmt.Fprintf(w, ", PostgreSQL %s", sv)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "model:     %s\n", modeLine(o, p))
	fmt.Fprintf(w, "measured:  %.3f s", s.Duration)
	if o.warmup.d > 0 {
		fmt.Fprintf(w, " (after %v of warm-up, excluded)", o.warmup.d)
	}
	switch {
	case v.run.Interrupted:
		fmt.Fprintf(w, "; INTERRUPTED by %s", v.run.InterruptReason)
	case v.run.Aborted:
		fmt.Fprintf(w, "; CLIENTS ABORTED: results incomplete")
	}
	fmt.Fprintln(w)
	if !v.measured {
		fmt.Fprintln(w, "nothing was measured: the run ended during the warm-up")
	}

	blocks := []*results.ScriptSummary{}
	if len(s.Scripts) > 1 {
		for i := range s.Scripts {
			blocks = append(blocks, &s.Scripts[i])
		}
	}
	blocks = append(blocks, &s.Total)
	for i, ss := range blocks {
		fmt.Fprintln(w)
		title := "total"
		if len(blocks) > 1 && i < len(blocks)-1 {
			title = fmt.Sprintf("script %d: %s (weight %d)", i+1, ss.Name, p.scripts[i].Weight)
		}
		fmt.Fprintf(w, "%s: %d committed, %.1f tps\n", title, ss.Committed, ss.TPS)
		fmt.Fprintf(w, "  %-12s %10s %10s %10s %10s %10s %10s\n", "latency ms", "p50", "p90", "p95", "p99", "p99.9", "max")
		row := func(name string, pc results.Percentiles) {
			fmt.Fprintf(w, "  %-12s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", name, pc.P50, pc.P90, pc.P95, pc.P99, pc.P999, pc.Max)
		}
		row("response", ss.Response)
		row("service", ss.Service)
		if !o.closed {
			row("lag", ss.Lag)
		}
		fmt.Fprintf(w, "  skipped %d (%s), dropped %d (%s), failed %d (%s)%s, retried %d (%s)",
			ss.Skipped, pct(ss.SkippedShare), ss.Dropped, pct(ss.DroppedShare),
			ss.Failed, pct(ss.FailedShare), failedBy(ss.FailedBy), ss.Retried, pct(ss.RetriedShare))
		if o.latencyLimit.d > 0 {
			fmt.Fprintf(w, ", late (> %v) %d (%s)", o.latencyLimit.d, ss.Late, pct(ss.LateShare))
		}
		fmt.Fprintln(w)
		if len(ss.Commands) > 0 && i < len(p.scripts) {
			writeCommands(w, ss.Commands, p.scripts[i].Parsed)
		}
	}
	if len(s.Scripts) == 1 && len(s.Scripts[0].Commands) > 0 {
		writeCommands(w, s.Scripts[0].Commands, p.scripts[0].Parsed)
	}

	fmt.Fprintln(w)
	if o.closed {
		fmt.Fprintf(w, "closed model: achieved %s tx/s. Its latency percentiles understate what users see: each client\n"+
			"waits for its previous transaction, so the mean is clients/tps (Little's law) and a stall lowers the\n"+
			"load instead of showing as latency. Measure user-facing latency with --rate N.\n", fmtRate(s.AchievedRate))
	} else {
		share := 0.0
		if s.TargetRate > 0 {
			share = 100 * s.AchievedRate / s.TargetRate
		}
		fmt.Fprintf(w, "target %s tx/s, achieved %s tx/s (%.1f %%)\n", fmtRate(s.TargetRate), fmtRate(s.AchievedRate), share)
	}
	writeEvidence(w, v.run.Evidence, v.run.Collectors)
	if len(v.run.Checks) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "checklist (DESIGN §8: what this run can and cannot show)")
		fmt.Fprint(w, checks.Text(v.run.Checks))
	}
	for _, warn := range v.run.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintf(w, "run directory: %s\n", v.dir)
}

func writeCommands(w io.Writer, cs []results.CommandSummary, sc *script.Script) {
	fmt.Fprintf(w, "  %-12s %10s %10s %10s %8s %8s  %s\n", "per command", "count", "mean ms", "max ms", "failures", "retries", "command")
	for _, c := range cs {
		text := ""
		if c.Index < len(sc.Commands) {
			text = sc.Commands[c.Index].FirstLine
		}
		fmt.Fprintf(w, "  %-12d %10d %10.3f %10.3f %8d %8d  %s\n", c.Index, c.Count, c.MeanMs, c.MaxMs, c.Failures, c.Retries, text)
	}
}

func pct(share float64) string { return fmt.Sprintf("%.2f %%", 100*share) }

// failedBy lists the failure classes with a non-zero count, in a fixed order.
func failedBy(m map[string]int64) string {
	var parts []string
	for o := metrics.Outcome(0); o < metrics.NumOutcomes; o++ {
		if !o.Failed() {
			continue
		}
		if n := m[o.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, ", ") + "]"
}
