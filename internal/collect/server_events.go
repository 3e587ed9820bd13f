package collect

// The server collector's events (events.jsonl), from two successive reads.
//
// # Events
//
//   - results.EventCheckpoint when pg_control_checkpoint()'s checkpoint_lsn
//     or redo_lsn changed since the previous read: one checkpoint (or
//     restartpoint) completed, the last one if several did. Time is its
//     completion (pg_control_system()'s pg_control_last_modified, written at
//     the end of the checkpoint, 1 s resolution) when that lies within the
//     interval, else t. Data: checkpoint_lsn, redo_lsn, checkpoint_time (the
//     checkpoint's *start*, as PostgreSQL records it), write_ms and sync_ms
//     (the interval's deltas: the checkpointer adds them at the end), kind
//     ("requested" when checkpoints_requested moved since the previous
//     completion, else "timed", else "unknown"). Where pg_control_checkpoint()
//     is not executable (hardened installs revoke it from PUBLIC) the events
//     come from the counters (Δnum_done on 18, else Δtimed+Δrequested, which
//     count starts, not completions) with Time = t and Data source "counters".
//   - results.EventCheckpointStart when checkpoints_timed or
//     checkpoints_requested (num_timed, num_requested on 17+) moved: the
//     counter is incremented when a checkpoint starts, so a checkpoint that
//     starts in the run but completes after it is still seen. Time is t; the
//     start lies in (Data "from" = the previous read, t]. Data: kind
//     ("requested" or "timed": one event each when both moved),
//     checkpoints (the delta). A timed checkpoint that the server skips
//     (nothing written since the last one: an idle server) counts too.
//     results.CheckpointSpans pairs starts with completions.
//   - results.EventAutovacuum for each user table (pg_stat_user_tables:
//     pg_catalog, information_schema and TOAST tables are not included) whose
//     autovacuum_count or autoanalyze_count grew. Time is the run's
//     last_autovacuum/last_autoanalyze when within the interval, else t.
//     Data: table (schema-qualified when not in public), vacuums, analyzes.

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// srvEpoch reads epoch seconds (extract(epoch FROM …) as text).
func srvEpoch(s string) (time.Time, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return time.Time{}, false
	}
	return srvEpochTime(v)
}

// srvEpochTime converts epoch seconds (false for ±infinity or NaN).
func srvEpochTime(v float64) (time.Time, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return time.Time{}, false
	}
	sec, frac := math.Modf(v)
	return time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3), true
}

// srvEpochText formats epoch seconds for a message.
func srvEpochText(s string) string {
	if t, ok := srvEpoch(s); ok {
		return t.UTC().Format(timeFormat)
	}
	return "an unknown time"
}

// srvEventTime is the server's time of an event when it lies within the
// interval of the reads (with 1 s of slack for the second resolution of the
// control file and a small clock skew), else the grid time t.
func srvEventTime(server time.Time, ok bool, prev, cur *serverSnapshot, t time.Time) time.Time {
	if ok && !server.Before(prev.at.Add(-time.Second)) && !server.After(cur.at.Add(time.Second)) {
		return server
	}
	return t
}

// events are the checkpoint and autovacuum events of the interval (prev,
// cur] with the interval's deltas d.
func (s *server) events(prev, cur *serverSnapshot, d map[string]serverDelta, t time.Time) []results.Event {
	var evs []results.Event
	timed, requested := d["checkpoints_timed"], d["checkpoints_requested"]
	if timed.ok {
		s.sinceTimed += int64(timed.v)
	}
	if requested.ok {
		s.sinceRequested += int64(requested.v)
	}
	kind := "unknown"
	switch {
	case s.sinceRequested > 0:
		kind = "requested"
	case s.sinceTimed > 0:
		kind = "timed"
	}
	// Starts: the counters move when a checkpoint starts (its write and
	// sync times and its completion come later, maybe after the run).
	for _, st := range []struct {
		kind string
		d    serverDelta
	}{{"requested", requested}, {"timed", timed}} {
		if st.d.ok && st.d.v > 0 {
			evs = append(evs, results.Event{Time: t, Kind: results.EventCheckpointStart,
				Data: map[string]any{"kind": st.kind, "checkpoints": st.d.v, "from": prev.at.UTC().Format(time.RFC3339Nano)}})
		}
	}
	data := func() map[string]any {
		m := map[string]any{"kind": kind}
		if w := d["checkpoint_write_ms"]; w.ok {
			m["write_ms"] = w.v
		}
		if w := d["checkpoint_sync_ms"]; w.ok {
			m["sync_ms"] = w.v
		}
		return m
	}
	if s.plan.control {
		l0, l1 := prev.vals[srvAliasCkptLSN], cur.vals[srvAliasCkptLSN]
		r0, r1 := prev.vals[srvAliasRedoLSN], cur.vals[srvAliasRedoLSN]
		if l0 != "" && l1 != "" && (l0 != l1 || r0 != r1) {
			m := data()
			m["checkpoint_lsn"], m["redo_lsn"] = l1, r1
			if st, ok := srvEpoch(cur.vals[srvAliasCkptTime]); ok {
				m["checkpoint_time"] = st.UTC().Format(time.RFC3339)
			}
			end, ok := srvEpoch(cur.vals[srvAliasControlMtime])
			evs = append(evs, results.Event{Time: srvEventTime(end, ok, prev, cur, t), Kind: results.EventCheckpoint, Data: m})
			s.sinceTimed, s.sinceRequested = 0, 0
		}
	} else {
		n := 0.0
		if done := d["checkpoints_done"]; done.ok {
			n = done.v
		} else {
			n = timed.v + requested.v
		}
		if n > 0 {
			m := data()
			m["checkpoints"], m["source"] = n, "counters"
			evs = append(evs, results.Event{Time: t, Kind: results.EventCheckpoint, Data: m})
			s.sinceTimed, s.sinceRequested = 0, 0
		}
	}

	// Autovacuum runs finished in the interval, by table name.
	ids := make([]uint32, 0, len(cur.tables))
	for id := range cur.tables {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uint32) int { return cmp.Compare(cur.tables[a].Name, cur.tables[b].Name) })
	for _, id := range ids {
		c, p := cur.tables[id], prev.tables[id] // absent before: counters were 0 (or the table is new)
		dv, da := c.Vacuums-p.Vacuums, c.Analyzes-p.Analyzes
		if dv < 0 || da < 0 {
			s.warn("server collector: autovacuum counters of %s were reset at about %s", c.Name, cur.at.UTC().Format(timeFormat))
			continue
		}
		if dv == 0 && da == 0 {
			continue
		}
		var last time.Time
		ok := false
		for _, l := range []struct {
			moved bool
			at    *float64
		}{{dv > 0, c.LastVacuum}, {da > 0, c.LastAnalyze}} {
			if l.moved && l.at != nil {
				if at, good := srvEpochTime(*l.at); good && at.After(last) {
					last, ok = at, true
				}
			}
		}
		evs = append(evs, results.Event{
			Time: srvEventTime(last, ok, prev, cur, t),
			Kind: results.EventAutovacuum,
			Data: map[string]any{"table": c.Name, "vacuums": dv, "analyzes": da},
		})
	}
	return evs
}
