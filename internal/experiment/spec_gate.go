package experiment

import (
	"errors"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pgtrial/pgtrial/internal/gate"
)

// The gate: key: a CI gate over each variant's comparison against the
// first, the rules of `pgtrial compare --fail-on` ("tps<-3%,p99>+5%", or a
// list of such strings); internal/gate judges them in analyse, and
// `pgtrial experiment` exits 3 (a rule fails) or 4 (one is inconclusive).

const gateWhat = `rules such as "tps<-3%,p99>+5%" (METRIC<CHANGE% or METRIC>CHANGE%)`

// gate decodes the gate: key into s.Gate, a problem at the column of the
// rule that does not parse.
func (d *decoder) gate(s *Spec, e entry, path string) {
	items := []*yaml.Node{e.val}
	if e.val.Kind == yaml.SequenceNode {
		var ok bool
		if items, ok = d.nonEmptySeq(e, path, "rules", `give rules such as "tps<-3%"`); !ok {
			return
		}
	}
	for _, it := range items {
		text, ok := d.nonEmpty(it, path, gateWhat)
		if !ok {
			continue
		}
		rules, err := gate.Parse(text)
		var pe *gate.ParseError
		if errors.As(err, &pe) {
			line, col := gateColumn(d.resolve(it), text, pe.Column)
			d.problemAt(line, col, path, "%s", pe.Msg)
			continue
		}
		for _, r := range rules {
			if slices.ContainsFunc(s.Gate, func(q gate.Rule) bool { return q.Metric == r.Metric && q.Op == r.Op }) {
				line, col := gateColumn(d.resolve(it), text, r.Column)
				d.problemAt(line, col, path, "a second rule %s for %s: one threshold per metric and direction", r.Op, r.Metric)
				continue
			}
			s.Gate = append(s.Gate, r)
		}
	}
	if len(s.Gate) > gate.MaxRules {
		d.problem(e.val, path, "%d rules: at most %d", len(s.Gate), gate.MaxRules)
	}
}

// gateColumn is where column col (1-based, in characters) of a scalar's
// text is in the file: exact for a plain or quoted scalar on one line
// without escapes; else the scalar's own position.
func gateColumn(n *yaml.Node, text string, col int) (int, int) {
	if strings.ContainsAny(text, "\n\\") || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Line, n.Column
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		if strings.Contains(text, "'") {
			return n.Line, n.Column // '' stands for ' in a single-quoted scalar
		}
		col++
	}
	return n.Line, n.Column + col - 1
}

// checkGate: the gate judges variants at one load against the first.
func (d *decoder) checkGate(s *Spec) {
	key := d.marks["gate"]
	if key == nil || len(s.Gate) == 0 {
		return
	}
	switch {
	case s.Search != nil || s.Load.Ramp != nil:
		d.problem(key, "gate", "a gate judges variants at one load; a ramp's or a capacity search's runs are at different loads: leave gate out, or give load.rate or load.closed")
	case len(s.Variants) < 2:
		d.problem(key, "gate", "a gate judges each variant against the first: give at least two variants")
	}
}
