package explain

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pgtrial/pgtrial/internal/results"
)

// PlanChanges are the scripts' statements whose plan shape differs
// between variants, or between the runs of one variant (from each run's
// plans.json: EXPLAIN before the run's warm-up). The shape is the plan's
// node types, relations, indexes, join types, scan directions and parent
// relationships (results.PlanNode); costs and row estimates are not part
// of it.
type PlanChanges struct {
	Baseline string `json:"baseline"` // the first variant
	// Changed are the statements whose shape differs between variants or
	// between runs of a variant, in the scripts' order.
	Changed []*PlanChange `json:"changed,omitempty"`
	// Same is how many statements had one shape in every run of every
	// variant.
	Same int `json:"same"`
	// NotExplained are the statements without a plan, with why (one per
	// statement and reason; the runs it applies to).
	NotExplained []*PlanNotExplained `json:"not_explained,omitempty"`
	// Utility are the statements EXPLAIN has no plan of by their kind
	// (results.PlanStatement.Utility: BEGIN, END, SET, …), by first word:
	// how many statements of each (not in NotExplained).
	Utility map[string]int `json:"utility,omitempty"`
	// Runs is how many runs had a plans.json; Missing the runs without one
	// ("RUN: why").
	Runs    int      `json:"runs"`
	Missing []string `json:"missing,omitempty"`
}

// Kinds of PlanChange.
const (
	PlanChanged  = "changed"  // one shape per variant, not the baseline's in some variant
	PlanUnstable = "unstable" // more than one shape among the runs of some variant
)

// PlanChange is one statement whose plan differs.
type PlanChange struct {
	Script  string `json:"script"`
	Command int    `json:"command"`
	Part    int    `json:"part,omitempty"`
	Line    int    `json:"line,omitempty"`
	Text    string `json:"text"` // redacted
	Kind    string `json:"kind"` // PlanChanged or PlanUnstable
	// Variants are the baseline first, then every variant with a plan of
	// the statement, in the experiment's order.
	Variants []*PlanVariant `json:"variants"`
}

// PlanVariant is one variant's plans of a statement.
type PlanVariant struct {
	Variant string       `json:"variant"`
	Shapes  []*PlanShape `json:"shapes"` // distinct shapes, the most runs first
	// Changed: its shapes are not the baseline's; Unstable: it has more
	// than one.
	Changed  bool `json:"changed,omitempty"`
	Unstable bool `json:"unstable,omitempty"`
}

// PlanShape is one shape of a statement's plan and the runs that had it.
type PlanShape struct {
	Line   string            `json:"line"` // results.PlanNode.Line
	Shape  *results.PlanNode `json:"shape"`
	Runs   []string          `json:"runs"`   // the run directories' names
	Method string            `json:"method"` // results.PlanSampled or PlanGeneric (of its first run)
	Cost   float64           `json:"cost"`   // the root's estimated cost, of its first run
	// Params are the values its first run's EXPLAIN had (sampled per run
	// from the run's seed).
	Params []results.PlanParam `json:"params,omitempty"`
	key    string
}

// PlanNotExplained is a statement that had no plan in some runs.
type PlanNotExplained struct {
	Script  string `json:"script"`
	Command int    `json:"command"`
	Part    int    `json:"part,omitempty"`
	Text    string `json:"text"`
	Reason  string `json:"reason"`
	Runs    int    `json:"runs"` // how many runs it applies to
}

// planKey matches a statement across runs: its script, command, part and
// normalised text.
type planKey struct {
	script        string
	command, part int
	text          string
}

// planStmt is one statement's plans over the runs, by variant.
type planStmt struct {
	key       planKey
	line      int
	order     [2]int                    // script index, position in its plans.json: the scripts' order
	byVariant map[string][]*PlanShape   // variant → distinct shapes
	reasons   map[string]map[string]int // reason → runs
	utility   bool                      // no plan by its kind (results.PlanStatement.Utility)
}

// plans finds the plans that changed between variants.
func plans(in *ExperimentInput, cfg Config) (*PlanChanges, []string) {
	_ = cfg
	if in == nil || len(in.Runs) == 0 || len(in.Variants) == 0 {
		return nil, nil
	}
	out := &PlanChanges{Baseline: in.Variants[0]}
	stmts := map[planKey]*planStmt{}
	for _, r := range in.Runs {
		name := runName(r)
		p, err := results.ReadPlans(r.Dir)
		if err != nil {
			why := err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				why = "no plans.json (the plans were not captured: an older pgtrial, or the collectors off)"
			}
			out.Missing = append(out.Missing, name+": "+why)
			continue
		}
		out.Runs++
		for i, s := range p.Statements {
			k := planKey{s.Script, s.Command, s.Part, normText(s.Text)}
			st := stmts[k]
			if st == nil {
				st = &planStmt{key: k, line: s.Line, order: [2]int{s.ScriptIndex, i},
					byVariant: map[string][]*PlanShape{}, reasons: map[string]map[string]int{}}
				stmts[k] = st
			}
			if s.Shape == nil && s.Utility {
				st.utility = true
				continue
			}
			if s.Shape == nil {
				if st.reasons[s.Reason] == nil {
					st.reasons[s.Reason] = map[string]int{}
				}
				st.reasons[s.Reason][r.Variant]++
				continue
			}
			st.add(r.Variant, name, &s)
		}
	}
	var w []string
	if out.Runs == 0 {
		return nil, []string{fmt.Sprintf("plans: missing (no run has a plans.json; %d runs)", len(in.Runs))}
	}
	if len(out.Missing) > 0 {
		w = append(w, fmt.Sprintf("plans: %d of %d runs have no plans.json; their plans are missing from the comparison", len(out.Missing), len(in.Runs)))
	}
	ordered := make([]*planStmt, 0, len(stmts))
	for _, st := range stmts {
		ordered = append(ordered, st)
	}
	slices.SortFunc(ordered, func(a, b *planStmt) int {
		if a.order[0] != b.order[0] {
			return a.order[0] - b.order[0]
		}
		return a.order[1] - b.order[1]
	})
	for _, st := range ordered {
		if st.utility {
			if out.Utility == nil {
				out.Utility = map[string]int{}
			}
			out.Utility[firstWord(st.key.text)]++
			continue
		}
		for reason, byV := range sortedReasons(st.reasons) {
			n := 0
			for _, c := range byV {
				n += c
			}
			out.NotExplained = append(out.NotExplained, &PlanNotExplained{Script: st.key.script, Command: st.key.command,
				Part: st.key.part, Text: st.key.text, Reason: results.RedactSQL(reason), Runs: n})
		}
		if len(st.byVariant) == 0 {
			continue
		}
		if c := st.change(in.Variants); c != nil {
			out.Changed = append(out.Changed, c)
		} else {
			out.Same++
		}
	}
	return out, w
}

// add records one run's shape of the statement.
func (st *planStmt) add(variant, run string, s *results.PlanStatement) {
	key := s.Shape.Key()
	for _, sh := range st.byVariant[variant] {
		if sh.key == key {
			sh.Runs = append(sh.Runs, run)
			return
		}
	}
	st.byVariant[variant] = append(st.byVariant[variant], &PlanShape{
		Line: s.Shape.Line(), Shape: s.Shape, Runs: []string{run}, Method: s.Method, Cost: s.Cost, Params: s.Params, key: key})
}

// change is the statement's finding, nil when every run of every variant
// had one and the same shape. A variant is changed when its shapes are not
// exactly the baseline's, unstable when it has more than one.
func (st *planStmt) change(variants []string) *PlanChange {
	c := &PlanChange{Script: st.key.script, Command: st.key.command, Part: st.key.part, Line: st.line, Text: st.key.text}
	base := st.byVariant[variants[0]]
	differs := false
	for i, v := range variants {
		shapes := st.byVariant[v]
		if len(shapes) == 0 {
			continue
		}
		slices.SortStableFunc(shapes, func(a, b *PlanShape) int { return len(b.Runs) - len(a.Runs) })
		pv := &PlanVariant{Variant: v, Shapes: shapes, Unstable: len(shapes) > 1}
		if i > 0 && base != nil && !sameKeys(shapes, base) {
			pv.Changed = true
		}
		if pv.Unstable {
			c.Kind = PlanUnstable
		}
		differs = differs || pv.Changed || pv.Unstable
		c.Variants = append(c.Variants, pv)
	}
	if !differs {
		return nil
	}
	if c.Kind == "" {
		c.Kind = PlanChanged
	}
	return c
}

// sameKeys says whether two variants have the same set of shapes.
func sameKeys(a, b []*PlanShape) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y *PlanShape) bool { return y.key == x.key }) {
			return false
		}
	}
	return true
}

// sortedReasons iterates the reasons in order.
func sortedReasons(m map[string]map[string]int) func(func(string, map[string]int) bool) {
	return func(yield func(string, map[string]int) bool) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}

// runName names a run by its directory's base name ("003-base-r2").
func runName(r ExpRun) string {
	if r.Dir == "" {
		return fmt.Sprintf("%s r%d", r.Variant, r.Repeat)
	}
	return filepath.Base(filepath.Clean(r.Dir))
}

// normText collapses blanks (plans.json's texts are normalised already;
// an older or hand-made file may not be).
func normText(s string) string { return strings.Join(strings.Fields(s), " ") }

// firstWord is a statement's first word, upper case ("BEGIN" of "begin;"),
// for naming the utility statements.
func firstWord(text string) string {
	w, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	return strings.ToUpper(strings.TrimRight(w, ";"))
}
