// Package compare compares the runs of two sides (A and B: two variants of
// an experiment, or runs named on the command line) metric by metric: per
// side the median and range over runs, the typical ratio B/A with its
// Hodges–Lehmann interval, Mann-Whitney's p and a verdict that names the
// test, its level and the run counts (internal/stats Verdict): one primary
// metric at α, the others exploratory under Holm's correction (judge). Percentiles of
// different runs are never averaged: each run's percentile is one value.
// The report also lists what differs between the sides' run.json besides
// the variant (environment.go: server, settings, sizes, host, pgtrial), so
// a difference that comes from the environment is visible.
package compare

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// Options name the sides and say how they are judged.
type Options struct {
	NameA, NameB string // "A" and "B", or the variants' names
	Seed         uint64 // recorded in the report (the verdicts use no resampling)
	Top          int    // statements whose blocks per call are compared (DefaultTop)
	// Primary is the metric the comparison is about ("tps", "p99", …),
	// tested at Alpha; "" means PrimaryFor the runs' model. Every other
	// metric is exploratory (Holm's correction).
	Primary string
	Alpha   float64 // stats.DefaultAlpha when outside (0, 1)
	Margin  float64 // equivalence margin δ (0.05: ±5 %); stats.DefaultMargin when outside (0, 1)
	// VariantKnown says the caller knows what the variant is (an
	// experiment): VariantSettings are every setting the two sides'
	// variants set, left out of Report.Environment. `pgtrial compare` does
	// not know it.
	VariantKnown    bool
	VariantSettings []string
	// Rounds pairs the runs that ran together in one round of an
	// interleaved experiment (A B, A B, …): indexes into runsA and runsB,
	// in time order. When set, the primary metric is also analysed round by
	// round (Report.Paired); `pgtrial compare` of directories does not pair.
	Rounds [][2]int
}

// DefaultTop is the default number of statements whose blocks per
// call are compared.
const DefaultTop = 5

// Directions of a metric that has no better side (wait shares): B's runs
// are higher or lower than A's. They replace stats.DirBetter/DirWorse in
// that metric's verdict.
const (
	dirHigher = "higher"
	dirLower  = "lower"
)

// RunRef is one run of a side.
type RunRef struct {
	Label string       `json:"label"` // "A#1": the side's name and the run's number on its side
	Dir   string       `json:"dir"`
	Run   *results.Run `json:"-"`
	// Copied from Run for the JSON output.
	StartedAt   time.Time `json:"started_at"`
	Interrupted bool      `json:"interrupted,omitempty"`
	Aborted     bool      `json:"aborted,omitempty"`
}

// ExpandRunDirs resolves a side's directories into run directories: DIR
// itself when it holds run.json, else its direct subdirectories that hold
// one (sorted by name); an experiment directory (experiment.json and runs/)
// means the runs in its runs/; a path to a run.json file means its directory.
func ExpandRunDirs(dirs []string) ([]string, error) {
	var out []string
	for _, dir := range dirs {
		fi, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("run directory %s: %w", dir, err)
		}
		if !fi.IsDir() {
			if filepath.Base(dir) == results.RunFile {
				out = append(out, filepath.Dir(dir))
				continue
			}
			return nil, fmt.Errorf("%s is a file, not a run directory", dir)
		}
		if hasRunFile(dir) {
			out = append(out, dir)
			continue
		}
		runsOf := dir
		if IsExperimentDir(dir) {
			runsOf = filepath.Join(dir, results.ExperimentRunsDir)
		}
		entries, err := os.ReadDir(runsOf) // sorted by name
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", dir, err)
		}
		n := 0
		for _, e := range entries {
			sub := filepath.Join(runsOf, e.Name())
			if e.IsDir() && hasRunFile(sub) {
				out = append(out, sub)
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s holds no %s and none of its subdirectories does: it is not a run directory nor a directory of runs", dir, results.RunFile)
		}
	}
	return out, nil
}

// IsExperimentDir reports whether dir is an experiment's directory: it holds
// experiment.json and a runs/ directory.
func IsExperimentDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, results.ExperimentFile)); err != nil {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, results.ExperimentRunsDir))
	return err == nil && fi.IsDir()
}

func hasRunFile(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, results.RunFile))
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// LoadSide reads the runs of one side and labels them NAME#1, NAME#2, …
func LoadSide(name string, dirs []string) ([]RunRef, error) {
	paths, err := ExpandRunDirs(dirs)
	if err != nil {
		return nil, err
	}
	runs := make([]RunRef, 0, len(paths))
	for i, p := range paths {
		run, err := results.Load(p)
		if err != nil {
			return nil, err
		}
		label := fmt.Sprintf("%s#%d", name, i+1)
		if run.Summary == nil {
			return nil, fmt.Errorf("run %s (%s) has no summary: nothing was measured (it ended during its warm-up, or crashed before its end)", p, label)
		}
		runs = append(runs, RunRef{Label: label, Dir: p, Run: run,
			StartedAt: run.StartedAt, Interrupted: run.Interrupted, Aborted: run.Aborted})
	}
	return runs, nil
}

// CheckDistinct refuses a run directory named twice (on one side or both).
func CheckDistinct(runs []RunRef) error {
	seen := map[string]string{}
	for _, r := range runs {
		key, err := filepath.Abs(r.Dir)
		if err != nil {
			key = filepath.Clean(r.Dir)
		}
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("run directory %s is given twice (%s and %s): each run counts once", r.Dir, prev, r.Label)
		}
		seen[key] = r.Label
	}
	return nil
}

// runProperty is one property of a run that must be equal across the runs
// (refuse) or is worth a note when it is not (note).
type runProperty struct {
	name   string
	refuse bool
	value  func(*results.Run) string
}

var comparedProperties = []runProperty{
	{"workload", true, func(r *results.Run) string { return strconv.Quote(r.Workload.Name) }},
	{"scripts", true, func(r *results.Run) string {
		parts := make([]string, len(r.Workload.Scripts))
		for i, s := range r.Workload.Scripts {
			parts[i] = fmt.Sprintf("%s@%d", s.Name, s.Weight)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}},
	{"model", true, func(r *results.Run) string { return r.Model.Kind }},
	{"rate", true, func(r *results.Run) string { return strconv.FormatFloat(r.Model.Rate, 'g', -1, 64) + " tx/s" }},
	{"clients", true, func(r *results.Run) string { return strconv.Itoa(r.Model.Clients) }},
	{"scale", false, func(r *results.Run) string { return strconv.Itoa(r.Workload.Scale) }},
	{"latency limit", false, func(r *results.Run) string {
		return strconv.FormatFloat(r.Model.LatencyLimitMs, 'g', -1, 64) + " ms"
	}},
}

// Differences lists, per property, the distinct values among the runs
// and which runs have each: refusals (workload and load model) and notes.
func Differences(runs []RunRef) (refusals, notes []string) {
	for _, p := range comparedProperties {
		var values []string
		who := map[string][]string{}
		for _, r := range runs {
			v := p.value(r.Run)
			if _, ok := who[v]; !ok {
				values = append(values, v)
			}
			who[v] = append(who[v], r.Label)
		}
		if len(values) < 2 {
			continue
		}
		parts := make([]string, len(values))
		for i, v := range values {
			parts[i] = fmt.Sprintf("%s (%s)", v, strings.Join(who[v], ", "))
		}
		line := p.name + ": " + strings.Join(parts, "; ")
		if p.refuse {
			refusals = append(refusals, line)
		} else {
			notes = append(notes, line)
		}
	}
	return refusals, notes
}

// metricDef is one compared metric: how to read it from a run and how its
// verdict is worded.
type metricDef struct {
	name           string // in the verdict sentence: "p99"
	group          string // "throughput", "latency", "outcomes", "statements", "waits"
	unit           string // "tx/s", "ms", "%", "blocks/call"
	higherIsBetter bool
	neutral        bool // no better side: B is "higher" or "lower"
	better, worse  string
	queryID        int64
	query          string
	byText         bool
	value          func(*RunRef) float64 // NaN: the run has no value
}

// Metric is one metric's comparison (the text table's row and the
// verdict line; an element of --json's "metrics").
type Metric struct {
	Metric  string `json:"metric"`
	Group   string `json:"group"`
	Unit    string `json:"unit"`
	QueryID int64  `json:"queryid,omitempty"`
	Query   string `json:"query,omitempty"`
	// MatchedByText: the statement's queryid differs between the sides (the
	// tables were re-created: a queryid depends on table OIDs) and it was
	// matched by identical query text.
	MatchedByText bool `json:"matched_by_text,omitempty"`
	// HigherIsBetter is false for latencies, shares and blocks; Neutral
	// metrics (wait shares) have no better side: their verdict's direction
	// is "higher" or "lower" instead of "better" or "worse".
	HigherIsBetter bool `json:"higher_is_better"`
	Neutral        bool `json:"neutral,omitempty"`
	// ValuesA and ValuesB are the runs' values in the order of the runs
	// (null: the run has none, e.g. no evidence).
	ValuesA []*float64          `json:"values_a"`
	ValuesB []*float64          `json:"values_b"`
	Verdict stats.VerdictResult `json:"verdict"`
	// Few lists the runs whose quantile (a latency metric's) rests on fewer
	// than FewBeyond transactions beyond it, "A#2: 12 of 1210" (few.go).
	Few []string `json:"few_beyond,omitempty"`
	// PooledA and PooledB are the latency metrics' pooled figures (ms):
	// the percentile of all the side's transactions, its runs' histograms
	// merged (pooled.go); nil for other metrics or without histograms.
	PooledA *float64 `json:"pooled_a,omitempty"`
	PooledB *float64 `json:"pooled_b,omitempty"`
}

// Report is the whole comparison (--json's output).
type Report struct {
	NameA    string           `json:"name_a"`
	NameB    string           `json:"name_b"`
	RunsA    []RunRef         `json:"runs_a"`
	RunsB    []RunRef         `json:"runs_b"`
	Workload results.Workload `json:"workload"` // of A's first run
	Model    results.Model    `json:"model"`
	Seed     uint64           `json:"seed"`
	// Primary is the metric tested at Alpha; the other Tests − 1 are
	// exploratory, under Holm's correction. Margin is the equivalence
	// margin (0: stats.DefaultMargin).
	Primary  string          `json:"primary"`
	Tests    int             `json:"tests"`
	Alpha    float64         `json:"alpha"`
	Margin   float64         `json:"margin,omitempty"`
	Forced   []string        `json:"forced_differences,omitempty"` // what differs between runs compared with --force
	Notes    []string        `json:"notes,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	Metrics  []Metric        `json:"metrics"`
	Checks   []results.Check `json:"checks"`
	// Environment is what differs between the sides' run.json besides the
	// variant (server, settings, sizes, host, pgtrial); nil in records
	// written before it was compared.
	Environment *Environment `json:"environment,omitempty"`
	// PooledA and PooledB are how each side's latency histograms were
	// pooled (Metric.PooledA/PooledB); nil in records written before.
	PooledA *Pooled `json:"pooled_a,omitempty"`
	PooledB *Pooled `json:"pooled_b,omitempty"`
	// Paired is the primary metric analysed round by round (Options.Rounds),
	// nil when the runs were not paired.
	Paired *PairedResult `json:"paired,omitempty"`
}

// Build compares every metric of runsA and runsB.
func Build(o Options, runsA, runsB []RunRef) *Report {
	rep := &Report{
		NameA: o.NameA, NameB: o.NameB,
		RunsA: runsA, RunsB: runsB,
		Workload: runsA[0].Run.Workload,
		Model:    runsA[0].Run.Model,
		Seed:     o.Seed,
	}
	defs := summaryMetrics()
	stmts, stmtWarnings := statementMetrics(runsA, runsB, o.Top)
	defs = append(defs, stmts...)
	waits, waitWarnings := waitMetrics(runsA, runsB)
	defs = append(defs, waits...)
	rep.Metrics = judge(o, rep, defs, runsA, runsB)
	addPooled(rep, runsA, runsB)
	addFew(rep, runsA, runsB)
	if i := slices.IndexFunc(rep.Metrics, func(m Metric) bool { return m.Metric == rep.Primary }); i >= 0 && len(o.Rounds) > 0 {
		rep.Paired = paired(o, rep, &rep.Metrics[i], o.Rounds)
	}
	rep.Warnings = append(rep.Warnings, sideWarnings(rep)...)
	rep.Warnings = append(rep.Warnings, stmtWarnings...)
	rep.Warnings = append(rep.Warnings, waitWarnings...)
	rep.Checks = comparisonChecks(o, runsA, runsB)
	rep.Environment = environment(runsA, runsB, o.VariantKnown, o.VariantSettings)
	return rep
}

// PrimaryFor is the default primary metric of runs of this model: tps for
// closed runs, the p99 response for open runs (whose throughput is the
// schedule's, not the system's).
func PrimaryFor(m results.Model) string {
	if m.Kind == results.ModelOpen {
		return "p99"
	}
	return "tps"
}

// judge gives every metric its verdict: the primary (Options.Primary, else
// PrimaryFor the model) at α, every other one exploratory, with Holm's
// step-down correction over all of them (stats.Holm): the chance of any
// false "differs" among the exploratory metrics is at most α. The report
// records the primary and the number of tests.
func judge(o Options, rep *Report, defs []metricDef, runsA, runsB []RunRef) []Metric {
	alpha := o.Alpha
	if !(alpha > 0 && alpha < 1) {
		alpha = stats.DefaultAlpha
	}
	primary := o.Primary
	if primary == "" {
		primary = PrimaryFor(rep.Model)
	}
	pi := slices.IndexFunc(defs, func(d metricDef) bool { return d.name == primary })
	if pi < 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("primary metric %q is not among the compared metrics; using %s", primary, PrimaryFor(rep.Model)))
		primary = PrimaryFor(rep.Model)
		pi = slices.IndexFunc(defs, func(d metricDef) bool { return d.name == primary })
	}
	rep.Primary, rep.Alpha, rep.Margin = primary, alpha, o.Margin
	type values struct {
		a, b   []float64
		va, vb []*float64
	}
	vals := make([]values, len(defs))
	var ps []float64
	var secondary []int
	for i, d := range defs {
		a, va := metricValues(d, runsA)
		b, vb := metricValues(d, runsB)
		vals[i] = values{a, b, va, vb}
		if i != pi {
			ps = append(ps, stats.MannWhitney(a, b).P)
			secondary = append(secondary, i)
		}
	}
	steps := stats.Holm(ps, alpha)
	holm := make(map[int]*stats.HolmStep, len(secondary))
	for k, i := range secondary {
		holm[i] = &steps[k]
	}
	rep.Tests = len(defs)
	out := make([]Metric, len(defs))
	for i, d := range defs {
		cfg := stats.VerdictConfig{
			Metric:         d.name,
			HigherIsBetter: d.higherIsBetter,
			NameB:          o.NameB,
			Better:         d.better,
			Worse:          d.worse,
			Alpha:          alpha,
			Margin:         o.Margin,
			Role:           stats.RolePrimary,
		}
		if i != pi {
			cfg.Role, cfg.Holm = stats.RoleExploratory, holm[i]
		}
		v := stats.Verdict(cfg, vals[i].a, vals[i].b)
		if d.neutral && v.Direction != stats.DirNone {
			v.Direction = dirLower
			if v.BHigher {
				v.Direction = dirHigher
			}
		}
		out[i] = Metric{
			Metric: d.name, Group: d.group, Unit: d.unit,
			QueryID: d.queryID, Query: d.query, MatchedByText: d.byText,
			HigherIsBetter: d.higherIsBetter, Neutral: d.neutral,
			ValuesA: vals[i].va, ValuesB: vals[i].vb, Verdict: v,
		}
	}
	return out
}

// metricValues reads d from every run: the values for the statistics (NaN
// where a run has none: stats ignores non-finite values) and for JSON.
func metricValues(d metricDef, runs []RunRef) ([]float64, []*float64) {
	vals := make([]float64, len(runs))
	ptrs := make([]*float64, len(runs))
	for i := range runs {
		vals[i] = d.value(&runs[i])
		if !math.IsNaN(vals[i]) && !math.IsInf(vals[i], 0) {
			v := vals[i]
			ptrs[i] = &v
		}
	}
	return vals, ptrs
}

// summaryMetrics are the metrics of every run's summary (Summary.Total).
func summaryMetrics() []metricDef {
	lat := func(name string, get func(*results.Percentiles) float64) metricDef {
		return metricDef{name: name, group: "latency", unit: "ms", better: "faster", worse: "slower",
			value: func(r *RunRef) float64 { return get(&r.Run.Summary.Total.Response) }}
	}
	return []metricDef{
		{name: "tps", group: "throughput", unit: "tx/s", higherIsBetter: true, better: "faster", worse: "slower",
			value: func(r *RunRef) float64 { return r.Run.Summary.Total.TPS }},
		lat("p50", func(p *results.Percentiles) float64 { return p.P50 }),
		lat("p95", func(p *results.Percentiles) float64 { return p.P95 }),
		lat("p99", func(p *results.Percentiles) float64 { return p.P99 }),
		lat("p99.9", func(p *results.Percentiles) float64 { return p.P999 }),
		lat("max", func(p *results.Percentiles) float64 { return p.Max }),
		{name: "skipped+dropped %", group: "outcomes", unit: "%",
			value: func(r *RunRef) float64 { return 100 * excludedShare(&r.Run.Summary.Total) }},
		{name: "failed %", group: "outcomes", unit: "%",
			value: func(r *RunRef) float64 { return 100 * failedShare(&r.Run.Summary.Total) }},
	}
}

// failedShare is the share of the transactions taken that failed (errors
// under --continue-on-error, retries exhausted): failed / (committed +
// skipped + failed), the summary's failed_share, 0 when none was taken.
func failedShare(s *results.ScriptSummary) float64 {
	taken := s.Committed + s.Skipped + s.Failed
	if taken <= 0 {
		return 0
	}
	return float64(s.Failed) / float64(taken)
}

// excludedShare is the share of the scheduled transactions that were never
// measured: (skipped + dropped) / (committed + skipped + failed + dropped),
// 0 when nothing was scheduled.
func excludedShare(s *results.ScriptSummary) float64 {
	scheduled := s.Committed + s.Skipped + s.Failed + s.Dropped
	if scheduled <= 0 {
		return 0
	}
	return float64(s.Skipped+s.Dropped) / float64(scheduled)
}

// stmtGroup is one statement across the runs.
type stmtGroup struct {
	queryID  int64
	query    string
	byText   bool
	perRun   map[string]float64 // run label → shared blocks (hit + read) per call
	share    float64            // Σ over runs of the statement's share of execution time
	nA, nB   int
	position int // first appearance, for a stable order
}

// statementMetrics picks the top statements (by their summed share of
// execution time over all runs) that ran on both sides and compares their
// shared blocks per call (hit + read: the work per call, which is stable
// when timings are noisy; DESIGN §7). Statements are matched by queryid;
// one whose queryid is on one side only is matched by identical query text
// when exactly one statement of the other side has it. The warnings name
// top statements that ran on one side only.
func statementMetrics(runsA, runsB []RunRef, top int) ([]metricDef, []string) {
	if top == 0 {
		return nil, nil
	}
	groups := map[int64]*stmtGroup{}
	var order []*stmtGroup
	add := func(runs []RunRef, sideA bool) {
		for _, r := range runs {
			ev := r.Run.Evidence
			if ev == nil {
				continue
			}
			for _, s := range ev.Statements {
				g := groups[s.QueryID]
				if g == nil {
					g = &stmtGroup{queryID: s.QueryID, query: s.Query, perRun: map[string]float64{}, position: len(order)}
					groups[s.QueryID] = g
					order = append(order, g)
				}
				if _, dup := g.perRun[r.Label]; !dup {
					if sideA {
						g.nA++
					} else {
						g.nB++
					}
				}
				g.perRun[r.Label] = s.SharedHitPerCall + s.SharedReadPerCall
				g.share += s.Share
			}
		}
	}
	add(runsA, true)
	add(runsB, false)
	order = matchStatementsByText(order)

	sort.SliceStable(order, func(i, j int) bool {
		if order[i].share != order[j].share {
			return order[i].share > order[j].share
		}
		return order[i].position < order[j].position
	})
	var defs []metricDef
	var warnings []string
	for _, g := range order {
		if len(defs) == top {
			break
		}
		if g.nA == 0 || g.nB == 0 {
			side := "A's"
			if g.nA == 0 {
				side = "B's"
			}
			warnings = append(warnings, fmt.Sprintf("statement queryid %d ran in %s runs only (not compared): %s", g.queryID, side, format.OneLine(g.query, 70)))
			continue
		}
		perRun := g.perRun
		defs = append(defs, metricDef{
			name:  fmt.Sprintf("blocks/call s%d", len(defs)+1),
			group: "statements", unit: "blocks/call",
			queryID: g.queryID, query: g.query, byText: g.byText,
			value: func(r *RunRef) float64 {
				if v, ok := perRun[r.Label]; ok {
					return v
				}
				return math.NaN()
			},
		})
	}
	return defs, warnings
}

// matchStatementsByText merges a statement seen on one side only into the
// statement with the same query text seen on the other side only, when
// that text is unique among such statements on each side (a queryid
// depends on the OIDs of the tables, so re-created tables change it).
func matchStatementsByText(order []*stmtGroup) []*stmtGroup {
	onlyA := map[string][]*stmtGroup{}
	onlyB := map[string][]*stmtGroup{}
	for _, g := range order {
		text := strings.Join(strings.Fields(g.query), " ")
		switch {
		case text == "":
		case g.nB == 0:
			onlyA[text] = append(onlyA[text], g)
		case g.nA == 0:
			onlyB[text] = append(onlyB[text], g)
		}
	}
	merged := map[*stmtGroup]bool{}
	for text, as := range onlyA {
		bs := onlyB[text]
		if len(as) != 1 || len(bs) != 1 {
			continue
		}
		a, b := as[0], bs[0]
		for label, v := range b.perRun {
			a.perRun[label] = v
		}
		a.nB, a.share, a.byText = b.nB, a.share+b.share, true
		merged[b] = true
	}
	out := order[:0]
	for _, g := range order {
		if !merged[g] {
			out = append(out, g)
		}
	}
	return out
}

// waitMetrics compares the share (in per cent) of the samples of active
// client backends in each wait_event_type ("CPU": active without a wait
// event), for the types seen in any run. The shares are Evidence.WaitTypes,
// every sample's type, never the sum of the top events of Evidence.Waits
// (cut at collect.EvidenceTopWaits: a type whose event ranked 6th would get
// 0 %). A run with shares by type but none of a type has 0 %; a run without
// them has no value (NaN): no wait samples, or a run directory written
// before the shares by type were recorded (top events only), which the
// warnings name.
func waitMetrics(runsA, runsB []RunRef) ([]metricDef, []string) {
	typeShare := func(r *results.Run) map[string]float64 {
		if r.Evidence == nil || len(r.Evidence.WaitTypes) == 0 {
			return nil
		}
		return r.Evidence.WaitTypes
	}
	var older []string
	for _, r := range append(slices.Clone(runsA), runsB...) {
		if ev := r.Run.Evidence; ev != nil && len(ev.Waits) > 0 && len(ev.WaitTypes) == 0 {
			older = append(older, r.Label)
		}
	}
	var warnings []string
	if len(older) > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: %s no wait shares by wait_event_type (written before they were recorded: only the top wait events): "+
			"left out of the wait metrics, not counted as 0 %%", strings.Join(older, ", "), format.Plural(len(older), "has", "have")))
	}
	total := map[string]float64{}
	var types []string
	inA, inB := false, false
	for i, r := range append(slices.Clone(runsA), runsB...) {
		m := typeShare(r.Run)
		if m == nil {
			continue
		}
		if i < len(runsA) {
			inA = true
		} else {
			inB = true
		}
		for t, s := range m {
			if _, ok := total[t]; !ok {
				types = append(types, t)
			}
			total[t] += s
		}
	}
	if !inA || !inB {
		return nil, warnings
	}
	sort.SliceStable(types, func(i, j int) bool {
		if total[types[i]] != total[types[j]] {
			return total[types[i]] > total[types[j]]
		}
		return types[i] < types[j]
	})
	defs := make([]metricDef, 0, len(types))
	for _, t := range types {
		defs = append(defs, metricDef{
			name: t + " wait %", group: "waits", unit: "%",
			neutral: true, better: dirLower, worse: dirHigher,
			value: func(r *RunRef) float64 {
				m := typeShare(r.Run)
				if m == nil {
					return math.NaN()
				}
				return 100 * m[t]
			},
		})
	}
	return defs, warnings
}

// sideWarnings are the warnings about the design of the comparison: too
// few runs, interrupted runs, closed-model latency.
func sideWarnings(rep *Report) []string {
	var w []string
	nA, nB := len(rep.RunsA), len(rep.RunsB)
	floor := stats.NonOverlap(make([]float64, nA), make([]float64, nB)).ErrorRate // 2/C(m+n, m)
	switch {
	case nA == 1 || nB == 1:
		w = append(w, fmt.Sprintf("%d vs %d runs: one run a side cannot separate a difference from noise: "+
			"how much runs of the same setup differ is unknown, so any difference may be noise; "+
			"repeat each side at least 4 times, interleaved (pgtrial experiment)", nA, nB))
	case floor >= stats.DefaultAlpha:
		w = append(w, fmt.Sprintf("%d vs %d runs: the smallest p-value the rank test can give is 2/C(%d, %d) = %.3g, "+
			"not below %.2g: no difference can be declared; 4 vs 4 runs is the smallest design that can (p = 0.029)",
			nA, nB, nA+nB, nA, floor, stats.DefaultAlpha))
	}
	for _, r := range append(slices.Clone(rep.RunsA), rep.RunsB...) {
		switch {
		case r.Run.Interrupted:
			w = append(w, fmt.Sprintf("%s (%s) was interrupted (%s): its measured window is shorter than planned", r.Label, r.Dir, r.Run.InterruptReason))
		case r.Run.Aborted:
			w = append(w, fmt.Sprintf("%s (%s) had clients abort: its results are incomplete", r.Label, r.Dir))
		}
	}
	if rep.Model.Kind == results.ModelClosed {
		w = append(w, "closed model: the latencies are service times (each client waits for its previous transaction, "+
			"so a stall lowers the load instead of showing as latency); compare user-facing latency from open-model runs (--rate)")
	}
	return w
}

// comparisonChecks is the comparison's checklist: each item of the runs' own
// checklists with its worst status over the runs (checks.Combine), and the
// experiment items: at least 3 runs a side and the runs interleaved in time.
func comparisonChecks(o Options, runsA, runsB []RunRef) []results.Check {
	all := append(slices.Clone(runsA), runsB...)
	labeled := make([]checks.Labeled, 0, len(all))
	for _, r := range all {
		if len(r.Run.Checks) > 0 {
			labeled = append(labeled, checks.Labeled{Label: r.Label, Checks: r.Run.Checks})
		}
	}
	byTime := slices.Clone(all)
	sort.SliceStable(byTime, func(i, j int) bool { return byTime[i].StartedAt.Before(byTime[j].StartedAt) })
	inB := map[string]bool{}
	for _, r := range runsB {
		inB[r.Label] = true
	}
	order := make([]string, len(byTime))
	for i, r := range byTime {
		order[i] = o.NameA
		if inB[r.Label] {
			order[i] = o.NameB
		}
	}
	return checks.Replace(checks.Combine(labeled),
		checks.Repeats([]checks.VariantRuns{{Variant: o.NameA, Runs: len(runsA)}, {Variant: o.NameB, Runs: len(runsB)}}),
		checks.Interleaving(order))
}
