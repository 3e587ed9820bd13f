package capture

// The wait profile. pg_stat_statements keeps no history of waits, so
// capture samples the source's pg_stat_activity itself for
// Config.SampleWaits (read-only, every waitSampleEvery): each sample counts
// the active client backends (state active or fastpath function call, not
// capture's own session) by wait_event_type, "CPU" when active with no wait
// event — the keys and the class ("client") of waits.csv's activity source.
//
//	share(type) = samples of type / Σ samples (active-session samples)
//
// The run's side is waits.csv's client rows summed over the whole run
// (waits.csv has no phase column: the warm-up is in it). A type whose share
// differs by more than Thresholds.WaitShare (absolute, 0.10 = 10 points) is
// a flag. pg_wait_sampling is not read at capture: the activity source is
// the one both sides have.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/results"
)

// waitSampleEvery is the period of capture's pg_stat_activity samples.
const waitSampleEvery = 100 * time.Millisecond

// WaitProfile is the source's wait profile sampled at capture.
type WaitProfile struct {
	Source  string             `json:"source"` // "activity" (pg_stat_activity)
	Seconds float64            `json:"seconds"`
	Ticks   int64              `json:"ticks"`   // samples taken
	Samples int64              `json:"samples"` // active client backends seen, over the ticks
	ByType  map[string]int64   `json:"by_type"` // samples per wait_event_type ("CPU": active without a wait event)
	Shares  map[string]float64 `json:"shares"`
}

// waitsQuery counts the active client backends by wait type, capture's
// own session left out.
const waitsQuery = collect.CollectorSQLMarker + ` select coalesce(wait_event_type, 'CPU'), count(*)::int8
	from pg_catalog.pg_stat_activity
	where backend_type = 'client backend' and state in ('active', 'fastpath function call') and pid <> pg_backend_pid()
	group by 1`

// sampleWaits samples conn's pg_stat_activity for d (at most
// d/waitSampleEvery + 1 samples; stops early when ctx ends).
func sampleWaits(ctx context.Context, conn *pgx.Conn, d time.Duration) (*WaitProfile, error) {
	w := &WaitProfile{Source: "activity", ByType: map[string]int64{}}
	start := time.Now()
	limit := int64(d/waitSampleEvery) + 1
	tick := time.NewTicker(waitSampleEvery)
	defer tick.Stop()
	for w.Ticks < limit && time.Since(start) < d+waitSampleEvery {
		rows, err := conn.Query(ctx, waitsQuery)
		if err != nil {
			return nil, fmt.Errorf("capture: sample pg_stat_activity's waits: %w", err)
		}
		var typ string
		var n int64
		if _, err := pgx.ForEachRow(rows, []any{&typ, &n}, func() error {
			w.ByType[typ] += n
			w.Samples += n
			return nil
		}); err != nil {
			return nil, fmt.Errorf("capture: sample pg_stat_activity's waits: %w", err)
		}
		w.Ticks++
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
	w.Seconds = time.Since(start).Seconds()
	w.Shares = shares(w.ByType)
	return w, nil
}

// shares is each type's share of the samples.
func shares(by map[string]int64) map[string]float64 {
	var sum int64
	for _, n := range by {
		sum += n
	}
	out := map[string]float64{}
	for t, n := range by {
		if sum > 0 {
			out[t] = float64(n) / float64(sum)
		}
	}
	return out
}

// WaitSimilarity compares one wait type's share.
type WaitSimilarity struct {
	Type          string  `json:"type"`
	CapturedShare float64 `json:"captured_share"`
	RunShare      float64 `json:"run_share"`
	Off           bool    `json:"off"`
}

// compareWaits compares the run's waits.csv (client rows) with the
// profile's wait shares: the rows by type, a note when there is nothing to
// compare, the flags, and a caveat when the run's waits.csv came from
// another source than the capture's (pg_wait_sampling cannot tell idle
// sessions from active ones the way pg_stat_activity can, collect/waits.go).
func compareWaits(p *Profile, runDir string, limit float64) ([]WaitSimilarity, string, []string, string) {
	if p.Waits == nil {
		return nil, "wait profile: not compared (the capture sampled no waits: --sample-waits 0)", nil, ""
	}
	if p.Waits.Samples == 0 {
		return nil, fmt.Sprintf("wait profile: not compared (no active session was seen in %d samples of the source over %.1f s)", p.Waits.Ticks, p.Waits.Seconds), nil, ""
	}
	rows, err := results.ReadWaits(runDir)
	if err != nil {
		return nil, "wait profile: not compared (the run has no waits.csv: run it with the waits collector)", nil, ""
	}
	by := map[string]int64{}
	caveat := ""
	for _, r := range rows {
		if r.Class == collect.WaitClassClient && r.Type != "" {
			by[r.Type] += r.Samples
			if r.Source != p.Waits.Source && caveat == "" {
				caveat = fmt.Sprintf("the run's waits came from %s, the capture's from pg_stat_activity: their shares are comparable only roughly (run with --wait-source activity)", r.Source)
			}
		}
	}
	run := shares(by)
	if len(run) == 0 {
		return nil, "wait profile: not compared (waits.csv of the run saw no active client session)", nil, caveat
	}
	var types []string
	for t := range p.Waits.Shares {
		types = append(types, t)
	}
	for t := range run {
		if _, ok := p.Waits.Shares[t]; !ok {
			types = append(types, t)
		}
	}
	slices.Sort(types)
	var out []WaitSimilarity
	var flags []string
	for _, t := range types {
		ws := WaitSimilarity{Type: t, CapturedShare: p.Waits.Shares[t], RunShare: run[t]}
		ws.Off = math.Abs(ws.RunShare-ws.CapturedShare) > limit
		if ws.Off {
			more := "more"
			if ws.RunShare < ws.CapturedShare {
				more = "less"
			}
			what := t + " waits"
			if t == "CPU" {
				what = "CPU (active without a wait event)"
			}
			flags = append(flags, fmt.Sprintf("the run's sessions spend %s of their time in %s than the source's: %.0f %% against %.0f %% captured", more, what, 100*ws.RunShare, 100*ws.CapturedShare))
		}
		out = append(out, ws)
	}
	return out, "", flags, caveat
}
