package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// collectOptions are the collector flags of `pgtrial run`.
type collectOptions struct {
	off          bool
	kinds        []string
	waitInterval durationFlag
	waitSource   string
	nodeExporter string
}

func (c *collectOptions) addFlags(f *pflag.FlagSet) {
	c.waitInterval = durationFlag{d: 100 * time.Millisecond, unit: time.Millisecond}
	c.waitSource = collect.WaitSourceAuto
	f.BoolVar(&c.off, "no-collect", false, "collect no server or OS evidence (wait events, pg_stat_statements, server counters, OS metrics)")
	f.StringSliceVar(&c.kinds, "collect", nil, "collectors to run, comma-separated: "+strings.Join(collect.AllKinds, ",")+" (default all)")
	f.Var(&c.waitInterval, "wait-interval", "pg_stat_activity sampling period for wait events, 10ms to 1s (a bare number is ms)")
	f.StringVar(&c.waitSource, "wait-source", c.waitSource, `wait events from "pg_stat_activity" samples ("activity"), the "pg_wait_sampling" extension, or "auto" (the extension when installed)`)
	f.StringVar(&c.nodeExporter, "node-exporter", "", "OS metrics from this node_exporter (host:port or URL) instead of /proc; needed when the server is on another machine")
}

// check validates the flags before anything connects.
func (c *collectOptions) check() error {
	if c.off {
		return nil
	}
	for _, k := range c.kinds {
		if !containsString(collect.AllKinds, k) {
			return fmt.Errorf("--collect %s: unknown collector; choose from %s", k, strings.Join(collect.AllKinds, ","))
		}
	}
	if d := c.waitInterval.d; d < 10*time.Millisecond || d > time.Second {
		return fmt.Errorf("--wait-interval %v: must be between 10ms and 1s", d)
	}
	switch c.waitSource {
	case collect.WaitSourceAuto, collect.WaitSourceActivity, collect.WaitSourceProfile:
	case "pg_stat_activity":
		c.waitSource = collect.WaitSourceActivity
	default:
		return fmt.Errorf("--wait-source %q: want auto, activity or pg_wait_sampling", c.waitSource)
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// writeEvidence prints the "Evidence" section of the summary: what the
// server and the machine did in the measured window. Evidence that was not
// collected is "—" with the reason (Evidence.Missing), never 0.
func writeEvidence(w io.Writer, ev *results.Evidence, collectors []string) {
	if ev == nil {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "evidence (measured window; collectors: %s)\n", strings.Join(collectors, ", "))
	has := func(k string) bool { return containsString(collectors, k) }
	missing := func(label, group string) bool {
		reason, ok := ev.MissingReason(group)
		if ok {
			fmt.Fprintf(w, "  %-15s —: %s\n", label, reason)
		}
		return ok
	}
	if !missing("server counters", results.EvidenceServer) && has(collect.KindServer) {
		// A counter the server does not have is "—" (the reasons follow).
		var gone []string
		counter := func(col, text string) string {
			if _, ok := ev.MissingReason(results.EvidenceServer + "." + col); ok {
				gone = append(gone, col)
				return "—"
			}
			return text
		}
		fmt.Fprintf(w, "  checkpoints     %d completed, started %d timed and %d requested, write %s ms, sync %s ms%s\n",
			ev.Checkpoints, ev.CheckpointsTimed, ev.CheckpointsRequested, counter("checkpoint_write_ms", fmt.Sprintf("%.0f", ev.CheckpointWriteMs)),
			counter("checkpoint_sync_ms", fmt.Sprintf("%.0f", ev.CheckpointSyncMs)), unfinishedCheckpoints(ev))
		fpiShare := fmt.Sprintf("%.1f", 100*ev.FPIShare)
		if _, ok := ev.MissingReason(results.EvidenceServer + ".wal_records"); ok {
			fpiShare = "—"
		}
		fmt.Fprintf(w, "  WAL             %s, %.0f B per transaction, %s records, full-page images %s (%s %% of records)\n",
			bytesText(ev.WALBytes), ev.WALBytesPerTx, counter("wal_records", fmt.Sprint(ev.WALRecords)), counter("wal_fpi", fmt.Sprint(ev.WALFPI)), fpiShare)
		fmt.Fprintf(w, "  buffers         hit ratio %.2f %% (%d hit, %d read), written by backends %s, temp %s, deadlocks %d\n",
			100*ev.HitRatio, ev.BlocksHit, ev.BlocksRead, counter("backend_writes", fmt.Sprint(ev.BackendWrites)), bytesText(ev.TempBytes), ev.Deadlocks)
		if len(gone) > 0 {
			reason, _ := ev.MissingReason(results.EvidenceServer + "." + gone[0])
			fmt.Fprintf(w, "  —               %s: %s\n", strings.Join(gone, ", "), reason)
		}
		if len(ev.Autovacuum) == 0 {
			fmt.Fprintln(w, "  autovacuum      no runs")
		} else {
			var parts []string
			for _, t := range ev.Autovacuum {
				parts = append(parts, fmt.Sprintf("%s (vacuum %d, analyze %d)", t.Table, t.Vacuums, t.Analyzes))
			}
			fmt.Fprintf(w, "  autovacuum      %s\n", strings.Join(parts, ", "))
		}
	}
	if !missing("waits", results.EvidenceWaits) && len(ev.Waits) > 0 {
		fmt.Fprintln(w, "  waits of active client sessions (share of samples, average sessions):")
		for _, ws := range ev.Waits {
			name := ws.Type + ":" + ws.Event
			if ws.Type == ws.Event {
				name = ws.Type
			}
			fmt.Fprintf(w, "    %-36s %6.1f %%  %6.2f\n", name, 100*ws.Share, ws.AvgSessions)
		}
	}
	if reason, ok := ev.MissingReason(results.EvidenceStatements); ok {
		fmt.Fprintf(w, "  statements      calls/s —, rows/s —: %s\n", reason)
	} else if len(ev.Statements) > 0 {
		if sec := ev.To.Sub(ev.From).Seconds(); sec > 0 {
			fmt.Fprintf(w, "  statements      calls/s %.0f, rows/s %.0f (top level)\n", float64(ev.Calls)/sec, float64(ev.Rows)/sec)
		}
		fmt.Fprintln(w, "  statements by total time (share, calls, mean ms, shared blocks hit/read per call):")
		for _, st := range ev.Statements {
			fmt.Fprintf(w, "    %5.1f %%  %9d  %8.3f  %8.1f/%-8.1f  %s\n",
				100*st.Share, st.Calls, st.MeanMs, st.SharedHitPerCall, st.SharedReadPerCall, oneLine(st.Query, 60))
		}
	}
	if !missing("OS", results.EvidenceOS) && ev.CPU != nil {
		fmt.Fprintf(w, "  CPU             us %.0f %%, sy %.0f %%, wa %.0f %%, st %.0f %%, id %.0f %%; pgtrial itself %.2f CPUs\n",
			100*ev.CPU.User, 100*ev.CPU.System, 100*ev.CPU.IOWait, 100*ev.CPU.Steal, 100*ev.CPU.Idle, ev.ClientCPU)
	}
	if d := ev.BusiestDisk; d != nil {
		fmt.Fprintf(w, "  busiest disk    %s: util %.0f %%, r/s %.0f, w/s %.0f, await %.2f ms, aqu-sz %.2f\n",
			d.Name, 100*d.Util, d.ReadsPerS, d.WritesPerS, d.AwaitMs, d.QueueSize)
	}
	for _, wn := range ev.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", wn)
	}
}

// unfinishedCheckpoints is "; 1 more ran: started at 29 s, completed after
// the window" for the checkpoints that ran in the window without completing
// in it (seconds from the window's start), or "".
func unfinishedCheckpoints(ev *results.Evidence) string {
	var parts []string
	for _, sp := range ev.CheckpointSpans {
		if !sp.End.IsZero() && sp.End.After(ev.From) && !sp.End.After(ev.To) {
			continue // completed in the window: counted
		}
		parts = append(parts, results.DescribeCheckpoint(sp, ev.From, ev.To))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d more ran in the window: %s", len(parts), strings.Join(parts, "; "))
}

// oneLine is s with its blanks collapsed, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// bytesText is n bytes in B, kB, MB or GB (powers of 1024).
func bytesText(n int64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	v := float64(n)
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}

// config is the collectors' part of a trial.Config.
func (c *collectOptions) config() trial.Collect {
	return trial.Collect{Off: c.off, Kinds: c.kinds, WaitInterval: c.waitInterval.d, WaitSource: c.waitSource, NodeExporter: c.nodeExporter}
}
