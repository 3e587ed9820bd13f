package capacity

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	f := &mm1{capacity: 1000, service: 2 * time.Millisecond, closedSpread: []float64{0.98, 1, 1.01}}
	r, err := Search(context.Background(), f, Config{Limit: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"capacity search: SLO p99 ≤ 50 ms from the intended start, lag not growing, achieved ≥ 95 % of the target, skipped + failed ≤ 1 %\n",
		"closed-model ceiling: 1000 tx/s, median of 3 runs",
		"  run  achieved tx/s  skipped+failed  dir\n",
		"  1    980            0 %             runs/001\n",
		"open-model steps:\n",
		// r* ≈ 816: 300, 600 pass, 900 fails; 750 passes, 825 fails, 787.5
		// passes and (825 − 787.5)/787.5 ≤ 5 %.
		"  6    fraction  900          90 %        900            92.1 ms  steady  0 %             FAIL                 runs/006  p99 92.1 ms > 50 ms\n",
		"  8    bisect    825          82.5 %      825            52.6 ms  steady  0 %             FAIL    lowest miss  runs/008  p99 52.6 ms > 50 ms\n",
		"  9    bisect    788          78.8 %      788            43.3 ms  steady  0 %             pass    capacity     runs/009\n",
		"capacity: 788 tx/s (p99 43.3 ms ≤ 50 ms, run runs/009); at 825 tx/s p99 52.6 ms > 50 ms (run runs/008)\n",
		"search ended: precision reached: bracket (825 − 788)/788 = 4.76 % ≤ precision 5 %\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for line := range strings.Lines(out) {
		if strings.TrimRight(line, " \n") != strings.TrimSuffix(line, "\n") {
			t.Errorf("trailing blanks: %q", line)
		}
	}
	c := Conclusion(r)
	want := "capacity: " + fmtRate(r.Rate) + " tx/s (" + r.Config.quantileVsLimit(r.Pass.Probe.Quantile) + ", run " + r.Pass.Probe.Dir + "); at " +
		fmtRate(r.Fail.Probe.Rate) + " tx/s " + r.Fail.Why + " (run " + r.Fail.Probe.Dir + ")"
	if c != want || !strings.Contains(out, c+"\n") {
		t.Errorf("conclusion %q, want %q", c, want)
	}

	rows := Table(r)
	if len(rows) != len(r.Steps)+1 {
		t.Fatalf("%d rows for %d steps", len(rows), len(r.Steps))
	}
	marks := 0
	for i, row := range rows[1:] {
		if len(row) != len(rows[0]) {
			t.Errorf("row %d has %d cells, header %d", i, len(row), len(rows[0]))
		}
		switch row[9] {
		case "capacity":
			marks++
			if row[0] != itoa(r.Pass.N) || row[8] != "pass" {
				t.Errorf("capacity mark on %v", row)
			}
		case "lowest miss":
			marks++
			if row[0] != itoa(r.Fail.N) || row[8] != "FAIL" || row[11] != r.Fail.Why {
				t.Errorf("lowest miss mark on %v", row)
			}
		}
	}
	if marks != 2 {
		t.Errorf("%d bracket marks", marks)
	}

	// The Result goes to experiment.json as it is.
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("json: %v", err)
	}
}

func itoa(n int) string { return fmtRate(float64(n)) }

func TestConclusion(t *testing.T) {
	limit := 50 * time.Millisecond
	t.Run("at the ceiling", func(t *testing.T) {
		r, err := Search(context.Background(), &mm1{capacity: 800, service: time.Millisecond, flat: true}, Config{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		want := "capacity: 800 tx/s (p99 4.61 ms ≤ 50 ms, run runs/007), the closed-model ceiling; no higher rate is tried (more needs more clients)"
		if got := Conclusion(r); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	})
	t.Run("none passes", func(t *testing.T) {
		r, err := Search(context.Background(), &mm1{capacity: 100, service: 2 * time.Millisecond}, Config{Limit: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		want := "capacity: none found: the lowest rate tried, 1.88 tx/s, misses the SLO: p99 9.39 ms > 5 ms (run runs/008)"
		if got := Conclusion(r); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
		var b strings.Builder
		if err := Write(&b, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "search ended: the lowest step fails the SLO\n") {
			t.Errorf("report:\n%s", b.String())
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		f := &mm1{capacity: 1000, service: 2 * time.Millisecond, cancelAt: 5, cancel: cancel, ctxAware: true}
		r, _ := Search(ctx, f, Config{Limit: limit})
		want := "capacity so far (search ended early: interrupted): 300 tx/s (p99 13.2 ms ≤ 50 ms, run runs/004)"
		if got := Conclusion(r); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
		r, _ = Search(ctx, f, Config{Limit: limit})
		if got := Conclusion(r); got != "capacity so far (search ended early: interrupted): none found: no open-model run was made" {
			t.Errorf("got %q", got)
		}
	})
}
