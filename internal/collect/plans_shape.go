package collect

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pgtrial/pgtrial/internal/results"
)

// plannable are the first words of the statements EXPLAIN shows a plan of
// (SELECT, INSERT, UPDATE, DELETE, MERGE, VALUES, TABLE, and WITH before
// one of them). EXPLAIN also takes EXECUTE, DECLARE and CREATE TABLE AS;
// pgtrial leaves those alone (they name or create objects).
var plannable = map[string]bool{
	"SELECT": true, "INSERT": true, "UPDATE": true, "DELETE": true,
	"MERGE": true, "VALUES": true, "TABLE": true, "WITH": true,
}

// Explainable says whether sql is a statement EXPLAIN shows a plan of, by
// its first word (after blanks, comments and opening brackets), and if not
// why: "not explainable: BEGIN is not a plannable statement (transaction
// control or utility)".
func Explainable(sql string) (bool, string) {
	w := firstWord(sql)
	if w == "" {
		return false, "not explainable: an empty statement"
	}
	if plannable[w] {
		return true, ""
	}
	return false, fmt.Sprintf("not explainable: %s is not a plannable statement (transaction control or utility)", w)
}

// firstWord is the statement's first word, upper case; "" when there is none.
func firstWord(sql string) string {
	i := 0
	for i < len(sql) {
		switch c := sql[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '(':
			i++
		case strings.HasPrefix(sql[i:], "--"):
			k := strings.IndexByte(sql[i:], '\n')
			if k < 0 {
				return ""
			}
			i += k + 1
		case strings.HasPrefix(sql[i:], "/*"):
			k := strings.Index(sql[i+2:], "*/")
			if k < 0 {
				return ""
			}
			i += k + 4
		default:
			j := i
			for j < len(sql) && (sql[j] >= 'a' && sql[j] <= 'z' || sql[j] >= 'A' && sql[j] <= 'Z' || sql[j] == '_') {
				j++
			}
			if j == i {
				return ""
			}
			return strings.ToUpper(sql[i:j])
		}
	}
	return ""
}

// explainNode is one node of EXPLAIN (FORMAT JSON)'s plan, with the keys
// that make its shape.
type explainNode struct {
	NodeType  string         `json:"Node Type"`
	Operation string         `json:"Operation"`
	Strategy  string         `json:"Strategy"`
	Parallel  bool           `json:"Parallel Aware"`
	Relation  string         `json:"Relation Name"`
	Index     string         `json:"Index Name"`
	Join      string         `json:"Join Type"`
	Direction string         `json:"Scan Direction"`
	Parent    string         `json:"Parent Relationship"`
	Cost      float64        `json:"Total Cost"`
	Rows      float64        `json:"Plan Rows"`
	Plans     []*explainNode `json:"Plans"`
}

// maxShapeDepth bounds the depth of a plan kept (the server's are shallow;
// results.ParsePlans refuses deeper ones).
const maxShapeDepth = 150

// ParseExplainJSON reduces EXPLAIN (FORMAT JSON)'s output to the plan's
// shape, and the root's estimated total cost and rows.
func ParseExplainJSON(data []byte) (*results.PlanNode, float64, float64, error) {
	var out []struct {
		Plan *explainNode `json:"Plan"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, 0, 0, fmt.Errorf("EXPLAIN's output is not its JSON: %w", err)
	}
	if len(out) == 0 || out[0].Plan == nil {
		return nil, 0, 0, errors.New("EXPLAIN's output has no plan")
	}
	root := out[0].Plan
	shape, err := shapeOf(root, 0)
	if err != nil {
		return nil, 0, 0, err
	}
	return shape, root.Cost, root.Rows, nil
}

func shapeOf(n *explainNode, depth int) (*results.PlanNode, error) {
	if depth > maxShapeDepth {
		return nil, fmt.Errorf("EXPLAIN's plan is deeper than %d nodes", maxShapeDepth)
	}
	if n == nil {
		return nil, errors.New("EXPLAIN's plan has an empty node")
	}
	s := &results.PlanNode{
		Node: n.NodeType, Operation: n.Operation, Strategy: n.Strategy, Parallel: n.Parallel,
		Relation: n.Relation, Index: n.Index, Join: n.Join, Parent: n.Parent,
	}
	if n.Direction == "Backward" {
		s.Direction = "Backward"
	}
	for _, c := range n.Plans {
		cs, err := shapeOf(c, depth+1)
		if err != nil {
			return nil, err
		}
		s.Children = append(s.Children, cs)
	}
	return s, nil
}
