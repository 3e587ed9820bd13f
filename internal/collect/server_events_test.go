package collect

import (
	"strconv"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// TestServerEventsSynthetic: autovacuum events from counter changes per
// table (new tables count from 0, a reset table warns), and checkpoint
// events from the control file or, without it, from the counters.
func TestServerEventsSynthetic(t *testing.T) {
	rec := &srvRecorder{}
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	s := &server{cfg: &Config{RunStart: start, Interval: time.Second}, warn: rec.warn,
		plan: planServer(srvPlanCatalog(15), func(string, ...any) {})}
	f := func(v float64) *float64 { return &v }
	at := float64(start.Add(1500 * time.Millisecond).Unix())
	p0 := srvSnap(start, map[string]string{srvAliasCkptLSN: "0/100", srvAliasRedoLSN: "0/80"},
		serverTableCounts{Relid: 1, Name: "a", Vacuums: 2, Analyzes: 3},
		serverTableCounts{Relid: 2, Name: "b", Vacuums: 5, Analyzes: 5},
		serverTableCounts{Relid: 3, Name: "c", Vacuums: 1})
	p1 := srvSnap(start.Add(2*time.Second), map[string]string{srvAliasCkptLSN: "0/200", srvAliasRedoLSN: "0/180",
		srvAliasCkptTime: "1740830000", srvAliasControlMtime: strconv.FormatFloat(at, 'f', -1, 64)},
		serverTableCounts{Relid: 1, Name: "a", Vacuums: 3, Analyzes: 3, LastVacuum: f(at)},
		serverTableCounts{Relid: 2, Name: "b", Vacuums: 5, Analyzes: 5},
		serverTableCounts{Relid: 3, Name: "c", Vacuums: 0},
		serverTableCounts{Relid: 4, Name: "s.new", Analyzes: 1})
	tEnd := start.Add(2 * time.Second)
	d := map[string]serverDelta{"checkpoints_timed": {v: 1, ok: true}, "checkpoints_requested": {ok: true},
		"checkpoint_write_ms": {v: 12.5, ok: true}, "checkpoint_sync_ms": {v: 3, ok: true}}
	evs := s.events(p0, p1, d, tEnd)
	if len(evs) != 4 {
		t.Fatalf("events %+v, want a checkpoint's start and completion and two autovacuum events", evs)
	}
	if st := evs[0]; st.Kind != results.EventCheckpointStart || st.Data["kind"] != "timed" || st.Data["checkpoints"] != 1.0 ||
		st.Data["from"] != start.Format(time.RFC3339Nano) || !st.Time.Equal(tEnd) {
		t.Errorf("checkpoint start event %+v", st)
	}
	evs = evs[1:]
	ck := evs[0]
	if ck.Kind != results.EventCheckpoint || ck.Data["kind"] != "timed" || ck.Data["checkpoint_lsn"] != "0/200" ||
		ck.Data["redo_lsn"] != "0/180" || ck.Data["write_ms"] != 12.5 || ck.Data["sync_ms"] != 3.0 ||
		ck.Data["checkpoint_time"] != "2025-03-01T11:53:20Z" || !ck.Time.Equal(start.Add(time.Second)) {
		t.Errorf("checkpoint event %+v", ck)
	}
	if a := evs[1]; a.Kind != results.EventAutovacuum || a.Data["table"] != "a" || a.Data["vacuums"] != int64(1) ||
		a.Data["analyzes"] != int64(0) || !a.Time.Equal(start.Add(time.Second)) {
		t.Errorf("autovacuum event of a: %+v", a)
	}
	if n := evs[2]; n.Data["table"] != "s.new" || n.Data["analyzes"] != int64(1) || !n.Time.Equal(tEnd) {
		t.Errorf("autovacuum event of s.new: %+v", n)
	}
	if !rec.warned("autovacuum counters of c were reset") {
		t.Errorf("warnings %q, want the reset of c", rec.warnings)
	}

	// No control file: the counters tell (on PG ≤ 17 starts, not completions).
	cat := srvPlanCatalog(16)
	cat.control = false
	s.plan = planServer(cat, func(string, ...any) {})
	d = map[string]serverDelta{"checkpoints_timed": {ok: true}, "checkpoints_requested": {v: 2, ok: true}}
	evs = s.events(srvSnap(start, nil), srvSnap(tEnd, nil), d, tEnd)
	if len(evs) != 2 || evs[0].Kind != results.EventCheckpointStart || evs[0].Data["kind"] != "requested" || evs[0].Data["checkpoints"] != 2.0 {
		t.Fatalf("events from the counters: %+v, want a start and a completion", evs)
	}
	if evs[1].Data["source"] != "counters" || evs[1].Data["checkpoints"] != 2.0 ||
		evs[1].Data["kind"] != "requested" || !evs[1].Time.Equal(tEnd) {
		t.Errorf("events from the counters: %+v", evs)
	}
	// They pair into the interval's two checkpoints (each event counts 2).
	if spans := results.CheckpointSpans(evs); len(spans) != 2 || spans[0].End.IsZero() || spans[1].End.IsZero() {
		t.Errorf("spans from the counters' events: %+v", spans)
	}
}
