package script

import (
	"cmp"
	"fmt"
	"slices"
)

// pgtrial's \tally NAME EXPR (docs/script-extensions.md): counts how often
// each integer value of EXPR is drawn, under NAME (e.g. YCSB's keys, for
// the share of operations on the hottest keys). Each client counts in maps
// of its own, without a lock; MergeTallies adds them up after the run.

// MaxTallyValues bounds the distinct values one client tracks per name
// (1<<20, some 40 MB of map at most): a new value after that is counted in
// Draws only, and the tally is Capped.
const MaxTallyValues = 1 << 20

// Tally is what one name counted over a set of clients.
type Tally struct {
	Name     string
	Draws    int64 // \tally executions counted
	Distinct int64 // distinct values among the tracked ones
	// TopCounts are the counts of the most frequent values, descending (at
	// most the top asked of MergeTallies).
	TopCounts []int64
	// Capped: some client met MaxTallyValues; Distinct and TopCounts are
	// then lower bounds.
	Capped bool
}

// tallyCounts is one client's counts of one name.
type tallyCounts struct {
	counts map[int64]int64
	draws  int64
	capped bool
}

// add counts value v, tracking at most limit distinct values.
func (t *tallyCounts) add(v int64, limit int) {
	t.draws++
	if n, ok := t.counts[v]; ok {
		t.counts[v] = n + 1
		return
	}
	if len(t.counts) >= limit {
		t.capped = true
		return
	}
	if t.counts == nil {
		t.counts = make(map[int64]int64)
	}
	t.counts[v] = 1
}

// bindTallies gives the tally names of all scripts one numbering (as
// NewProgram does for variables).
func (p *Program) bindTallies() {
	index := make(map[string]int32)
	for _, s := range p.Scripts {
		m := make([]int32, len(s.tallies.names))
		for i, n := range s.tallies.names {
			g, ok := index[n]
			if !ok {
				g = int32(len(p.tallyNames))
				p.tallyNames = append(p.tallyNames, n)
				index[n] = g
			}
			m[i] = g
		}
		p.tallyMaps = append(p.tallyMaps, m)
	}
}

// TallyNames returns the names of the program's \tally commands, in
// first-use order.
func (p *Program) TallyNames() []string { return append([]string(nil), p.tallyNames...) }

// Tally runs \tally command i of the current script: EXPR is evaluated
// (its random functions draw) and, when count is set (the engine's
// measured window), its value coerced to an integer as pgbench's int()
// does and counted.
func (c *Client) Tally(i int, count bool) error {
	cmd := c.command(i)
	v, err := c.eval(cmd.expr)
	if err != nil {
		return execErr(err, cmd.Args[0], reasonEval)
	}
	n, err := toInt(v)
	if err != nil {
		return execErr(evalErrorf("%s %s: %v", cmd.Args[0], cmd.Args[1], err), cmd.Args[0], reasonEval)
	}
	if !count {
		return nil
	}
	if c.tallies == nil {
		c.tallies = make([]tallyCounts, len(c.prog.tallyNames))
	}
	c.tallies[c.prog.tallyMaps[c.script][cmd.tally]].add(n, MaxTallyValues)
	return nil
}

// MergeTallies adds up the clients' counts (clients of one Program), name
// by name in first-use order, keeping the top highest counts of each
// (top ≤ 0: all). Names no client counted have Draws 0.
func MergeTallies(p *Program, clients []*Client, top int) []Tally {
	if len(p.tallyNames) == 0 {
		return nil
	}
	out := make([]Tally, len(p.tallyNames))
	for k, name := range p.tallyNames {
		t := Tally{Name: name}
		var merged map[int64]int64
		for _, c := range clients {
			if k >= len(c.tallies) {
				continue
			}
			tc := &c.tallies[k]
			t.Draws += tc.draws
			t.Capped = t.Capped || tc.capped
			if merged == nil && len(tc.counts) > 0 {
				merged = make(map[int64]int64, len(tc.counts))
			}
			for v, n := range tc.counts {
				merged[v] += n
			}
		}
		t.Distinct = int64(len(merged))
		counts := make([]int64, 0, len(merged))
		for _, n := range merged {
			counts = append(counts, n)
		}
		slices.SortFunc(counts, func(a, b int64) int { return cmp.Compare(b, a) })
		if top > 0 && len(counts) > top {
			counts = counts[:top]
		}
		if len(counts) > 0 {
			t.TopCounts = counts
		}
		out[k] = t
	}
	return out
}

// String is "NAME: D draws, N distinct" for messages and tests.
func (t Tally) String() string {
	return fmt.Sprintf("%s: %d draws, %d distinct", t.Name, t.Draws, t.Distinct)
}
