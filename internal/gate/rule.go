// Package gate is the CI gate over a comparison: rules such as
// "tps<-3%,p99>+5%" (Parse), each judged on a compare.Report's runs as
// pass, fail or inconclusive (Evaluate), so that a pipeline fails only when
// the runs show a real change beyond a threshold.
//
// A rule is METRIC OP CHANGE%: the metric (tps, p50, p95, p99, p99.9, max,
// the comparison's per-run values), the bad direction ("<": B lower is bad,
// ">": B higher is bad) and the threshold as a signed change of B against
// A in per cent: tps<-3% fails when B's tps is more than 3 % below A's.
package gate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Metrics are the metric names a rule may name: the comparison's summary
// metrics whose values are positive in every run that measured anything.
var Metrics = []string{"tps", "p50", "p95", "p99", "p99.9", "max"}

// MaxRules bounds the rules of one gate.
const MaxRules = 16

// maxChange bounds a threshold's size: a change of +10000 % (×101).
const maxChange = 100.0

// A Rule is one threshold of the gate.
type Rule struct {
	Metric string `json:"metric"` // one of Metrics
	// Op is "<" (a decrease beyond Change fails: tps) or ">" (an increase
	// beyond Change fails: latencies).
	Op string `json:"op"`
	// Change is the threshold as a signed share of A's value: −0.03 for
	// "-3%"; ≤ 0 with "<", ≥ 0 with ">". As a ratio B/A the threshold is
	// 1 + Change.
	Change float64 `json:"change"`
	// Column is where the rule starts in the text it was parsed from
	// (1-based, in characters), for the messages of a file's gate: key.
	Column int `json:"-"`
}

// String is the rule as written canonically: "tps<-3%", "p99>+5%".
func (r Rule) String() string {
	return r.Metric + r.Op + signedNumber(100*r.Change) + "%"
}

// Threshold is the threshold as a ratio B/A: 1 + Change.
func (r Rule) Threshold() float64 { return 1 + r.Change }

// Higher reports whether an increase of the metric is the bad direction.
func (r Rule) Higher() bool { return r.Op == ">" }

// ParseError is a rule list that does not parse: the text and the column
// (1-based, in characters) of what is wrong.
type ParseError struct {
	Input  string
	Column int
	Msg    string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%q: column %d: %s", e.Input, e.Column, e.Msg)
}

// Parse reads a comma-separated list of rules, "tps<-3%,p99>+5%" (spaces
// allowed around each part). A metric has at most one rule per direction.
func Parse(s string) ([]Rule, error) {
	p := &parser{in: []rune(s), text: s}
	if strings.TrimSpace(s) == "" {
		return nil, p.errAt(0, "no rules: give METRIC<CHANGE% or METRIC>CHANGE%, e.g. tps<-3%,p99>+5%")
	}
	var rules []Rule
	for {
		r, err := p.rule()
		if err != nil {
			return nil, err
		}
		if len(rules) == MaxRules {
			return nil, p.errAt(r.Column-1, fmt.Sprintf("more than %d rules", MaxRules))
		}
		if i := slices.IndexFunc(rules, func(q Rule) bool { return q.Metric == r.Metric && q.Op == r.Op }); i >= 0 {
			return nil, p.errAt(r.Column-1, fmt.Sprintf("a second rule %s for %s (the first is %s at column %d): one threshold per metric and direction",
				r.Op, r.Metric, rules[i], rules[i].Column))
		}
		rules = append(rules, r)
		p.spaces()
		if p.pos == len(p.in) {
			return rules, nil
		}
		if p.in[p.pos] != ',' {
			return nil, p.errAt(p.pos, fmt.Sprintf("unexpected %q after the rule %s: rules are separated by commas", p.in[p.pos], r))
		}
		p.pos++
	}
}

type parser struct {
	in   []rune
	text string
	pos  int // index into in
}

func (p *parser) errAt(pos int, msg string) error {
	return &ParseError{Input: p.text, Column: pos + 1, Msg: msg}
}

func (p *parser) spaces() {
	for p.pos < len(p.in) && (p.in[p.pos] == ' ' || p.in[p.pos] == '\t') {
		p.pos++
	}
}

// rule reads one METRIC OP CHANGE% from pos.
func (p *parser) rule() (Rule, error) {
	p.spaces()
	start := p.pos
	for p.pos < len(p.in) && isNameRune(p.in[p.pos]) {
		p.pos++
	}
	name := strings.ToLower(string(p.in[start:p.pos]))
	switch {
	case name == "" && (p.pos == len(p.in) || p.in[p.pos] == ','):
		return Rule{}, p.errAt(start, "empty rule: expected a metric ("+strings.Join(Metrics, ", ")+")")
	case name == "":
		return Rule{}, p.errAt(start, "expected a metric ("+strings.Join(Metrics, ", ")+")")
	case !slices.Contains(Metrics, name):
		return Rule{}, p.errAt(start, fmt.Sprintf("unknown metric %q: the gate's metrics are %s", name, strings.Join(Metrics, ", ")))
	}
	r := Rule{Metric: name, Column: start + 1}
	p.spaces()
	if p.pos == len(p.in) || (p.in[p.pos] != '<' && p.in[p.pos] != '>') {
		return Rule{}, p.errAt(p.pos, "expected < or > after the metric (tps<-3%: a decrease beyond 3 % fails; p99>+5%: an increase beyond 5 %)")
	}
	r.Op = string(p.in[p.pos])
	p.pos++
	p.spaces()
	numAt := p.pos
	if p.pos < len(p.in) && (p.in[p.pos] == '+' || p.in[p.pos] == '-') {
		p.pos++
	}
	digits, dot := 0, 0
	for p.pos < len(p.in) && (isDigit(p.in[p.pos]) || p.in[p.pos] == '.') {
		if p.in[p.pos] == '.' {
			dot++
		} else {
			digits++
		}
		p.pos++
	}
	if digits == 0 || dot > 1 {
		return Rule{}, p.errAt(numAt, "expected a number: the change in per cent, e.g. -3%")
	}
	pct, err := strconv.ParseFloat(string(p.in[numAt:p.pos]), 64)
	if err != nil {
		return Rule{}, p.errAt(numAt, "expected a number: the change in per cent, e.g. -3%")
	}
	p.spaces()
	if p.pos == len(p.in) || p.in[p.pos] != '%' {
		return Rule{}, p.errAt(p.pos, "expected %: the change is in per cent of A's value")
	}
	p.pos++
	r.Change = pct / 100
	switch {
	case r.Op == "<" && r.Change > 0:
		return Rule{}, p.errAt(numAt, fmt.Sprintf("%s< needs a decrease (%s<-%s%%): with a positive change B would fail for not improving", name, name, signedNumber(pct)[1:]))
	case r.Op == ">" && r.Change < 0:
		return Rule{}, p.errAt(numAt, fmt.Sprintf("%s> needs an increase (%s>+%s%%): with a negative change B would fail for not improving", name, name, signedNumber(-pct)[1:]))
	case r.Op == "<" && r.Change <= -1:
		return Rule{}, p.errAt(numAt, "a decrease of 100 % or more cannot happen: give a change above -100%")
	case r.Change > maxChange:
		return Rule{}, p.errAt(numAt, fmt.Sprintf("a change above +%.0f%% is not a threshold", 100*maxChange))
	}
	if r.Change == 0 {
		r.Change = 0 // no "-0"
	}
	return r, nil
}

func isNameRune(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '.'
}

func isDigit(c rune) bool { return c >= '0' && c <= '9' }

// signedNumber is a per-cent figure with its sign, rounded to 1e-4: "+5",
// "-3", "+0.5".
func signedNumber(pct float64) string {
	pct = math.Round(pct*1e4) / 1e4
	if pct == 0 {
		return "+0"
	}
	s := strconv.FormatFloat(pct, 'f', -1, 64)
	if pct > 0 {
		s = "+" + s
	}
	return s
}
