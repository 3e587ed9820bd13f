package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
)

// tailDir is a synthetic run (the window (5, 35] s, an injected lock at
// 15–18 s) whose slow.csv has 6 transactions above its p99 that waited in
// the lock on a relation named resultstest.XSS, one with pid 0.
func tailDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run, err := resultstest.WriteRun(dir, resultstest.Options{Duration: 30 * time.Second, StallAt: 10 * time.Second, StallFor: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p99 := run.Summary.Total.Response.P99
	var slow []results.SlowRow
	var act []results.ActivityRow
	for i := range 6 {
		pid := uint32(100 + i)
		if i == 5 {
			pid = 0
		}
		start := 15.1 + 0.1*float64(i)
		service := p99 + 1000
		slow = append(slow, results.SlowRow{Elapsed: 18, Script: "tpcb-like", Outcome: "committed", Client: i, PID: pid,
			IntendedS: start - 0.5, StartS: start, EndS: start + service/1000, ResponseMs: service + 500, ServiceMs: service, LagMs: 500, Tries: 1})
		for at := start + 0.05; at < start+service/1000; at += 0.1 {
			act = append(act, results.ActivityRow{Time: run.BenchStart.Add(time.Duration(at * float64(time.Second))), Elapsed: at, PeriodMs: 100,
				PID: pid, State: "active", Type: "Lock", Event: "relation", Relation: resultstest.XSS})
		}
	}
	if err := resultstest.WriteSlow(dir, slow); err != nil {
		t.Fatal(err)
	}
	if err := resultstest.WriteActivity(dir, act); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTailBlocksInRunReport(t *testing.T) {
	d, err := RunReport(tailDir(t))
	if err != nil {
		t.Fatal(err)
	}
	var text, html bytes.Buffer
	if err := WriteText(&text, d); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, d); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{
		tailTitle,
		"of 6 transactions above p99",
		"5 (83 %) waited on Lock:relation (" + resultstest.XSS + ") during the injected lock on pgbench_branches, 3 s at",
		"1 (17 %) had no known backend pid during the injected lock",
		"was lag",
		"by wait and occurrence:",
		"the slowest of them:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text report lacks %q:\n%s", want, out)
		}
	}
	if h := html.String(); strings.Contains(h, resultstest.XSS) || !strings.Contains(h, "by wait and occurrence:") {
		t.Errorf("HTML: the relation's name is not escaped, or the table is missing")
	}
}

func TestTailBlocksNil(t *testing.T) {
	if b := tailBlocks(nil); b != nil {
		t.Errorf("blocks of no finding: %v", b)
	}
	b := tailBlocks(&results.Tail{Summary: []string{"no transaction of slow.csv is above the p99"}})
	if len(b) != 1 {
		t.Errorf("a finding without groups: %d blocks, want its summary only", len(b))
	}
}
