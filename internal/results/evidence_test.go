package results

import (
	"testing"
	"time"
)

// Starts pair with completions; a completion's checkpoint_time (the
// server's record of the start) is the span's start; the last start
// without completion stays open, an earlier one was skipped; a completion
// without start began before the records.
func TestCheckpointSpans(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	start := func(s float64, kind string) Event {
		return Event{Time: at(s), Kind: EventCheckpointStart, Data: map[string]any{"kind": kind, "checkpoints": 1.0, "from": at(s - 1).Format(time.RFC3339Nano)}}
	}
	events := []Event{
		{Time: at(3), Kind: EventCheckpoint, Data: map[string]any{"kind": "unknown"}}, // started before the collector
		start(10, "timed"),
		// Started and completed in the same interval: the completion's time
		// (1 s resolution) is before the start event's.
		{Time: at(9.5), Kind: EventCheckpoint, Data: map[string]any{"kind": "timed", "checkpoint_time": at(9).Format(time.RFC3339)}},
		start(29, "requested"),
		{Time: at(40), Kind: EventCheckpoint, Data: map[string]any{"kind": "requested", "checkpoint_time": at(28).Format(time.RFC3339)}},
		start(50, "timed"), // skipped (an idle server): no completion, and another started after it
		start(60, "timed"), // still running at the last read
		{Time: at(61), Kind: EventAutovacuum},
	}
	spans := CheckpointSpans(events)
	if len(spans) != 4 {
		t.Fatalf("spans %+v, want 4", spans)
	}
	want := []CheckpointSpan{
		{End: at(3), Kind: "unknown"},
		{Start: at(9), StartFrom: at(9), End: at(9.5), Kind: "timed"},
		{Start: at(28), StartFrom: at(28), End: at(40), Kind: "requested"},
		{Start: at(60), StartFrom: at(59), Kind: "timed"},
	}
	for i, w := range want {
		g := spans[i]
		if !g.Start.Equal(w.Start) || !g.StartFrom.Equal(w.StartFrom) || !g.End.Equal(w.End) || g.Kind != w.Kind {
			t.Errorf("span %d = %+v, want %+v", i, g, w)
		}
	}

	// A window (30, 50]: the checkpoint from 28 s to 40 s overlaps it; one
	// from 45 s still running; one entirely before does not.
	from, to := at(30), at(50)
	for _, tt := range []struct {
		sp   CheckpointSpan
		want bool
		text string
	}{
		{spans[2], true, "started before the window, completed at 10 s"},
		{CheckpointSpan{Start: at(45)}, true, "started at 15 s, not completed by the end of the run"},
		{CheckpointSpan{Start: at(45), End: at(55)}, true, "started at 15 s, completed after the window"},
		{CheckpointSpan{Start: at(20), End: at(60)}, true, "started before the window, completed after the window"},
		{spans[1], false, "started before the window, completed before the window"},
		{CheckpointSpan{Start: at(51)}, false, "started after the window, not completed by the end of the run"},
		{CheckpointSpan{End: at(31)}, true, "started before the records, completed at 1 s"},
		{CheckpointSpan{}, false, "started before the records, not completed by the end of the run"},
	} {
		if got := tt.sp.Overlaps(from, to); got != tt.want {
			t.Errorf("%+v overlaps (30, 50]: %v, want %v", tt.sp, got, tt.want)
		}
		if got := DescribeCheckpoint(tt.sp, from, to); got != tt.text {
			t.Errorf("%+v: %q, want %q", tt.sp, got, tt.text)
		}
	}
}

func TestEvidenceMissing(t *testing.T) {
	var none *Evidence
	if _, ok := none.MissingReason(EvidenceStatements); ok {
		t.Error("nil evidence has a missing reason")
	}
	ev := &Evidence{}
	ev.SetMissing(EvidenceStatements, "first")
	ev.SetMissing(EvidenceStatements, "second")
	if r, ok := ev.MissingReason(EvidenceStatements); !ok || r != "first" {
		t.Errorf("reason %q %v, want the first", r, ok)
	}
	if _, ok := ev.MissingReason(EvidenceWaits); ok {
		t.Error("waits missing although not set")
	}
}

// Without checkpoint_time (the counters on PostgreSQL 18 without
// pg_control_checkpoint()), a completion takes the latest start before it:
// a skipped timed checkpoint before the real one is left out.
func TestCheckpointSpansCountersSkipped(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	spans := CheckpointSpans([]Event{
		{Time: at(10), Kind: EventCheckpointStart, Data: map[string]any{"kind": "timed", "checkpoints": 1.0}},
		{Time: at(70), Kind: EventCheckpointStart, Data: map[string]any{"kind": "timed", "checkpoints": 1.0}},
		{Time: at(100), Kind: EventCheckpoint, Data: map[string]any{"kind": "timed", "checkpoints": 1.0, "source": "counters"}},
	})
	if len(spans) != 1 || !spans[0].Start.Equal(at(70)) || !spans[0].End.Equal(at(100)) {
		t.Errorf("spans %+v, want one from 70 s to 100 s", spans)
	}
}

// A long window: offsets of 1000 s and more print in minutes, never in
// exponent form; a checkpoint completed in the window is not unfinished,
// one that started in it and completed after it is.
func TestDescribeCheckpointLongWindow(t *testing.T) {
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(30 * time.Minute)
	late := CheckpointSpan{Start: from.Add(1234 * time.Second), End: to.Add(time.Minute)}
	done := CheckpointSpan{Start: from.Add(60 * time.Second), End: from.Add(90 * time.Second)}
	if got, want := DescribeCheckpoint(late, from, to), "started at 20 min 34 s, completed after the window"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := UnfinishedCheckpoints([]CheckpointSpan{done, late}, from, to); len(got) != 1 || got[0] != late {
		t.Errorf("unfinished %+v, want only the late one", got)
	}
}
