package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// experimentScenarioBlocks are an experiment's concurrent scenarios
// (experiment.json's scenarios and each run's): one table, a row per
// variant, ramp level and scenario, with the scenario's clients and rate at
// that level and its tps, p50 and p99 as median (min–max) over the
// repeats; the file's scenarios are its note. None without scenarios.
func experimentScenarioBlocks(rec *experiment.Record) []Block {
	if len(rec.Scenarios) == 0 {
		return nil
	}
	ramp := rec.Model == "ramp"
	type rowKey struct {
		variant string
		level   float64
		name    string
	}
	type figures struct {
		clients, rate, tps, p50, p99 []float64
	}
	rows := map[rowKey]*figures{}
	var levels []float64
	for i := range rec.Runs {
		r := &rec.Runs[i]
		if r.Error != "" && r.TPS == 0 {
			continue // failed before committing anything
		}
		for _, sc := range r.Scenarios {
			k := rowKey{r.Variant, r.Level, sc.Name}
			f := rows[k]
			if f == nil {
				f = &figures{}
				rows[k] = f
			}
			f.clients, f.rate = append(f.clients, float64(sc.Clients)), append(f.rate, sc.Rate)
			f.tps, f.p50, f.p99 = append(f.tps, sc.TPS), append(f.p50, sc.P50), append(f.p99, sc.P99)
		}
		if !slices.Contains(levels, r.Level) {
			levels = append(levels, r.Level)
		}
	}
	slices.Sort(levels)
	head := []string{"variant"}
	if ramp {
		head = append(head, "level")
	}
	t := &Table{Title: "scenarios (median (min–max) over the repeats):",
		Head: append(head, "scenario", "clients", "rate tx/s", "runs", "tps", "p50 ms", "p99 ms")}
	count := func(v float64) string { return strconv.Itoa(int(v)) }
	for _, v := range rec.Variants {
		for _, level := range levels {
			for _, sc := range rec.Scenarios {
				f := rows[rowKey{v.Name, level, sc.Name}]
				if f == nil {
					continue
				}
				row := []Cell{Text(v.Name)}
				if ramp {
					row = append(row, Text(format.Sig3(level)))
				}
				rate := Text("closed")
				if sc.Kind == results.ModelOpen {
					rate = Text(loadSpread(f.rate, format.Sig3))
				}
				row = append(row, Text(sc.Name), Text(loadSpread(f.clients, count)), rate, Text(strconv.Itoa(len(f.tps))),
					Text(format.Spread(f.tps, format.Rate)), Text(format.Spread(f.p50, format.Ms)), Text(format.Spread(f.p99, format.Ms)))
				t.Rows = append(t.Rows, row)
			}
		}
	}
	var plan []string
	for _, sc := range rec.Scenarios {
		plan = append(plan, sc.Name+": "+scenarioPlanText(&sc))
	}
	t.Notes = []string{"the file's scenarios: " + strings.Join(plan, "; ") +
		"; a closed scenario's latency understates what users see"}
	if ramp {
		t.Notes = append(t.Notes, "a ramp scales the scenarios together: by clients, each level's clients split in the scenarios' proportions; by rate, the open scenarios share each level's rate")
	}
	return []Block{t}
}

// loadSpread is a load's values over the repeats: the one value when they
// agree (a level's load is the same in every repeat), else format.Spread.
func loadSpread(vals []float64, f func(float64) string) string {
	if len(vals) > 0 && slices.Min(vals) == slices.Max(vals) {
		return f(vals[0])
	}
	return format.Spread(vals, f)
}

// scenarioPlanText is a scenario of the file in a few words:
// "select-only, open 50 tx/s uniform, 2 clients".
func scenarioPlanText(sc *experiment.ScenarioRecord) string {
	load := "closed"
	if sc.Kind == results.ModelOpen {
		load = fmt.Sprintf("open %s tx/s %s", format.Sig3(sc.Rate), sc.Arrival)
		if sc.Overload != "" && sc.Overload != "queue" {
			load += ", " + sc.Overload + " on overload"
		}
	}
	return fmt.Sprintf("%s, %s, %d %s", sc.Workload, load, sc.Clients, format.Plural(sc.Clients, "client", "clients"))
}

// scenariosModelText is the header's load model with scenarios: "2
// concurrent scenarios (table below), 3 clients" or "ramp of 2 concurrent
// scenarios"; "" without.
func scenariosModelText(rec *experiment.Record) string {
	n := len(rec.Scenarios)
	switch {
	case n == 0:
		return ""
	case rec.Model == "ramp":
		return fmt.Sprintf("ramp of %d concurrent scenarios (table below)", n)
	}
	return fmt.Sprintf("%d concurrent scenarios (table below), %d clients", n, rec.Clients)
}
