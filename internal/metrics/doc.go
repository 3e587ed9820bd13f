// Package metrics records what the engine measures: per script, pgbench-style
// sums (counts by outcome, Σx and Σx² of latency and lag, see Stats) and HDR
// histograms of response time, service time and schedule lag; per command the
// elapsed time and errors (pgbench's -r). A ticker takes the data of every
// client once per interval, merges it into an Interval, and the caller
// accumulates Intervals per phase (Interval.Merge) and writes them to the
// HdrHistogram interval log (LogWriter). All times are in microseconds.
//
// # Design: compact records per client, histograms per interval
//
// An HDR histogram of 1 µs … 1 h at 3 significant digits holds ~23,500 int64
// buckets (~190 KB). Six of them per client and script (response, service and
// lag, current and spare) would make memory grow with the client count:
// 1,000 clients × 1 script would need > 1 GB. So a client does not own
// histograms. Each Recorder keeps two growable slices of compact records:
//
//   - a transaction record (the Tx fields): 4×int64 + 2×uint32 + uint16 +
//     uint8 = 48 bytes (43, padded);
//   - a command event (completed with elapsed µs, or an error retried/failed):
//     int64 + uint32 + uint16 + uint8 = 16 bytes.
//
// Record and CommandDone/CommandError append to the current slices under the
// recorder's mutex (uncontended except for the instant of a swap). Tick, for
// each recorder, swaps the current slices with the spare ones under that
// mutex — the only moment a client can be blocked — and then, outside any
// client lock, replays the records into the Interval's Stats, histograms and
// CommandStats, and keeps the replayed slices, truncated to length 0, as the
// next spare, replaced there by one with room for 1.25–1.5 × the count when
// it has less. Recording allocates nothing once both slices have that room:
// from the second tick of a steady run, and after a rate increase of up to
// 25 % (a larger one makes one append grow the slice). Drain does the same
// replay between ticks into the Interval the next Tick returns, so that the
// slices hold only the records since the last drain.
//
// Memory is therefore bounded by
//
//	clients × 2 × 1.5 × (records per client between drains or ticks) × 48 B
//
// for the records (e.g. 10,000 tx/s with 1 s ticks: 1.44 MB in total, however
// many clients share them; 144 KB when drained every 100 ms, as the trial
// package does), plus 3 × (scripts + 1) histograms per Interval that the
// caller holds (~1.1 MB for one script), independent of run length —
// provided Tick (or Drain) is called periodically: in between, the records
// accumulate.
//
// # The slowest transactions
//
// With Layout.Slowest = N > 0, the replay (Tick or Drain, off the clients'
// path) also keeps the N slowest transactions of the interval by response
// time — committed, failed and cut ones, not skipped or dropped slots — in
// a bounded heap whose root is the least slow kept: a record faster than
// it costs one comparison, a slower one O(log N). Tick sorts them slowest
// first into Interval.Slow (SlowTx: script, outcome, client, backend pid,
// end, response, service, lag, tries), which a recycled Interval reuses:
// at most N per interval, whatever the rate. Ties are broken by a total
// order on the fields (compareSlow), so the selection does not depend on
// how the records were split between drains.
//
// # Histograms
//
// Every histogram is NewHistogram's: lowest discernible value 1 µs, highest
// trackable 1 h (3.6e9 µs), 3 significant digits (bucket width ≤ 0.1 % of the
// value). The same geometry everywhere means histograms of different clients,
// phases, runs and machines merge exactly. A value outside [0, 1 h] is clamped
// into it before recording (a negative value, which a clock step could
// produce, counts as 0; a response time above an hour counts as one hour), so
// recording never fails; Stats keeps the exact, unclamped sums, minimum and
// maximum. 0 is trackable exactly: the closed model's lag is 0.
//
// # Percentiles: the nearest rank
//
// Every percentile pgtrial prints or stores of a run's transactions (the
// run summary, run.json, the timeline, the progress line, --percentiles of
// the pgbench front end, pooled profiles of several runs) is Quantile's:
// the nearest-rank q-quantile of the n values in the histogram, the k-th
// smallest value with k = ⌈q·n⌉ (at least 1, NearestRank), with no
// interpolation. It is what pgbench users compute from -l logs (sort, take
// v[⌈q·n⌉ − 1]) and what HdrHistogram's reference implementation reports:
// p99 of 10 transactions is the 10th, p50 of 4 the 2nd. As HDR does, the
// value is that rank's bucket reported by its highest equivalent value
// (≤ 0.1 % above the true one); q = 1 is the maximum, q = 0 the minimum.
// Quantile takes q in [0, 1]; hdrhistogram-go's ValueAtQuantile takes 0–100
// and the rank round(q·n), one lower when the fraction of q·n is below ½,
// so it is not called with the caller's q.
//
// A quantile q of n transactions rests on the n − ⌈q·n⌉ transactions beyond
// it (Beyond): p99.9 of 4,210 transactions on 4 of them, the maximum on
// none but itself. The run summary says so when that is fewer than 20.
//
// # Interval log
//
// LogWriter writes the standard HdrHistogram interval log, format 1.3, as
// Java's HistogramLogProcessor, the HdrHistogram plotter and hdrhistogram-go's
// reader read it:
//
//	#[Histogram log format version 1.3]
//	#[StartTime: 1700000000.437 (seconds since epoch), 2023-11-14T22:13:20.437Z]
//	#[BaseTime: 1700000000 (seconds since epoch)]
//	#[pgtrial: values in microseconds; Interval_Max = max µs / 1e6, i.e. in seconds]
//	"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//	Tag=tpcb-like/response,0.437000,1.000000,0.012543,HISTFAAAA…
//
// Timestamps are seconds relative to BaseTime (the run's start truncated to a
// whole second, because hdrhistogram-go writes BaseTime in whole seconds), at
// millisecond precision (the histograms' start/end stamps are ms). The
// Interval_Max column is the library's fixed max ÷ 1e6, which for µs values
// is seconds. Each interval is written as one line per tag:
// "SCRIPT/response", "SCRIPT/service", "SCRIPT/lag" for every script, then
// "total/…" (see ScriptTags for how script names become tag-safe and unique).
//
// Two readers: ReadLog gives every line as a Histogram (~190 KB each: an
// hour at 1 s with 5 scripts is 64,800 lines, ~12 GB allocated); MergeLog
// merges the lines a predicate takes by tag, decoding each line's counts
// straight into one counts array per tag (the same counts as ReadLog and
// Histogram.Merge, ~60× faster, allocating about the file's size).
package metrics
