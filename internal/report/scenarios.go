package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// ScenarioBlocks are the blocks of a run's concurrent scenarios (run.json's
// scenarios; none without): one overview table, a row per scenario and the
// total (its load, target and achieved rate, committed, response p50 and
// p99, failed, skipped + dropped), then each scenario's latency table as a
// script's, with the lag row for an open scenario. prefix heads the titles
// ("summary, " in the run report). total is the run's summary (nil: no
// total row).
func ScenarioBlocks(scen []results.Scenario, total *results.Summary, latencyLimit time.Duration, prefix string) []Block {
	if len(scen) == 0 {
		return nil
	}
	ov := &Table{
		Title: prefix + fmt.Sprintf("%d concurrent scenarios", len(scen)),
		Head:  []string{"scenario", "load", "target tx/s", "achieved tx/s", "committed", "response p50 ms", "p99 ms", "failed", "skipped+dropped"},
	}
	var blocks []Block
	for i := range scen {
		sc := &scen[i]
		load := ScenarioLoad(sc)
		s := sc.Summary
		if s == nil {
			why := "the run ended before its summary"
			ov.Rows = append(ov.Rows, []Cell{Text(sc.Name), Text(load), Absent(why), Absent(why), Absent(why), Absent(why), Absent(why), Absent(why), Absent(why)})
			continue
		}
		ov.Rows = append(ov.Rows, scenarioRow(sc.Name, load, s))
		v := &RunView{Closed: sc.Kind != results.ModelOpen, LatencyLimit: latencyLimit}
		t := v.latencyTable(prefix+"scenario "+sc.Name+" ("+load+")", &s.Total)
		if len(s.Scripts) > 1 {
			var parts []string
			for _, ss := range s.Scripts {
				parts = append(parts, fmt.Sprintf("%s %d committed", ss.Name, ss.Committed))
			}
			t.Notes = append(t.Notes, "scripts: "+strings.Join(parts, ", "))
		}
		blocks = append(blocks, t)
	}
	if total != nil {
		ov.Rows = append(ov.Rows, scenarioRow("total", "all scenarios", total))
	}
	ov.Notes = []string{"achieved = (committed + failed) / measured seconds; a closed scenario's latency understates what users see"}
	return append([]Block{ov}, blocks...)
}

func scenarioRow(name, load string, s *results.Summary) []Cell {
	target := Text(format.Rate(s.TargetRate))
	if s.TargetRate == 0 {
		target = Text("—")
	}
	t := &s.Total
	return []Cell{Text(name), Text(load), target, Text(format.Rate(s.AchievedRate)), Text(fmt.Sprint(t.Committed)),
		Text(format.MsFixed(t.Response.P50)), Text(format.MsFixed(t.Response.P99)), Text(fmt.Sprint(t.Failed)), Text(fmt.Sprint(t.Skipped + t.Dropped))}
}

// ScenarioLoad is a scenario's load in a few words: "open 300 tx/s
// poisson, 1 client, 1 thread" or "closed, 2 clients, 2 threads".
func ScenarioLoad(sc *results.Scenario) string {
	var b strings.Builder
	if sc.Kind == results.ModelOpen {
		fmt.Fprintf(&b, "open %s tx/s %s", format.Rate(sc.Rate), sc.Arrival)
		if sc.Overload != "" && sc.Overload != "queue" {
			b.WriteString(", " + sc.Overload + " on overload")
		}
	} else {
		b.WriteString("closed")
	}
	fmt.Fprintf(&b, ", %d %s, %d %s", sc.Clients, format.Plural(sc.Clients, "client", "clients"), sc.Threads, format.Plural(sc.Threads, "thread", "threads"))
	return b.String()
}
