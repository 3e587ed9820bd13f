package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// plans.json: the plans of the run's scripts' statements, as EXPLAIN
// (FORMAT JSON) showed them after the setup and before the warm-up
// (internal/collect captures them, internal/trial writes them; the
// experiment's findings compare their shapes across variants). One entry
// per SQL statement of every script (a compound command, with \;, has one
// per part), explained or with the reason it was not.
const PlansFile = "plans.json"

// PlansSchema versions plans.json. Fields may be added within a version;
// renaming or removing one, or changing its meaning, needs a new version.
const PlansSchema = "pgtrial.plans/v1"

// How a statement's plan was obtained (PlanStatement.Method).
const (
	// PlanSampled: the script's meta-commands evaluated once (client 0's
	// first transaction of the script, from the run's seed) and the
	// :variables substituted into the text as pgbench's simple mode does.
	PlanSampled = "sampled"
	// PlanGeneric: EXPLAIN (GENERIC_PLAN) with $n for the :variables
	// (PostgreSQL 16+), when a variable had no value to substitute.
	PlanGeneric = "generic"
)

// Plans is plans.json.
type Plans struct {
	Schema        string    `json:"schema"`
	CapturedAt    time.Time `json:"captured_at"`
	ServerVersion string    `json:"server_version,omitempty"`
	// Seed is the seed of the sampled parameters (the run's, decimal).
	Seed       string          `json:"seed,omitempty"`
	Statements []PlanStatement `json:"statements"`
	Warnings   []string        `json:"warnings,omitempty"`
}

// PlanStatement is one statement of a script and its plan (Shape), or the
// reason it has none (Reason).
type PlanStatement struct {
	Script      string `json:"script"`       // the script's name
	ScriptIndex int    `json:"script_index"` // its 0-based number in the run
	Command     int    `json:"command"`      // the command's 0-based number in the script
	Part        int    `json:"part,omitempty"`
	Line        int    `json:"line,omitempty"` // the command's 1-based line
	// Text is the statement as the script has it (before substitution),
	// blanks collapsed, redacted (RedactSQL): the key a statement is
	// matched by across runs, with Script, Command and Part.
	Text string `json:"text"`
	// Method is PlanSampled or PlanGeneric; "" when not explained.
	Method string `json:"method,omitempty"`
	// Explained is the text given to EXPLAIN (values substituted), redacted.
	Explained string      `json:"explained,omitempty"`
	Params    []PlanParam `json:"params,omitempty"` // the values substituted, in order of appearance
	Shape     *PlanNode   `json:"shape,omitempty"`
	// Cost and Rows are the root's estimates (planner units, rows): shown,
	// never part of the shape.
	Cost   float64 `json:"cost,omitempty"`
	Rows   float64 `json:"rows,omitempty"`
	Reason string  `json:"reason,omitempty"` // why it was not explained
	// Utility: a statement EXPLAIN has no plan of by its kind (BEGIN,
	// END, SET, …: transaction control or utility), Reason says which.
	Utility bool `json:"utility,omitempty"`
}

// PlanParam is a :variable and the value substituted for it.
type PlanParam struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// PlanNode is one node of a plan's shape: what the plan does, without its
// costs, row counts or conditions.
type PlanNode struct {
	Node      string      `json:"node"`                // EXPLAIN's Node Type: "Index Scan", "ModifyTable", "Hash Join"
	Operation string      `json:"operation,omitempty"` // ModifyTable's Insert, Update, Delete, Merge
	Strategy  string      `json:"strategy,omitempty"`  // Aggregate's and SetOp's Plain, Sorted, Hashed, Mixed
	Parallel  bool        `json:"parallel,omitempty"`  // Parallel Aware
	Relation  string      `json:"relation,omitempty"`
	Index     string      `json:"index,omitempty"`
	Join      string      `json:"join,omitempty"`      // Join Type: Inner, Left, Full, Right, Semi, Anti
	Direction string      `json:"direction,omitempty"` // "Backward" for a backward scan; "" forward
	Parent    string      `json:"parent,omitempty"`    // Parent Relationship: Outer, Inner, Member, InitPlan, SubPlan, …
	Children  []*PlanNode `json:"children,omitempty"`
}

// maxPlanLine bounds a plan's one-line rendering (a partitioned table's
// Append of hundreds of scans).
const maxPlanLine = 2000

// Label is the node as EXPLAIN's text format names it: "Update on t",
// "Index Scan Backward using t_pkey on t", "Hash Left Join",
// "Parallel Seq Scan on t", "HashAggregate", "InitPlan: Result".
func (n *PlanNode) Label() string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	switch n.Parent {
	case "InitPlan", "SubPlan":
		b.WriteString(n.Parent + ": ")
	}
	name := n.Node
	switch {
	case n.Node == "ModifyTable" && n.Operation != "":
		name = n.Operation
	case n.Node == "Aggregate" && n.Strategy == "Hashed":
		name = "HashAggregate"
	case n.Node == "Aggregate" && n.Strategy == "Sorted":
		name = "GroupAggregate"
	case n.Node == "Aggregate" && n.Strategy == "Mixed":
		name = "MixedAggregate"
	case n.Node == "SetOp" && n.Strategy == "Hashed":
		name = "HashSetOp"
	}
	if n.Join != "" && n.Join != "Inner" {
		if before, ok := strings.CutSuffix(name, " Join"); ok {
			name = before + " " + n.Join + " Join"
		} else {
			name += " " + n.Join + " Join"
		}
	}
	if n.Parallel {
		b.WriteString("Parallel ")
	}
	b.WriteString(name)
	if n.Direction == "Backward" {
		b.WriteString(" Backward")
	}
	if n.Index != "" {
		if n.Relation == "" {
			b.WriteString(" on " + n.Index)
		} else {
			b.WriteString(" using " + n.Index)
		}
	}
	if n.Relation != "" {
		b.WriteString(" on " + n.Relation)
	}
	return b.String()
}

// Line is the shape on one line, each node before its children:
// "Update on pgbench_accounts ← Index Scan using pgbench_accounts_pkey on
// pgbench_accounts"; several children in brackets, "; " between them. It is
// cut (with "…") at about 2000 bytes.
func (n *PlanNode) Line() string {
	var b strings.Builder
	n.line(&b, 0)
	if b.Len() > maxPlanLine {
		return cutUTF8(b.String(), maxPlanLine) + "…"
	}
	return b.String()
}

func (n *PlanNode) line(b *strings.Builder, depth int) {
	if n == nil || b.Len() > maxPlanLine || depth > maxPlanDepth {
		return
	}
	b.WriteString(n.Label())
	switch len(n.Children) {
	case 0:
	case 1:
		b.WriteString(" ← ")
		n.Children[0].line(b, depth+1)
	default:
		b.WriteString(" ← [")
		for i, c := range n.Children {
			if i > 0 {
				b.WriteString("; ")
			}
			c.line(b, depth+1)
			if b.Len() > maxPlanLine {
				break
			}
		}
		b.WriteString("]")
	}
}

// Key is the shape's identity: two plans have the same shape when their
// keys are equal (every field of every node, in order).
func (n *PlanNode) Key() string {
	if n == nil {
		return ""
	}
	data, err := json.Marshal(n)
	if err != nil { // a PlanNode always marshals; keep the line then
		return n.Line()
	}
	return string(data)
}

// cutUTF8 cuts s to at most n bytes at a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// WritePlans writes dir/plans.json atomically (mode 0600, as run.json).
func WritePlans(dir string, p *Plans) error {
	out := *p
	out.Schema = PlansSchema
	return writeJSONAtomic(dir, PlansFile, nil, &out)
}

// ReadPlans reads dir/plans.json; a missing file wraps fs.ErrNotExist.
func ReadPlans(dir string) (*Plans, error) {
	path := filepath.Join(dir, PlansFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := ParsePlans(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// maxPlanDepth bounds a shape's depth in a file read (the server's plans
// are far shallower; encoding/json alone allows 10000 levels).
const maxPlanDepth = 200

// ParsePlans parses plans.json's content. Another schema (a newer
// pgtrial's) and a shape deeper than 200 nodes are errors.
func ParsePlans(data []byte) (*Plans, error) {
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("read plans: %w", err)
	}
	switch {
	case head.Schema == nil:
		return nil, fmt.Errorf("read plans: no \"schema\" field")
	case *head.Schema != PlansSchema:
		return nil, fmt.Errorf("read plans: unknown schema %q; this pgtrial reads %q (was it written by a newer pgtrial?)", *head.Schema, PlansSchema)
	}
	var p Plans
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("read plans: %w", err)
	}
	for i := range p.Statements {
		if d := p.Statements[i].Shape.depth(0); d > maxPlanDepth {
			return nil, fmt.Errorf("read plans: statement %d's plan is deeper than %d nodes", i, maxPlanDepth)
		}
	}
	return &p, nil
}

// depth is the shape's depth (0 for nil), counting at most a little past
// maxPlanDepth.
func (n *PlanNode) depth(at int) int {
	if n == nil || at > maxPlanDepth {
		return at
	}
	d := at + 1
	for _, c := range n.Children {
		d = max(d, c.depth(at+1))
	}
	return d
}
