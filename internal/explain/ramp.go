package explain

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// Ramp is a ramp's analysis: per level and variant its speed, latency,
// waits, OS and disk figures; trends over the levels; the knee.
type Ramp struct {
	By     string    `json:"by"` // "clients" or "rate"
	Levels []float64 `json:"levels"`
	// Cells are one per variant and level, in the variants' order, levels
	// increasing.
	Cells  []*RampCell `json:"cells"`
	Trends []*Trend    `json:"trends,omitempty"`
	Knees  []*Knee     `json:"knees,omitempty"`
}

// RampCell is one variant at one level over its repeats.
type RampCell struct {
	Variant string   `json:"variant"`
	Level   float64  `json:"level"`
	Runs    []string `json:"runs"` // the run directories' names
	// Figures are each figure as the median over the repeats with min and
	// max (a missing one with its reason), in a fixed order: speed, tps,
	// latency, waits by type, by event, vmstat, disk.
	Figures []Stat `json:"figures"`
	// TopByTime and TopByBlocks are the statements with the most
	// execution time and the most shared blocks over the repeats.
	TopByTime   []TopStatement `json:"top_by_time,omitempty"`
	TopByBlocks []TopStatement `json:"top_by_blocks,omitempty"`
}

// Stat is one figure over a level's repeats: the median of the runs' values
// with their min and max. N = 0 means missing: Missing says why; with N > 0
// and Missing set, Of − N of the runs lack it for that reason.
type Stat struct {
	Name    string  `json:"name"`
	Unit    string  `json:"unit"`
	Median  float64 `json:"median"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	N       int     `json:"n"`
	Of      int     `json:"of"` // the level's runs
	Missing string  `json:"missing,omitempty"`
}

// Figure is the cell's figure called name (nil when the cell has none).
func (c *RampCell) Figure(name string) *Stat {
	for i := range c.Figures {
		if c.Figures[i].Name == name {
			return &c.Figures[i]
		}
	}
	return nil
}

// TopStatement is one statement over a level's repeats (pg_stat_statements
// deltas summed over the runs).
type TopStatement struct {
	QueryID       int64   `json:"queryid"`
	Query         string  `json:"query"` // redacted (results.RedactSQL)
	CallsPerS     float64 `json:"calls_per_s"`
	MeanMs        float64 `json:"mean_ms"`
	Share         float64 `json:"share"`           // of the execution time of the listed statements, 0..1
	BlocksPerCall float64 `json:"blocks_per_call"` // shared hit + read per call
	BlocksPerS    float64 `json:"blocks_per_s"`
}

// Trend is one figure of one variant against the load level: the least
// squares line over the runs (each run a point, x = its level; the levels,
// not the seconds, are the unit), its slope with a 95 % interval
// (slope ± t(0.975, n−2)·SE) and R².
type Trend struct {
	Variant   string  `json:"variant"`
	Figure    string  `json:"figure"`
	Unit      string  `json:"unit"`
	Slope     float64 `json:"slope"` // unit per unit of load (client or tx/s)
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	Intercept float64 `json:"intercept"`
	R2        float64 `json:"r2"`
	P         float64 `json:"p"` // t test of slope = 0 (OLS, independent runs)
	N         int     `json:"n"` // runs
	OK        bool    `json:"ok"`
	Reason    string  `json:"reason,omitempty"`
}

// KneeRule is how the knee is found, said with every knee.
const KneeRule = "the knee is the first level L_i after which the response p99 rises faster than the load: " +
	"its elasticity e = ln(p99_{i+1}/p99_i) / ln(L_{i+1}/L_i) between consecutive levels exceeds 1 " +
	"(p99 the median over the level's repeats; a rule on medians, not a test)"

// Knee is one variant's knee, or the statement that there is none in the
// levels measured.
type Knee struct {
	Variant  string        `json:"variant"`
	Rule     string        `json:"rule"`
	Found    bool          `json:"found"`
	Level    float64       `json:"level,omitempty"` // L_i: the last level before latency outgrows load
	Next     float64       `json:"next,omitempty"`  // L_{i+1}
	Segments []KneeSegment `json:"segments"`
	Text     string        `json:"text"`
}

// KneeSegment is the elasticity of p99 (and of tps) between two
// consecutive levels.
type KneeSegment struct {
	From       float64 `json:"from"`
	To         float64 `json:"to"`
	P99From    float64 `json:"p99_from"`
	P99To      float64 `json:"p99_to"`
	Elasticity float64 `json:"elasticity"` // of p99
	// TPSElasticity is d ln tps / d ln level: 1 = tps grows with the load,
	// 0 = flat, < 0 = falls.
	TPSElasticity float64 `json:"tps_elasticity"`
}

// ramp analyses a ramp (nil for a fixed load).
func ramp(in *ExperimentInput, cfg Config) (*Ramp, []string) {
	_ = cfg
	if in == nil || len(in.Levels) == 0 {
		return nil, nil
	}
	var warnings []string
	figs := measureAll(in)
	rp := &Ramp{By: in.By, Levels: slices.Clone(in.Levels)}
	for _, v := range in.Variants {
		var vr []*runFigures
		for _, level := range in.Levels {
			runs := cellRuns(figs, v, level)
			if len(runs) == 0 {
				warnings = append(warnings, fmt.Sprintf("ramp: variant %s has no completed run at level %s", v, format.Sig3(level)))
				continue
			}
			rp.Cells = append(rp.Cells, makeCell(v, level, runs))
			vr = append(vr, runs...)
		}
		rp.Trends = append(rp.Trends, trends(v, vr, in.Levels)...)
		rp.Knees = append(rp.Knees, knee(v, rp.cells(v)))
	}
	if len(rp.Cells) == 0 {
		return nil, warnings
	}
	return rp, warnings
}

// cells are variant v's cells, levels increasing.
func (r *Ramp) cells(v string) []*RampCell {
	var out []*RampCell
	for _, c := range r.Cells {
		if c.Variant == v {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Level < out[j].Level })
	return out
}

// measureAll is every run's figures, keyed by variant.
func measureAll(in *ExperimentInput) map[string][]*runFigures {
	out := map[string][]*runFigures{}
	for _, r := range in.Runs {
		if r.Run == nil || r.Run.Summary == nil {
			continue
		}
		out[r.Variant] = append(out[r.Variant], measureRun(r))
	}
	return out
}

// cellRuns are variant v's runs at level.
func cellRuns(figs map[string][]*runFigures, v string, level float64) []*runFigures {
	var out []*runFigures
	for _, f := range figs[v] {
		if f.level == level {
			out = append(out, f)
		}
	}
	return out
}

// figureOrder is the order of the figures over runs: speed, tps, latency,
// waits by type (most first), events, vmstat, disk.
func figureOrder(runs []*runFigures) []string {
	rank := func(name string) int {
		switch {
		case name == FigCalls || name == FigRows:
			return 0
		case name == FigTPS || name == FigP50 || name == FigP95 || name == FigP99:
			return 1
		case strings.HasPrefix(name, "wait "):
			return 2
		case strings.HasPrefix(name, "event "):
			return 3
		case name == FigDiskUtil || name == FigDiskAwait:
			return 5
		}
		return 4
	}
	total := map[string]float64{}
	var names []string
	for _, r := range runs {
		for _, n := range r.order {
			if _, ok := total[n]; !ok {
				names = append(names, n)
				total[n] = 0
			}
			if v, ok := r.values[n]; ok && (rank(n) == 2 || rank(n) == 3) {
				total[n] += v
			}
		}
	}
	sort.SliceStable(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		if ri == 2 || ri == 3 {
			return total[names[i]] > total[names[j]]
		}
		return false
	})
	return names
}

// makeCell summarises one variant's runs at one level.
func makeCell(v string, level float64, runs []*runFigures) *RampCell {
	c := &RampCell{Variant: v, Level: level}
	for _, r := range runs {
		c.Runs = append(c.Runs, r.label)
	}
	for _, name := range figureOrder(runs) {
		c.Figures = append(c.Figures, summarise(name, runs))
	}
	c.TopByTime, c.TopByBlocks = topStatements(runs, 3)
	return c
}

// summarise is one figure over the runs: median, min, max of the values
// (a wait share that a run with samples lacks counts as 0), or missing with
// the runs' reasons.
func summarise(name string, runs []*runFigures) Stat {
	s := Stat{Name: name, Of: len(runs)}
	var vals []float64
	var why []string
	for _, r := range runs {
		if k, ok := r.kinds[name]; ok && s.Unit == "" {
			s.Unit = k.unit
		}
		v := r.value(name)
		if math.IsNaN(v) && (strings.HasPrefix(name, "wait ") || strings.HasPrefix(name, "event ")) && strings.HasSuffix(name, " %") {
			v = r.waitShare(name)
		}
		if math.IsNaN(v) {
			if m := r.missing[name]; m != "" && !slices.Contains(why, m) {
				why = append(why, m)
			}
			continue
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		s.Missing = strings.Join(why, "; ")
		if s.Missing == "" {
			s.Missing = "not measured in these runs"
		}
		return s
	}
	s.N = len(vals)
	if s.N < s.Of {
		s.Missing = strings.Join(why, "; ")
	}
	s.Median = stats.Median(vals)
	s.Min, s.Max = slices.Min(vals), slices.Max(vals)
	return s
}

// topStatements are the n statements with the most execution time and
// the n with the most shared blocks (hit + read), summed over the runs.
func topStatements(runs []*runFigures, n int) (byTime, byBlocks []TopStatement) {
	type acc struct {
		TopStatement
		calls, ms, blocks float64
	}
	m := map[int64]*acc{}
	var order []*acc
	var secs, totalMs float64
	for _, r := range runs {
		secs += r.secs
		for _, s := range r.stmts {
			a := m[s.QueryID]
			if a == nil {
				a = &acc{TopStatement: TopStatement{QueryID: s.QueryID, Query: results.RedactSQL(s.Query)}}
				m[s.QueryID] = a
				order = append(order, a)
			}
			a.calls += float64(s.Calls)
			a.ms += s.TotalMs
			a.blocks += (s.SharedHitPerCall + s.SharedReadPerCall) * float64(s.Calls)
			totalMs += s.TotalMs
		}
	}
	if len(order) == 0 || secs <= 0 {
		return nil, nil
	}
	for _, a := range order {
		a.CallsPerS = a.calls / secs
		a.BlocksPerS = a.blocks / secs
		if a.calls > 0 {
			a.MeanMs = a.ms / a.calls
			a.BlocksPerCall = a.blocks / a.calls
		}
		if totalMs > 0 {
			a.Share = a.ms / totalMs
		}
	}
	pick := func(less func(a, b *acc) bool) []TopStatement {
		s := slices.Clone(order)
		sort.SliceStable(s, func(i, j int) bool { return less(s[i], s[j]) })
		var out []TopStatement
		for _, a := range s[:min(n, len(s))] {
			out = append(out, a.TopStatement)
		}
		return out
	}
	return pick(func(a, b *acc) bool { return a.ms > b.ms }), pick(func(a, b *acc) bool { return a.blocks > b.blocks })
}

// trendFigures are the figures whose trend over the ramp is fitted: speed,
// tps, latency, each wait type's share, the vmstat columns and the disk.
func trendFigures(runs []*runFigures) []string {
	var out []string
	for _, n := range figureOrder(runs) {
		if strings.HasPrefix(n, "event ") || (strings.HasPrefix(n, "wait ") && strings.HasSuffix(n, " sessions")) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// trends fits every trend figure of variant v against the level, each run
// a point (stats.LinearFit: the runs are independent, not a series).
func trends(v string, runs []*runFigures, levels []float64) []*Trend {
	if len(levels) < 2 || len(runs) < 3 {
		return nil
	}
	var out []*Trend
	for _, name := range trendFigures(runs) {
		var x, y []float64
		unit := ""
		for _, r := range runs {
			val := r.value(name)
			if math.IsNaN(val) && strings.HasPrefix(name, "wait ") {
				val = r.waitShare(name)
			}
			if k, ok := r.kinds[name]; ok {
				unit = k.unit
			}
			if !math.IsNaN(val) {
				x, y = append(x, r.level), append(y, val)
			}
		}
		out = append(out, fitTrend(v, name, unit, x, y))
	}
	return out
}

// fitTrend is LinearFit of y on x with the slope's 95 % interval.
func fitTrend(v, name, unit string, x, y []float64) *Trend {
	fit := stats.LinearFit(x, y)
	t := &Trend{Variant: v, Figure: name, Unit: unit, Slope: fit.Slope, Intercept: fit.Intercept,
		R2: fit.R2, P: fit.P, N: fit.N, OK: fit.OK, Reason: fit.Reason, Lo: fit.Slope, Hi: fit.Slope}
	if fit.OK && fit.N > 2 {
		q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(fit.N - 2)}.Quantile(0.975)
		t.Lo, t.Hi = fit.Slope-q*fit.SESlope, fit.Slope+q*fit.SESlope
	}
	if !fit.OK && t.Reason == "" {
		t.Reason = "no fit"
	}
	return t
}

// knee applies KneeRule to one variant's cells.
func knee(v string, cells []*RampCell) *Knee {
	k := &Knee{Variant: v, Rule: KneeRule}
	type pt struct{ level, p99, tps float64 }
	var pts []pt
	for _, c := range cells {
		p, t := c.Figure(FigP99), c.Figure(FigTPS)
		if p == nil || p.N == 0 || !(p.Median > 0) || !(c.Level > 0) {
			continue
		}
		tp := math.NaN()
		if t != nil && t.N > 0 && t.Median > 0 {
			tp = t.Median
		}
		pts = append(pts, pt{c.Level, p.Median, tp})
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dl := math.Log(b.level / a.level)
		seg := KneeSegment{From: a.level, To: b.level, P99From: a.p99, P99To: b.p99,
			Elasticity: math.Log(b.p99/a.p99) / dl, TPSElasticity: math.Log(b.tps/a.tps) / dl}
		if math.IsNaN(seg.TPSElasticity) {
			seg.TPSElasticity = 0
		}
		k.Segments = append(k.Segments, seg)
		if !k.Found && seg.Elasticity > 1 {
			k.Found, k.Level, k.Next = true, a.level, b.level
			k.Text = fmt.Sprintf("%s: knee at %s: from %s to %s the p99 rises %s→%s ms (×%s) while the load rises ×%s (elasticity %.2f > 1)",
				v, format.Sig3(a.level), format.Sig3(a.level), format.Sig3(b.level), format.Ms(a.p99), format.Ms(b.p99),
				format.Sig3(b.p99/a.p99), format.Sig3(b.level/a.level), seg.Elasticity)
		}
	}
	switch {
	case len(pts) < 2:
		k.Text = v + ": no knee can be found: fewer than 2 levels with a p99"
	case !k.Found:
		maxE := math.Inf(-1)
		for _, s := range k.Segments {
			maxE = max(maxE, s.Elasticity)
		}
		k.Text = fmt.Sprintf("%s: no knee in the levels measured (%s–%s): the p99's elasticity to the load stays ≤ 1 (at most %.2f)",
			v, format.Sig3(pts[0].level), format.Sig3(pts[len(pts)-1].level), maxE)
	}
	return k
}
