package experiment

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"text/tabwriter"

	"github.com/pgtrial/pgtrial/internal/capacity"
	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// WriteText prints the experiment's summary: what ran, each variant's
// figures as median (min–max) over its repeats, the verdicts of every
// variant against the first, the ramp's levels, the capacity search, the
// SLOs, the checklist and the warnings.
func WriteText(w io.Writer, rec *Record, dir string) {
	fmt.Fprintf(w, "experiment %s", rec.Name)
	if rec.Description != "" {
		fmt.Fprintf(w, ": %s", rec.Description)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %s", rec.Workload)
	if rec.Scale > 0 {
		fmt.Fprintf(w, " (scale %d)", rec.Scale)
	}
	fmt.Fprintf(w, " on %s:%d/%s (PostgreSQL %s); %s", rec.Target.Host, rec.Target.Port, rec.Target.Database, rec.Target.ServerVersion, modelText(rec))
	repeats := "repeats"
	if rec.Repeats == 1 {
		repeats = "repeat"
	}
	if rec.Model == "ramp" && rec.StepS > 0 {
		// Each level is a run measured for the step duration; the
		// protocol's window is not used.
		fmt.Fprintf(w, "\n  warm-up %gs before the first step, %gs per step, %d %s per variant", rec.WarmupS, rec.StepS, rec.Repeats, repeats)
	} else {
		fmt.Fprintf(w, "\n  warm-up %gs, window %gs, %d %s per variant", rec.WarmupS, rec.WindowS, rec.Repeats, repeats)
	}
	if len(rec.Variants) > 1 {
		if rec.Interleave {
			fmt.Fprint(w, ", interleaved")
		} else {
			fmt.Fprint(w, ", not interleaved")
		}
	}
	fmt.Fprintf(w, ", seed %d\n", rec.Seed)
	for _, inj := range rec.Injections {
		fmt.Fprintf(w, "  injection: %s", inj.Kind)
		if inj.Table != "" {
			fmt.Fprintf(w, " %s", inj.Table)
		}
		fmt.Fprintf(w, " at %gs", inj.AtS)
		if inj.DurationS > 0 {
			fmt.Fprintf(w, " for %gs", inj.DurationS)
		}
		fmt.Fprintln(w)
	}

	if rec.Search == nil && len(rec.Ramp) == 0 {
		writeVariantTable(w, rec)
	}
	for _, c := range rec.Comparisons {
		fmt.Fprintf(w, "\n%s against %s (%d vs %d runs):\n", c.NameB, c.NameA, len(c.RunsB), len(c.RunsA))
		for _, m := range c.Metrics {
			if m.Group == "statements" || m.Group == "waits" {
				if m.Verdict.Direction == stats.DirNone {
					continue // only the differences among the evidence
				}
			}
			fmt.Fprintf(w, "  %-18s %s\n", m.Metric, m.Verdict.Text)
		}
	}
	if len(rec.Ramp) > 0 {
		writeRamp(w, rec)
	}
	if rec.Search != nil {
		fmt.Fprintln(w)
		capacity.Write(w, rec.Search)
	}
	if len(rec.SLOs) > 0 {
		fmt.Fprintln(w, "\nSLOs (median over the repeats; worst run):")
		for _, s := range rec.SLOs {
			met := "met"
			switch {
			case !s.Met:
				met = "MISSED"
			case !s.AllMet:
				met = "met by the median, missed by a run"
			}
			fmt.Fprintf(w, "  %-12s %s at %.6g tx/s: %s ms (worst %s ms): %s\n", s.Variant, s.SLO, s.Rate, ms(s.Median), ms(s.Worst), met)
		}
	}
	if len(rec.Checks) > 0 {
		fmt.Fprintln(w, "\nchecklist:")
		fmt.Fprint(w, checks.Text(rec.Checks))
	}
	for _, wn := range rec.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	if rec.Error != "" {
		fmt.Fprintf(w, "ended early: %s\n", rec.Error)
	}
	fmt.Fprintf(w, "\nexperiment directory: %s (%s, runs in %s/)\n", dir, File, RunsDir)
}

func modelText(rec *Record) string {
	switch rec.Model {
	case "open":
		return fmt.Sprintf("open model at %.6g tx/s, %d clients", rec.Rate, rec.Clients)
	case "closed":
		return fmt.Sprintf("closed model, %d clients", rec.Clients)
	case "ramp":
		return "ramp"
	case "search":
		return fmt.Sprintf("capacity search, %d clients", rec.Clients)
	}
	return rec.Model
}

// spread is "median (min–max)" of vals, each formatted by f.
func spread(vals []float64, f func(float64) string) string {
	if len(vals) == 0 {
		return "–"
	}
	s := stats.Summarize(vals)
	if s.N == 1 {
		return f(s.Median)
	}
	return f(s.Median) + " (" + f(s.Min) + "–" + f(s.Max) + ")"
}

// ms formats milliseconds with 3 significant digits and no exponent.
func ms(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func tpsText(v float64) string { return fmt.Sprintf("%.1f", v) }
func pctText(v float64) string { return fmt.Sprintf("%.2f", v) }

// writeVariantTable prints each variant's figures over its repeats.
func writeVariantTable(w io.Writer, rec *Record) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\truns\ttps\tp50 ms\tp95 ms\tp99 ms\tp99.9 ms\tskipped+dropped %\t")
	for _, v := range rec.Variants {
		var tps, p50, p95, p99, p999, sk []float64
		n := 0
		for _, r := range rec.Runs {
			if r.Variant != v.Name || (r.Error != "" && r.TPS == 0) {
				continue
			}
			n++
			tps, p50, p95, p99, p999 = append(tps, r.TPS), append(p50, r.P50), append(p95, r.P95), append(p99, r.P99), append(p999, r.P999)
			sk = append(sk, 100*r.SkippedShare)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", v.Name, n, spread(tps, tpsText), spread(p50, ms), spread(p95, ms),
			spread(p99, ms), spread(p999, ms), spread(sk, pctText))
	}
	tw.Flush()
}

// writeRamp prints the ramp's levels with the waits by type.
func writeRamp(w io.Writer, rec *Record) {
	types := map[string]bool{}
	for _, l := range rec.Ramp {
		for k := range l.Waits {
			types[k] = true
		}
	}
	var names []string
	for k := range types {
		names = append(names, k)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "\nramp (median over the repeats; waits: share of the samples of active sessions):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "variant\tlevel\truns\ttps\tp50 ms\tp99 ms\tcalls/s\trows/s\t"
	for _, n := range names {
		head += n + " %\t"
	}
	fmt.Fprintln(tw, head)
	var reasons []string // why calls/s and rows/s are "—", each once
	for _, l := range rec.Ramp {
		calls, rows := fmt.Sprintf("%.0f", l.CallsPerSec), fmt.Sprintf("%.0f", l.RowsPerSec)
		if l.StatementsMissing != "" {
			calls, rows = "—", "—"
			if !slices.Contains(reasons, l.StatementsMissing) {
				reasons = append(reasons, l.StatementsMissing)
			}
		}
		line := fmt.Sprintf("%s\t%.6g\t%d\t%.1f\t%s\t%s\t%s\t%s\t", l.Variant, l.Level, len(l.Runs), l.TPS, ms(l.P50), ms(l.P99), calls, rows)
		for _, n := range names {
			line += fmt.Sprintf("%.1f\t", 100*l.Waits[n])
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	for _, r := range reasons {
		fmt.Fprintf(w, "  calls/s, rows/s —: %s\n", r)
	}
}
