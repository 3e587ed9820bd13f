package pgbenchfmt

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// This file is pgbench's end-of-run text: printVersion (the banner) and
// printResults (the report), PostgreSQL 18's format, with PostgreSQL 19's
// "other failures" lines when --continue-on-error is given. Numbers are
// computed in pgbench's order of operations on the same µs values, so that the
// rounding of every printed figure is pgbench's.

// Banner is the line pgbench prints on stdout when it has connected for setup
// (printVersion), with its newline: "pgbench (CLIENT)" when the server's
// version number equals the client's, else "pgbench (CLIENT, server SERVER)".
// CLIENT is pgbench's PG_VERSION, here "18.0 (pgtrial VERSION)"; SERVER is the
// server_version parameter as reported by the server (serverVersionStr), or
// when that is empty the number formatted by formatPGVersionNumber ("15.18",
// "9.6.24"). pgbench compares the full numbers (PQserverVersion against
// PG_VERSION_NUM), so a 18.4 server is shown next to an 18.0 client too.
func Banner(toolVersion string, serverVersionNum int, serverVersionStr string) string {
	if toolVersion == "" {
		toolVersion = "dev"
	}
	client := fmt.Sprintf("%s (pgtrial %s)", PostgresVersion, toolVersion)
	if serverVersionNum == PostgresVersionNum {
		return fmt.Sprintf("pgbench (%s)\n", client)
	}
	server := serverVersionStr
	if server == "" {
		server = formatPGVersionNumber(serverVersionNum)
	}
	return fmt.Sprintf("pgbench (%s, server %s)\n", client, server)
}

// formatPGVersionNumber is fe_utils' formatPGVersionNumber with include_minor:
// "M.m" from 10 on, "M.m.p" before.
func formatPGVersionNumber(v int) string {
	if v >= 100000 {
		return fmt.Sprintf("%d.%d", v/10000, v%10000)
	}
	return fmt.Sprintf("%d.%d.%d", v/10000, (v/100)%100, v%100)
}

// RunAbortedMessage is what pgbench logs (pg_log_error, so on stderr as
// "pgbench: error: …") after the report when a client aborted; the exit
// status is then 2.
const RunAbortedMessage = "Run was aborted; the above results are incomplete."

// Report is everything pgbench's printResults prints. The caller fills it at
// the end of a run and calls Write with stdout.
type Report struct {
	// Opts gives the scripts (Desc, Weight, Parsed.Commands for -r), QueryMode,
	// Clients, Threads, MaxTries, Transactions, Duration, Rate, LatencyLimit,
	// Progress, FailuresDetailed, ContinueOnError, ReportPerCommand, Connect,
	// TotalWeight and PerScriptStats.
	Opts *Options
	// Scale is the scale shown: pgbench_branches' row count for a built-in
	// script, else -s (0 means Opts.Scale).
	Scale int
	// PartitionMethod is "" when pgbench_accounts is not partitioned, else
	// "range" or "hash" (pgbench detects it at setup); Partitions its count.
	PartitionMethod string
	Partitions      int
	// Total is the run's stats over all scripts; Scripts the same per script
	// (for the per-script blocks); Commands[script][command] the -r figures.
	Total    metrics.Stats
	Scripts  []metrics.Stats
	Commands [][]metrics.CommandStats
	// Latency makes the report print the measured latency (average and
	// stddev of the response times) instead of the one computed from the run
	// time. pgbench measures when -R, -P or -L is given, and Write does so
	// then whatever Latency says; Latency can only add to that rule.
	Latency bool
	// BenchDuration is pgbench's total_duration: from the earliest thread's
	// bench start (after its clients' initial connections, at the "GO"
	// barrier) to the end of the run, after every thread has finished (so
	// the initial connection time is excluded, but under -C the
	// per-transaction connections are included). tps (= committed /
	// BenchDuration) and the computed latency are taken over it; it is
	// used in whole µs, as pgbench's clock.
	BenchDuration time.Duration
	// ConnTime is the initial connection time (pgbench's bench_start −
	// start_time: from just before the threads are started to the earliest
	// thread's bench start) or, under -C, the connection and disconnection
	// time summed over all threads (conn_total_duration).
	ConnTime time.Duration
	// Aborted records that a client aborted. printResults prints the same
	// report either way; pgbench then logs RunAbortedMessage on stderr
	// (see Epilogue) and exits with status 2.
	Aborted bool
}

// Epilogue is what pgbench prints on stderr after the report: the "Run was
// aborted" error line when a client aborted, else "".
func (r *Report) Epilogue() string {
	if r.Aborted {
		return "pgbench: error: " + RunAbortedMessage + "\n"
	}
	return ""
}

// String is the report's text.
func (r *Report) String() string {
	var b strings.Builder
	r.write(&b)
	return b.String()
}

// Write writes the report, byte for byte as pgbench 18's printResults.
func (r *Report) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	r.write(bw)
	return bw.Flush()
}

func (r *Report) write(w io.Writer) {
	o := r.Opts
	if o == nil {
		o = &Options{}
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }

	total := &r.Total
	failures := failuresOf(total)
	totalCnt := total.Count + total.Skipped() + failures // pgbench's total_cnt
	totalDuration := r.BenchDuration.Microseconds()      // pg_time_usec_t
	benchDuration := pgTimeGetDouble(totalDuration)
	tps := float64(total.Count) / benchDuration

	// Test parameters.
	desc := "multiple scripts"
	if len(o.Scripts) == 1 {
		desc = o.Scripts[0].Desc
	}
	p("transaction type: %s\n", desc)
	scale := r.Scale
	if scale == 0 {
		scale = o.Scale
	}
	p("scaling factor: %d\n", scale)
	if r.PartitionMethod != "" {
		p("partition method: %s\npartitions: %d\n", r.PartitionMethod, r.Partitions)
	}
	p("query mode: %s\n", o.QueryMode)
	p("number of clients: %d\n", o.Clients)
	p("number of threads: %d\n", o.Threads)
	if o.MaxTries != 0 {
		p("maximum number of tries: %d\n", o.MaxTries)
	}
	if o.Duration <= 0 {
		p("number of transactions per client: %d\n", o.Transactions)
		// nxacts * nclients is a C int product: it wraps around.
		p("number of transactions actually processed: %d/%d\n",
			total.Count, int32(int32(o.Transactions)*int32(o.Clients)))
	} else {
		p("duration: %d s\n", o.Duration)
		p("number of transactions actually processed: %d\n", total.Count)
	}

	// The rest is meaningless when nothing was executed (every client
	// aborted before finishing a transaction).
	if totalCnt <= 0 {
		return
	}

	r.writeFailures(p, "", total, failures, totalCnt)
	if o.LatencyLimit > 0 {
		late := 0.0
		if total.Count > 0 {
			late = percentOf(total.Late, total.Count)
		}
		p("number of transactions above the %s ms latency limit: %d/%d (%s%%)\n",
			cFloat(1, float64(o.LatencyLimit)/1000.0), total.Late, total.Count, cFloat(3, late))
	}

	if r.measured() {
		printSimpleStats(w, "latency", &total.Latency)
	} else {
		// No measurement: the average is derived from the run time,
		// 0.001 × total_duration × nclients / total_cnt (failures included).
		incl := ""
		if failures > 0 {
			incl = " (including failures)"
		}
		p("latency average = %s ms%s\n",
			cFloat(3, 0.001*float64(totalDuration)*float64(o.Clients)/float64(totalCnt)), incl)
	}

	if o.Rate > 0 {
		// Average over the successful transactions (NaN when there are none,
		// as in pgbench); the maximum as recorded.
		p("rate limit schedule lag: avg %s (max %s) ms\n",
			cFloat(3, 0.001*total.Lag.Sum/float64(total.Count)), cFloat(3, 0.001*total.Lag.Max))
	}

	if o.Connect {
		p("average connection time = %s ms\n",
			cFloat(3, 0.001*float64(r.ConnTime.Microseconds())/float64(total.Count+failures)))
		p("tps = %s (including reconnection times)\n", cFloat(6, tps))
	} else {
		p("initial connection time = %s ms\n", cFloat(3, 0.001*float64(r.ConnTime.Microseconds())))
		p("tps = %s (without initial connection time)\n", cFloat(6, tps))
	}

	if !o.PerScriptStats && !o.ReportPerCommand {
		return
	}
	for i := range o.Scripts {
		if o.PerScriptStats {
			r.writeScript(w, i, totalCnt, benchDuration)
		}
		if o.ReportPerCommand {
			r.writeCommands(w, i)
		}
	}
}

// writeFailures writes st's failed transactions (failures of all), by
// class under --failures-detailed (other failures only with
// --continue-on-error), its retries unless --max-tries=1 and its skipped
// transactions under --rate with --latency-limit, each line after prefix
// ("" for the totals, " - " for a script).
func (r *Report) writeFailures(p func(format string, args ...any), prefix string, st *metrics.Stats, failures, all int64) {
	o := r.Opts
	p(prefix+"number of failed transactions: %d (%s%%)\n", failures, cFloat(3, percentOf(failures, all)))
	if o.FailuresDetailed {
		p(prefix+"number of serialization failures: %d (%s%%)\n",
			st.Outcome[metrics.FailedSerialization], cFloat(3, percentOf(st.Outcome[metrics.FailedSerialization], all)))
		p(prefix+"number of deadlock failures: %d (%s%%)\n",
			st.Outcome[metrics.FailedDeadlock], cFloat(3, percentOf(st.Outcome[metrics.FailedDeadlock], all)))
		if o.ContinueOnError {
			other := otherFailuresOf(st)
			p(prefix+"number of other failures: %d (%s%%)\n", other, cFloat(3, percentOf(other, all)))
		}
	}
	if o.MaxTries != 1 {
		p(prefix+"number of transactions retried: %d (%s%%)\n", st.Retried, cFloat(3, percentOf(st.Retried, all)))
		p(prefix+"total number of retries: %d\n", st.Retries)
	}
	if o.Rate > 0 && o.LatencyLimit > 0 {
		p(prefix+"number of transactions skipped: %d (%s%%)\n", st.Skipped(), cFloat(3, percentOf(st.Skipped(), all)))
	}
}

// writeScript is one per-script block of printResults (PostgreSQL 18: the
// transaction count includes skipped and failed transactions, and the counts
// and tps follow on their own line).
func (r *Report) writeScript(w io.Writer, i int, totalCnt int64, benchDuration float64) {
	o := r.Opts
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	var s metrics.Stats
	if i < len(r.Scripts) {
		s = r.Scripts[i]
	}
	sc := &o.Scripts[i]
	failures := failuresOf(&s)
	scriptTotal := s.Count + s.Skipped() + failures

	p("SQL script %d: %s\n", i+1, sc.Desc)
	p(" - weight: %d (targets %s%% of total)\n", sc.Weight, cFloat(1, 100.0*float64(sc.Weight)/float64(o.TotalWeight)))
	p(" - %d transactions (%s%% of total)\n", scriptTotal, cFloat(1, percentOf(scriptTotal, totalCnt)))
	if scriptTotal > 0 {
		p(" - number of transactions actually processed: %d (tps = %s)\n", s.Count, cFloat(6, float64(s.Count)/benchDuration))
		r.writeFailures(p, " - ", &s, failures, scriptTotal)
	}
	printSimpleStats(w, " - latency", &s.Latency)
}

// writeCommands is the -r block of one script: per command the average time
// of its completed executions in ms, "   %11.3f  %10lld %s" with the failures
// it caused, or "   %11.3f  %10lld %10lld %s" with failures and retries when
// --max-tries is not 1, then the command's first line.
func (r *Report) writeCommands(w io.Writer, i int) {
	o := r.Opts
	prefix := ""
	if o.PerScriptStats {
		prefix = " - "
	}
	what := " and failures"
	if o.MaxTries != 1 {
		what = ", failures and retries"
	}
	fmt.Fprintf(w, "%sstatement latencies in milliseconds%s:\n", prefix, what)

	parsed := o.Scripts[i].Parsed
	if parsed == nil {
		return
	}
	var stats []metrics.CommandStats
	if i < len(r.Commands) {
		stats = r.Commands[i]
	}
	for j, cmd := range parsed.Commands {
		var c metrics.CommandStats
		if j < len(stats) {
			c = stats[j]
		}
		// pgbench keeps seconds and prints 1000 × Σ/n; here Σ is in µs.
		avg := 0.0
		if c.Elapsed.N > 0 {
			avg = 0.001 * c.Elapsed.Sum / float64(c.Elapsed.N)
		}
		if o.MaxTries == 1 {
			fmt.Fprintf(w, "   %s  %10d %s\n", cFloatWidth(11, 3, avg), c.Failures, cmd.FirstLine)
		} else {
			fmt.Fprintf(w, "   %s  %10d %10d %s\n", cFloatWidth(11, 3, avg), c.Failures, c.Retries, cmd.FirstLine)
		}
	}
}

// measured reports whether the report shows measured latency: pgbench's
// "throttle_delay || progress || latency_limit".
func (r *Report) measured() bool {
	o := r.Opts
	return r.Latency || o.Rate > 0 || o.Progress > 0 || o.LatencyLimit > 0
}

// printSimpleStats is pgbench's: "%s average = %.3f ms" and "%s stddev = %.3f
// ms" of a µs series, nothing when it is empty. The stddev is
// sqrt(Σx²/n − mean²), NaN when rounding makes the radicand negative.
func printSimpleStats(w io.Writer, prefix string, s *metrics.Summary) {
	if s.N <= 0 {
		return
	}
	n := float64(s.N)
	mean := s.Sum / n
	stddev := math.Sqrt(s.Sum2/n - float64(mean*mean)) // float64(): no fused multiply-add
	fmt.Fprintf(w, "%s average = %s ms\n", prefix, cFloat(3, 0.001*mean))
	fmt.Fprintf(w, "%s stddev = %s ms\n", prefix, cFloat(3, 0.001*stddev))
}

// failuresOf is pgbench's getFailures: serialization + deadlock + other
// (PostgreSQL 19) failures. Connection failures (pgtrial's native front end
// only) count as failures too.
func failuresOf(s *metrics.Stats) int64 { return s.Failed() }

// otherFailuresOf is pgbench 19's other_sql_failures (with connection
// failures and statement timeouts, which pgbench does not count apart).
func otherFailuresOf(s *metrics.Stats) int64 {
	return s.Outcome[metrics.FailedOther] + s.Outcome[metrics.FailedConnection] + s.Outcome[metrics.FailedTimeout]
}

// percentOf is pgbench's "100.0 * part / whole" in its order of operations.
func percentOf(part, whole int64) float64 { return 100.0 * float64(part) / float64(whole) }

// pgTimeGetDouble is pgbench's PG_TIME_GET_DOUBLE: µs to seconds as
// 0.000001 × t (a product, not a division, as in pgbench).
func pgTimeGetDouble(us int64) float64 { return 0.000001 * float64(us) }

// cFloat formats v as C's printf("%.<prec>f") in glibc: like Go's %f for finite
// values (both round the exact binary value, half to even), and "inf" or
// "-inf" for infinities. Every NaN prints as "-nan": where pgbench can print
// one (0/0, sqrt of a slightly negative radicand) x86-64 produces its
// "default NaN", whose sign bit is set, and glibc shows the sign.
func cFloat(prec int, v float64) string {
	switch {
	case math.IsNaN(v):
		return "-nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// cFloatWidth is C's "%<width>.<prec>f": cFloat right-aligned in width columns.
func cFloatWidth(width, prec int, v float64) string {
	s := cFloat(prec, v)
	if len(s) < width {
		s = strings.Repeat(" ", width-len(s)) + s
	}
	return s
}
