package experiment

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/metrics"
)

// The SLOs and the capacity search.

// sloItem is one SLO while it decodes.
type sloItem struct {
	SLO
	load  *LoadSpec // the load whose rates at_rate must be; nil in a search
	found []string  // the quantile keys given
}

// sloSection is one SLO (name "slo", an item of slo) or the search's
// (name "search.slo"): a quantile of metrics.Quantiles with its limit, and
// at_rate.
func sloSection(name string) section[sloItem] {
	keys := []key[sloItem]{
		{name: "at_rate", doc: "the rate it applies at (default: the load's)", dec: func(d *decoder, t *sloItem, e entry, path string, _ *fields) {
			if t.load == nil {
				d.problem(e.key, path, "a capacity search finds the rate: leave at_rate out")
				return
			}
			v, ok := d.positive(e.val, path, engine.MaxRate, engine.LoadRule(engine.FieldRate))
			if !ok {
				return
			}
			t.AtRate = v
			// An objective at a rate the experiment never runs cannot be judged.
			switch l, r := t.load, t.load.Ramp; {
			case l.Rate > 0 && v != l.Rate:
				d.problem(e.val, path, "%g tx/s, but the load runs at %g tx/s: leave at_rate out, or make it the load's rate", v, l.Rate)
			case r != nil && r.By == RampRate && (v < r.From || v > r.To):
				d.problem(e.val, path, "%g tx/s is outside the ramp (%g to %g tx/s)", v, r.From, r.To)
			}
		}},
	}
	for _, q := range metrics.Quantiles() {
		keys = append(keys, key[sloItem]{name: q.Name, doc: "the limit of the response time's " + q.Name,
			dec: func(d *decoder, t *sloItem, e entry, path string, _ *fields) {
				t.found = append(t.found, q.Name)
				if len(t.found) > 1 {
					d.problem(e.key, path, "one quantile per SLO (this one has %s): write one SLO each", strings.Join(t.found, " and "))
					return
				}
				t.Quantile = q.Q
				t.Limit, _ = d.positiveDuration(e.val, path)
			}})
	}
	return section[sloItem]{name: name, keys: keys, check: func(d *decoder, t *sloItem, f *fields, path string) {
		if len(t.found) == 0 {
			d.problem(f.node, path, "no quantile: give one of %s with its limit (p99: 100ms)", strings.Join(metrics.QuantileNames(), ", "))
		}
	}}
}

// sloFrom decodes one {pNN: duration, at_rate: N}; at_rate is checked
// against the load, and not allowed without one (a search's SLO). false
// when it has problems.
func (d *decoder) sloFrom(n *yaml.Node, path, section string, l *LoadSpec) (SLO, bool) {
	before := len(d.problems)
	t := sloItem{load: l}
	f, ok := sloSection(section).decode(d, n, path, "a mapping such as {p99: 100ms, at_rate: 500}", &t)
	if !ok {
		return SLO{}, false
	}
	t.Pos = posOf(f.node)
	return t.SLO, len(d.problems) == before
}

func (d *decoder) slos(s *Spec, e entry, path string) {
	items, ok := d.seq(e, path, "SLOs {p99: 100ms, at_rate: 500}")
	if !ok {
		return
	}
	for i, it := range items {
		if slo, ok := d.sloFrom(it, index(path, i), "slo", &s.Load); ok {
			s.SLOs = append(s.SLOs, slo)
		}
	}
}

// searchSection is search: the capacity search.
func searchSection() section[Search] {
	return section[Search]{name: "search", keys: []key[Search]{
		{name: "slo", doc: "the latency to meet", missing: "the search needs the latency to meet, e.g. slo: {p99: 50ms}",
			dec: func(d *decoder, sr *Search, e entry, path string, _ *fields) {
				sr.SLO, _ = d.sloFrom(e.val, path, "search.slo", nil)
			}},
		{name: "fractions", doc: "open-model steps as fractions of the closed-model ceiling", dec: func(d *decoder, sr *Search, e entry, path string, _ *fields) {
			items, ok := d.nonEmptySeq(e, path, "fractions of the ceiling", "give fractions of the closed-model ceiling such as [0.3, 0.6, 0.9]")
			if !ok {
				return
			}
			sr.Fractions = nil
			for i, it := range items {
				p := index(path, i)
				v, ok := d.positive(it, p, 1, "a fraction of the ceiling, above 0 and at most 1")
				if !ok {
					continue
				}
				if n := len(sr.Fractions); n > 0 && v <= sr.Fractions[n-1] {
					d.problem(d.resolve(it), p, "%g is not above %g: list the fractions in increasing order", v, sr.Fractions[n-1])
					continue
				}
				sr.Fractions = append(sr.Fractions, v)
			}
		}},
		{name: "ceiling_repeats", doc: "closed-model runs for the ceiling", dec: func(d *decoder, sr *Search, e entry, path string, _ *fields) {
			v, _ := d.integer(e.val, path, 1, 1000, "at least 1 closed-model run for the ceiling")
			sr.CeilingRepeats = int(v)
		}},
		{name: "bracket_repeats", doc: "runs at each end of the capacity interval, which must all agree", dec: func(d *decoder, sr *Search, e entry, path string, _ *fields) {
			v, _ := d.integer(e.val, path, 1, 100, "1 to 100 runs at each end of the interval")
			sr.BracketRepeats = int(v)
		}},
		{name: "precision", doc: "stop bisecting when the gap next to an end, (high − low)/low, is at most this", dec: func(d *decoder, sr *Search, e entry, path string, _ *fields) {
			sr.Precision, _ = d.positive(e.val, path, 0.5, "a relative width such as 0.05, above 0 and at most 0.5")
		}},
		{name: "max_steps", doc: "bisection steps at most", dec: func(d *decoder, sr *Search, e entry, path string, _ *fields) {
			v, _ := d.integer(e.val, path, 1, 100, "1 to 100 bisection steps")
			sr.MaxSteps = int(v)
		}},
	}}
}

// search decodes search; Spec.Search stays nil when it has problems.
func (d *decoder) search(s *Spec, e entry, path string) {
	before := len(d.problems)
	sr := &Search{
		Fractions:      []float64{0.3, 0.6, 0.9},
		CeilingRepeats: DefaultCeilingRepeats,
		BracketRepeats: DefaultBracketRepeats,
		Precision:      DefaultPrecision,
		MaxSteps:       DefaultMaxSteps,
	}
	if _, ok := searchSection().decode(d, e.val, path, "a mapping (slo, fractions, ceiling_repeats, bracket_repeats, precision, max_steps)", sr); ok && len(d.problems) == before {
		s.Search = sr
	}
}
