package checks

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/results"
)

// VariantRuns is how many runs of a variant an experiment measured.
type VariantRuns struct {
	Variant string // its name; "" for a lone run
	Runs    int
}

// Repeats is the item "repeats": at least minRepeats runs of every variant
// (DESIGN §8), so that the spread can be shown, and minCompareRepeats when
// variants are compared, so that a rank test can decide (3 vs 3 runs
// cannot go below p = 0.10).
// Value: the fewest runs of a variant. A run's own checklist carries
// Repeats([]VariantRuns{{Runs: 1}}); an experiment replaces it (Replace).
func Repeats(variants []VariantRuns) results.Check {
	return repeats(variants, len(variants) > 1)
}

// RepeatsUncompared is Repeats for variants that are not compared with
// each other (the demo's load levels): minRepeats each.
func RepeatsUncompared(variants []VariantRuns) results.Check {
	return repeats(variants, false)
}

func repeats(variants []VariantRuns, compared bool) results.Check {
	c := results.Check{Name: ItemRepeats, Status: Warn}
	if len(variants) == 0 {
		c.Value = 0
		c.Message = "no runs"
		return c
	}
	fewest := variants[0]
	var counts []string
	for _, v := range variants {
		if v.Runs < fewest.Runs {
			fewest = v
		}
		counts = append(counts, fmt.Sprintf("%s %d", variantName(v.Variant), v.Runs))
	}
	c.Value = fewest.Runs
	list := ""
	if len(variants) > 1 {
		list = " (" + strings.Join(counts, ", ") + ")"
	}
	need := minRepeats
	if compared {
		need = minCompareRepeats
	}
	switch {
	case fewest.Runs >= need:
		c.Status = Pass
		c.Message = fmt.Sprintf("at least %d runs of each variant%s", fewest.Runs, list)
	case compared:
		// A comparison: with m vs n runs the exact rank test cannot go
		// below 2/C(m+n, m).
		m, n := fewest.Runs, fewest.Runs
		for _, v := range variants {
			if v.Variant != fewest.Variant {
				n = v.Runs
				break
			}
		}
		c.Message = fmt.Sprintf("%s has %d run%s%s: compared variants need at least %d each; with %d vs %d runs the smallest possible p is %s, so no difference can be shown at 0.05",
			variantName(fewest.Variant), fewest.Runs, plural(fewest.Runs), list, minCompareRepeats, m, n, strconv.FormatFloat(smallestP(m, n), 'g', 2, 64))
	case len(variants) == 1 && fewest.Variant == "" && fewest.Runs <= 1:
		c.Message = fmt.Sprintf("1 run: a single run cannot show its noise; repeat at least %d times, interleaved (pgtrial experiment)", minRepeats)
	default:
		c.Message = fmt.Sprintf("%s has %d run%s%s: at least %d per variant are needed to show the spread (and 4 for the non-overlap rule to mean p ≈ 0.03)",
			variantName(fewest.Variant), fewest.Runs, plural(fewest.Runs), list, minRepeats)
	}
	return c
}

func variantName(v string) string {
	if v == "" {
		return "the run"
	}
	return v
}

// Interleaving is the item "interleaved": runs of different variants
// alternate in rounds, each round running every variant once in any order
// (A B A B, or A B B A), so a drift over time (cache fill, bloat,
// autovacuum, a neighbour on the machine) falls on every variant alike
// instead of reading as a difference between them. order is the variant of
// each run in the order they ran. Value: the order, space-separated.
func Interleaving(order []string) results.Check {
	c := results.Check{Name: ItemInterleaved, Value: strings.Join(order, " ")}
	var variants []string
	seen := map[string]bool{}
	for _, v := range order {
		if !seen[v] {
			seen[v] = true
			variants = append(variants, v)
		}
	}
	k := len(variants)
	if k <= 1 {
		c.Status = Pass
		c.Message = "one variant: nothing to interleave"
		return c
	}
	bad := -1 // the first round that is not a permutation of the variants
	for start := 0; start < len(order) && bad < 0; start += k {
		round := order[start:min(start+k, len(order))]
		inRound := map[string]bool{}
		for _, v := range round {
			if inRound[v] {
				bad = start / k
				break
			}
			inRound[v] = true
		}
	}
	if bad < 0 {
		c.Status = Pass
		c.Message = fmt.Sprintf("%d runs in rounds of the %d variants: %s", len(order), k, c.Value)
		return c
	}
	c.Status = Warn
	c.Message = fmt.Sprintf("runs are not interleaved (%s; round %d repeats a variant): a drift over time would read as a difference between variants; run them in rounds (A B A B …)", c.Value, bad+1)
	return c
}

// Replace returns list with each of items in place of the item of the same
// name, or appended when list has none (list is not modified).
func Replace(list []results.Check, items ...results.Check) []results.Check {
	out := append([]results.Check(nil), list...)
	for _, it := range items {
		i := indexOf(out, it.Name)
		if i >= 0 {
			out[i] = it
		} else {
			out = append(out, it)
		}
	}
	return out
}

func indexOf(list []results.Check, name string) int {
	for i := range list {
		if list[i].Name == name {
			return i
		}
	}
	return -1
}

// Labeled is one run's checklist in an experiment.
type Labeled struct {
	Label  string // how the run is named in messages: "B#2", a directory
	Checks []results.Check
}

// Combine summarises the checklists of an experiment's runs: per item (in
// the order they first appear) the worst status over the runs, with the
// value and message of the first run that has it, and how many runs do:
// "warn in 3 of 8 runs; B#2: …".
func Combine(runs []Labeled) []results.Check {
	type tally struct {
		worst     results.Check
		label     string
		n, nWorst int
	}
	var names []string
	by := map[string]*tally{}
	for _, r := range runs {
		for _, c := range r.Checks {
			t := by[c.Name]
			if t == nil {
				t = &tally{worst: c, label: r.Label}
				by[c.Name] = t
				names = append(names, c.Name)
			}
			t.n++
			switch cr, wr := rank(c.Status), rank(t.worst.Status); {
			case cr == wr:
				t.nWorst++
			case cr > wr:
				t.worst, t.label, t.nWorst = c, r.Label, 1
			}
		}
	}
	out := make([]results.Check, 0, len(names))
	for _, name := range names {
		t := by[name]
		c := t.worst
		status := c.Status
		if status == "" {
			status = "?"
		}
		c.Message = fmt.Sprintf("%s in %d of %d runs; %s: %s", status, t.nWorst, t.n, t.label, c.Message)
		out = append(out, c)
	}
	return out
}

// rank orders statuses by severity; an unknown status counts as a warning.
func rank(status string) int {
	switch status {
	case Pass:
		return 0
	case Fail:
		return 2
	}
	return 1
}

// Worst is the most severe status of list: fail, warn or pass (pass for
// none; an unknown status counts as warn).
func Worst(list []results.Check) string {
	r := 0
	for _, c := range list {
		r = max(r, rank(c.Status))
	}
	return [...]string{Pass, Warn, Fail}[r]
}

// StallRun is a run with an injected lock, as StallVisible judges it.
type StallRun struct {
	Label  string  // "run 14 (stall-open)"
	Open   bool    // open model
	P99Ms  float64 // response p99 of the measured window
	LockMs float64 // how long the lock was held (acquired → released)
}

// StallVisible is the item "stall_visible" (DESIGN §8: an injected stall
// visible in p99): a lock held for D blocks every transaction that touches
// its table, so in an open model the transactions scheduled during it wait
// up to D and the run's p99 reaches at least D/2 whenever they are more
// than 1 % of the window's. Pass when every open-model run shows it; warn
// for an open-model run whose p99 stays below D/2 (the stall did not reach
// the measured transactions: another table, a window long enough to dilute
// it below 1 %, or the lock not granted); closed-model runs are listed as
// the calibration's contrast: their clients stop sending while blocked
// (coordinated omission), so a stall hardly reaches their p99.
// Value: the smallest p99/D of the open-model runs.
func StallVisible(runs []StallRun) results.Check {
	c := results.Check{Name: ItemStallVisible, Status: Pass}
	var hidden, closed []string
	worst, nOpen := math.Inf(1), 0
	for _, r := range runs {
		if !(r.LockMs > 0) {
			continue
		}
		ratio := r.P99Ms / r.LockMs
		if !r.Open {
			closed = append(closed, fmt.Sprintf("%s p99 %.3g ms", r.Label, r.P99Ms))
			continue
		}
		nOpen++
		worst = math.Min(worst, ratio)
		if ratio < 0.5 {
			hidden = append(hidden, fmt.Sprintf("%s: p99 %.3g ms for a %.3g s lock", r.Label, r.P99Ms, r.LockMs/1000))
		}
	}
	switch {
	case nOpen == 0 && len(closed) == 0:
		c.Status = Warn
		c.Message = "no lock was held in any run: the injection did not take effect (see the runs' injection events)"
		return c
	case nOpen == 0:
		c.Status = Warn
		c.Message = "only closed-model runs had the stall (" + strings.Join(closed, "; ") + "): their clients stop sending while blocked (coordinated omission), so the stall hides; add an open-model run to see it"
		return c
	}
	c.Value = worst
	if len(hidden) > 0 {
		c.Status = Warn
		c.Message = "the injected stall is not visible in p99 of " + strings.Join(hidden, "; ") + ": check that the locked table is one the workload uses and that it is more than 1 % of the window"
	} else {
		which := "the open-model run"
		if nOpen > 1 {
			which = fmt.Sprintf("all %d open-model runs", nOpen)
		}
		c.Message = fmt.Sprintf("the injected stall shows in the p99 of %s (p99 ≥ %.2g × the lock's length)", which, worst)
	}
	if len(closed) > 0 {
		c.Message += "; closed model for contrast: " + strings.Join(closed, "; ")
	}
	return c
}

// smallestP is the smallest two-sided p-value of the exact Mann-Whitney
// test with m vs n runs: 2/C(m+n, m) (1 when a side is empty).
func smallestP(m, n int) float64 {
	if m <= 0 || n <= 0 {
		return 1
	}
	c := 1.0
	for i := 1; i <= min(m, n); i++ {
		c = c * float64(max(m, n)+i) / float64(i)
	}
	return min(1, 2/c)
}
