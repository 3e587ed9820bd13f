package results

import (
	"strconv"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// Summary is what `pgtrial run` prints and `--json` outputs, and run.json's
// summary: the figures of one phase (normally the measured one).
type Summary struct {
	Duration     float64         `json:"duration_s"`    // seconds
	TargetRate   float64         `json:"target_rate"`   // scheduled transactions/s; 0 in the closed model
	AchievedRate float64         `json:"achieved_rate"` // started transactions/s = (committed + failed) / duration
	Total        ScriptSummary   `json:"total"`
	Scripts      []ScriptSummary `json:"scripts"`
	// PeakConnected is the most client sessions open at once during the
	// measured phase (timeline.csv's connected_max; metrics.Sessions);
	// absent when not counted. A run of several generators' segments
	// has each one's own.
	PeakConnected int64 `json:"peak_connected,omitempty"`
}

// ScriptSummary is the summary of one script, or of all ("total").
//
// Shares are fractions (0.01 = 1 %) of the transactions clients took,
// committed + skipped + failed (pgbench's total), except DroppedShare, which
// is dropped / (committed + skipped + failed + dropped): a dropped slot never
// reached a client.
//
// The end of the window (pgtrial's own commands; engine.Config.CutAtEnd):
// Unstarted counts the slots of the open model's schedule due before the
// end of the measured window (the -T end, or the interruption) that no
// client started; Unfinished the transactions in flight at that end, which
// were cancelled (whatever became of them after it). Neither is committed,
// failed nor in the shares' denominator. Both are in the response
// percentiles and maximum with a lower bound of their response time: end of
// the window − intended start (unfinished also in service, end − actual
// start, and lag; unstarted in lag, with the same bound), so a stall at the
// end shows in the tail. The means and standard deviations, and every
// figure of the pgbench front end (which, as pgbench, lets the transactions
// in flight at -T's end finish and counts neither), cover committed
// transactions only; skipped, dropped and failed ones carry no latency.
type ScriptSummary struct {
	Name      string  `json:"name"`
	Committed int64   `json:"committed"`
	TPS       float64 `json:"tps"` // committed / duration

	Response Percentiles `json:"response_ms"` // end − intended start (with the lower bounds of unstarted and unfinished)
	Service  Percentiles `json:"service_ms"`  // end − actual start (with the lower bounds of unfinished)
	Lag      Percentiles `json:"lag_ms"`      // actual − intended start (with unfinished, and the lower bounds of unstarted)

	Skipped    int64            `json:"skipped"`
	Dropped    int64            `json:"dropped"`
	Unstarted  int64            `json:"unstarted"`  // due before the window's end, never started
	Unfinished int64            `json:"unfinished"` // in flight at the window's end, cut
	Failed     int64            `json:"failed"`
	FailedBy   map[string]int64 `json:"failed_by"`      // "serialization", "deadlock", "other", "connection", "timeout" (57014: statement_timeout)
	Retried    int64            `json:"retried"`        // transactions retried at least once
	Retries    int64            `json:"retries"`        // Σ(tries − 1)
	Late       int64            `json:"late,omitempty"` // committed with response > the latency limit

	SkippedShare float64 `json:"skipped_share"`
	DroppedShare float64 `json:"dropped_share"`
	FailedShare  float64 `json:"failed_share"`
	RetriedShare float64 `json:"retried_share"`
	LateShare    float64 `json:"late_share,omitempty"` // late / (committed + skipped + failed)

	Commands []CommandSummary `json:"commands,omitempty"` // per command (-r); not for the total
}

// Percentiles is the distribution of one latency kind in ms (µs precision):
// percentiles and maximum from the HDR histogram (to within its 0.1 %), each
// the nearest-rank value, the ⌈q·Count⌉-th smallest (metrics.Quantile), mean
// and standard deviation from pgbench's exact sums. Count is how many values
// the percentiles rest on (Beyond: how many of them lie beyond one); 0 in a
// run.json written before it was recorded.
type Percentiles struct {
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p999"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	Count  int64   `json:"count"` // values in the histogram: committed, and the lower bounds of the window's end (ScriptSummary)
}

// Beyond is how many of the Count values lie beyond the nearest-rank
// quantile q, Count − ⌈q·Count⌉ (metrics.Beyond): p99.9 of 4,210 values
// rests on the 4 above its rank.
func (p *Percentiles) Beyond(q float64) int64 {
	return metrics.Beyond(q, p.Count)
}

// CommandSummary is one command's figures, as pgbench -r reports them.
type CommandSummary struct {
	Index    int     `json:"index"`   // 0-based command number within its script
	Count    int64   `json:"count"`   // completed executions
	MeanMs   float64 `json:"mean_ms"` // mean elapsed time of completed executions
	MaxMs    float64 `json:"max_ms"`
	Failures int64   `json:"failures"`
	Retries  int64   `json:"retries"`
}

// Summarize summarises iv (a phase: the merge of its intervals). scriptNames
// names the scripts ("script1", … where missing); targetRate is the open
// model's target (0 in the closed model).
func Summarize(iv *metrics.Interval, scriptNames []string, targetRate float64) Summary {
	dur := iv.Duration().Seconds()
	s := Summary{
		Duration:   dur,
		TargetRate: targetRate,
		Total:      summarizeScript("total", &iv.Total, dur),
		Scripts:    make([]ScriptSummary, len(iv.Scripts)),

		PeakConnected: iv.Sessions.ConnectedMax,
	}
	if dur > 0 {
		st := &iv.Total.Stats
		s.AchievedRate = float64(st.Count+st.Failed()) / dur
	}
	for i := range iv.Scripts {
		name := "script" + strconv.Itoa(i+1)
		if i < len(scriptNames) && scriptNames[i] != "" {
			name = scriptNames[i]
		}
		s.Scripts[i] = summarizeScript(name, &iv.Scripts[i], dur)
		if i < len(iv.Commands) {
			s.Scripts[i].Commands = summarizeCommands(iv.Commands[i])
		}
	}
	return s
}

func summarizeScript(name string, h *metrics.Hists, dur float64) ScriptSummary {
	st := &h.Stats
	ss := ScriptSummary{
		Name:       name,
		Committed:  st.Count,
		Response:   latency(h.Response, &st.Latency),
		Service:    latency(h.Service, &st.Service),
		Lag:        latency(h.Lag, &st.Lag),
		Skipped:    st.Skipped(),
		Dropped:    st.Dropped(),
		Unstarted:  st.Unstarted(),
		Unfinished: st.Unfinished(),
		Failed:     st.Failed(),
		FailedBy:   map[string]int64{},
		Retried:    st.Retried,
		Retries:    st.Retries,
		Late:       st.Late,
	}
	for o := metrics.Outcome(0); o < metrics.NumOutcomes; o++ {
		if o.Failed() {
			ss.FailedBy[o.String()] = st.Outcome[o]
		}
	}
	if dur > 0 {
		ss.TPS = float64(st.Count) / dur
	}
	taken := st.Total() // committed + skipped + failed
	ss.SkippedShare = share(ss.Skipped, taken)
	ss.FailedShare = share(ss.Failed, taken)
	ss.RetriedShare = share(ss.Retried, taken)
	ss.LateShare = share(ss.Late, taken)
	ss.DroppedShare = share(ss.Dropped, taken+ss.Dropped)
	return ss
}

func share(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func latency(h *hdrhistogram.Histogram, sum *metrics.Summary) Percentiles {
	q := func(q float64) float64 { return ms(metrics.Quantile(h, q)) }
	var n int64
	if h != nil {
		n = h.TotalCount()
	}
	return Percentiles{
		Count:  n,
		P50:    q(0.50),
		P90:    q(0.90),
		P95:    q(0.95),
		P99:    q(0.99),
		P999:   q(0.999),
		Max:    q(1),
		Mean:   sum.Mean() / 1000,
		Stddev: sum.Stddev() / 1000,
	}
}

func summarizeCommands(cs []metrics.CommandStats) []CommandSummary {
	if len(cs) == 0 {
		return nil
	}
	out := make([]CommandSummary, len(cs))
	for i := range cs {
		c := &cs[i]
		out[i] = CommandSummary{
			Index:    i,
			Count:    c.Elapsed.N,
			MeanMs:   c.Elapsed.Mean() / 1000,
			MaxMs:    c.Elapsed.Max / 1000,
			Failures: c.Failures,
			Retries:  c.Retries,
		}
	}
	return out
}
