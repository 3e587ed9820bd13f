package report

import (
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
)

// openTwoScripts is an open run of two scripts, the first with -r's
// per-command figures, with a latency limit, evidence, a checklist and a
// warning.
func openTwoScripts() *RunView {
	pc := results.Percentiles{P50: 1.2, P90: 3.4, P95: 5, P99: 12.5, P999: 30.25, Max: 41}
	return &RunView{
		Workload: "tpcb-like@1+select-only@2", Scale: 10, Server: "127.0.0.1:5432/bench", ServerVersion: "15.8",
		Model:  "open model, 100.0 tx/s (poisson arrivals, skip on overload), 4 clients, 1 thread, simple protocol, latency limit 50 ms",
		Warmup: 5 * time.Second, LatencyLimit: 50 * time.Millisecond, Measured: true,
		Scripts: []RunScript{
			{Name: "tpcb-like", Weight: 1, Commands: []string{`\set aid random(1, 100000 * :scale)`, "BEGIN;"}},
			{Name: "select-only", Weight: 2},
		},
		Summary: &results.Summary{Duration: 60.001, TargetRate: 100, AchievedRate: 99.5,
			Total: results.ScriptSummary{Name: "total", Committed: 5970, TPS: 99.5, Response: pc, Service: pc, Lag: pc,
				Skipped: 6, SkippedShare: 0.001, Failed: 3, FailedShare: 0.0005, FailedBy: map[string]int64{"serialization": 2, "deadlock": 1},
				Late: 12, LateShare: 0.002},
			Scripts: []results.ScriptSummary{
				{Name: "tpcb-like", Committed: 1990, TPS: 33.2, Response: pc, Commands: []results.CommandSummary{
					{Index: 0, Count: 1990, MeanMs: 0.0012, MaxMs: 0.05}, {Index: 1, Count: 1990, MeanMs: 0.25, MaxMs: 2, Failures: 1, Retries: 2}}},
				{Name: "select-only", Committed: 3980, TPS: 66.3, Response: pc},
			}},
		Run: &results.Run{
			Evidence:   &results.Evidence{WALBytes: 3 << 20, Waits: []results.WaitShare{{Type: "CPU", Event: "CPU", Share: 1, AvgSessions: 2}}},
			Collectors: []string{"waits", "server"},
			Checks:     []results.Check{{Name: "warmup", Status: "pass", Message: "5 s excluded"}, {Name: "open_model_latency", Status: "warn", Message: "lag"}},
			Warnings:   []string{"the server is on this machine"},
		},
		Dir: "pgtrial-runs/20260102-030405-tpcb-like",
	}
}

func runText(t *testing.T, v *RunView) string {
	t.Helper()
	return text(t, Run(v))
}

func TestRunOpenText(t *testing.T) {
	out := runText(t, openTwoScripts())
	wantAll(t, "summary", out,
		"workload:  tpcb-like@1+select-only@2 (scale 10) on 127.0.0.1:5432/bench, PostgreSQL 15.8\n"+
			"model:     open model, 100.0 tx/s (poisson arrivals, skip on overload), 4 clients, 1 thread, simple protocol, latency limit 50 ms\n"+
			"measured:  60 s (after 5 s of warm-up, excluded)\n\n",
		"\nscript 1: tpcb-like (weight 1): 1990 committed, 33.2 tps\n  latency ms  p50    p90    p95    p99     p99.9   max\n",
		"  response    1.200  3.400  5.000  12.500  30.250  41.000\n",
		"  0            1990   0.001    0.050   0         0        \\set aid random(1, 100000 * :scale)\n",
		"  1            1990   0.250    2.000   1         2        BEGIN;\n",
		"\nscript 2: select-only (weight 2): 3980 committed, 66.3 tps\n",
		"\ntotal: 5970 committed, 99.5 tps\n",
		"  lag         1.200",
		"  skipped 6 (0.10 %), dropped 0 (0.00 %), failed 3 (0.05 %) [serialization 2, deadlock 1], retried 0 (0.00 %), late (> 50 ms) 12 (0.20 %)\n",
		"\ntarget 100.0 tx/s, achieved 99.5 tx/s (99.50 %)\n",
		"\nevidence (measured window; collectors: waits, server)\n",
		"  WAL          3 MiB, 0 B per transaction",
		"\nchecklist (DESIGN §8: what this run can and cannot show)\n  pass  warmup              5 s excluded\n  warn  open_model_latency  lag\n"+
			"warning: the server is on this machine\nrun directory: pgtrial-runs/20260102-030405-tpcb-like\n",
	)
	// The per-command table follows its script's block, once.
	if n := strings.Count(out, "per command"); n != 1 {
		t.Errorf("%d per-command tables, want 1:\n%s", n, out)
	}
	if strings.Contains(out, "Little's law") {
		t.Errorf("open run with the closed model's caveat:\n%s", out)
	}
}

// A closed run of one script: no lag, no per-script block, the per-command
// table under the total, the caveat of the closed model; an interruption
// and a run that ended in the warm-up are said.
func TestRunClosedText(t *testing.T) {
	v := &RunView{Workload: "s.sql", Server: "socket /tmp:5432/postgres", Model: "closed model, 1 client, 1 thread, simple protocol",
		Closed: true, Scripts: []RunScript{{Name: "s.sql", Weight: 1, Commands: []string{"SELECT 1;"}}},
		Summary: &results.Summary{Duration: 2.5, AchievedRate: 1234.56,
			Total:   results.ScriptSummary{Name: "total", Committed: 3086, TPS: 1234.4},
			Scripts: []results.ScriptSummary{{Name: "s.sql", Committed: 3086, Commands: []results.CommandSummary{{Index: 0, Count: 3086, MeanMs: 0.8}}}}},
		Run: &results.Run{Interrupted: true, InterruptReason: "SIGINT"},
		Dir: "d",
	}
	out := runText(t, v)
	wantAll(t, "summary", out,
		"workload:  s.sql on socket /tmp:5432/postgres\n",
		"measured:  2.5 s; INTERRUPTED by SIGINT\nnothing was measured: the run ended during the warm-up\n",
		"\ntotal: 3086 committed, 1234.4 tps\n",
		"  0            3086   0.800    0.000   0         0        SELECT 1;\n",
		"\nclosed model: achieved 1234.6 tx/s. Its latency percentiles understate what users see",
		"Little's law", "--rate N",
		"load instead of showing as latency. Measure user-facing latency with --rate N.\nrun directory: d\n",
	)
	for _, bad := range []string{"lag ", "script 1", "(scale", "PostgreSQL", "evidence", "checklist", "target "} {
		if strings.Contains(out, bad) {
			t.Errorf("closed one-script summary has %q:\n%s", bad, out)
		}
	}

	v.Run = &results.Run{Aborted: true}
	v.Measured = true
	if out := runText(t, v); !strings.Contains(out, "measured:  2.5 s; CLIENTS ABORTED: results incomplete\n\n") {
		t.Errorf("aborted run:\n%s", out)
	}
	// No summary or run.json at all still renders.
	if out := runText(t, &RunView{Workload: "w", Server: "h:1/d", Dir: "d"}); !strings.Contains(out, "total: 0 committed") {
		t.Errorf("empty view:\n%s", out)
	}
}

func TestRunMarkdown(t *testing.T) {
	checkMarkdown(t, Run(openTwoScripts()),
		"# workload:  tpcb-like@1+select-only@2 (scale 10) on 127.0.0.1:5432/bench, PostgreSQL 15.8\n",
		"**total: 5970 committed, 99.5 tps**\n\n| latency ms | p50 | p90 | p95 | p99 | p99.9 | max |\n| --- |",
		"| response | 1.200 | 3.400 | 5.000 | 12.500 | 30.250 | 41.000 |\n",
		`| 0 | 1990 | 0.001 | 0.050 | 0 | 0 | \\set aid random(1, 100000 \* :scale) |`,
		"- skipped 6 (0.10 %), dropped 0 (0.00 %), failed 3 (0.05 %) \\[serialization 2, deadlock 1\\]",
		"| warn | open\\_model\\_latency |  | lag |\n",
		"run directory: pgtrial-runs/20260102-030405-tpcb-like\n",
	)
}

// The counts under a latency table name statement timeouts as their own
// class and say what the window's end cut; nothing is said of a cut that
// cut nothing.
func TestLatencyTableTimeoutsAndCut(t *testing.T) {
	v := &RunView{}
	ss := &results.ScriptSummary{Committed: 90, Failed: 3, FailedShare: 0.03,
		FailedBy:  map[string]int64{"serialization": 0, "deadlock": 0, "other": 1, "connection": 0, "timeout": 2},
		Unstarted: 812, Unfinished: 4}
	notes := strings.Join(v.latencyTable("total", ss).Notes, "\n")
	for _, want := range []string{"failed 3 (3.00 %) [other 1, timeout 2]", "at the end of the window: 812 unstarted, 4 unfinished"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	ss.Unstarted, ss.Unfinished = 0, 0
	if notes := v.latencyTable("total", ss).Notes; len(notes) != 1 {
		t.Errorf("notes %q, want the counts only", notes)
	}
}

// TestRunFewTransactionsNote: a latency table whose printed quantiles rest on
// fewer than 20 transactions beyond them says so in one line, with the
// count from the data (the smallest Count of the rows shown); no line when
// every quantile has 20 or more, or when the count is unknown.
func TestRunFewTransactionsNote(t *testing.T) {
	cases := []struct {
		name          string
		response, svc int64
		want          string // "" means no note
	}{
		{name: "p99.9 of 4,210", response: 4210, svc: 4210,
			want: "p99.9 rests on 4 transactions beyond it (n = 4,210); the max is a single transaction\n"},
		{name: "p99 and p99.9 of 1,210", response: 1210, svc: 1210,
			want: "p99 rests on 12 transactions beyond it, p99.9 on 1 (n = 1,210); the max is a single transaction\n"},
		{name: "service lacks the unstarted", response: 20_100, svc: 19_999,
			want: "p99.9 rests on 19 transactions beyond it (n = 19,999)"},
		{name: "20 beyond p99.9", response: 20_000, svc: 20_000},
		{name: "unknown count (older run.json)", response: 0, svc: 0},
		{name: "one transaction", response: 1, svc: 1,
			want: "p50 rests on 0 transactions beyond it, p90 on 0, p95 on 0, p99 on 0, p99.9 on 0 (n = 1); the max is a single transaction\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := openTwoScripts()
			v.Summary.Scripts = v.Summary.Scripts[:1] // one script: only the total's block
			tot := &v.Summary.Total
			tot.Response.Count, tot.Service.Count, tot.Lag.Count = c.response, c.svc, c.response
			out := runText(t, v)
			n := strings.Count(out, "rests on")
			switch {
			case c.want == "" && n != 0:
				t.Errorf("a note without few transactions:\n%s", out)
			case c.want != "" && n != 1:
				t.Errorf("%d notes, want 1:\n%s", n, out)
			case c.want != "" && !strings.Contains(out, "  "+c.want):
				t.Errorf("note %q missing from the total's block:\n%s", c.want, out)
			}
		})
	}
}

// TestRunPrintsNearestRank: from recorded transactions to the printed
// table, the percentiles are the nearest-rank values of the histogram: of
// 7 responses 1…7 ms, p90 is the 7th (7.003 ms, HDR's highest equivalent
// value of 7 ms) where HDR's round(6.3) rank gives the 6th; and the note
// says what they rest on.
func TestRunPrintsNearestRank(t *testing.T) {
	s := metrics.NewSet(1, metrics.Layout{Scripts: 1})
	for i := int64(1); i <= 7; i++ {
		s.Recorder(0).Record(&metrics.Tx{Outcome: metrics.Committed, Tries: 1, Response: i * 1000, Service: i * 1000})
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sum := results.Summarize(s.Tick(t0, t0.Add(time.Second)), []string{"s.sql"}, 0)
	out := runText(t, &RunView{Workload: "s.sql", Server: "h:1/d", Model: "closed model", Closed: true, Measured: true,
		Scripts: []RunScript{{Name: "s.sql", Weight: 1}}, Summary: &sum, Dir: "d"})
	wantAll(t, "summary", out,
		"  response    4.001  7.003  7.003  7.003  7.003  7.003\n",
		"  p50 rests on 3 transactions beyond it, p90 on 0, p95 on 0, p99 on 0, p99.9 on 0 (n = 7); the max is a single transaction\n")
}
