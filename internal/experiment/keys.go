package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The key tables: each mapping of the file (a section) is a table of its
// keys, each key written once with its decoder and a line of doc. The
// same table gives the keys a mapping allows (unknown keys are problems,
// with the closest known key or the section a key belongs in) and decodes
// the keys given, in the table's order. The package documentation shows
// every key (TestDocShowsEveryKey).

// key is one key of a section whose decoded values go into a T.
type key[T any] struct {
	name string
	doc  string
	// missing, if set, makes the key required: without it the problem is
	// "no NAME: " + missing, at the mapping.
	missing string
	// dec decodes the key's value into t; path is the key's path
	// (variants[1].settings) and f the mapping, for the rules between
	// its keys.
	dec func(d *decoder, t *T, e entry, path string, f *fields)
}

// section is the table of one mapping's keys.
type section[T any] struct {
	name string // its place: "" for the top level, "load.ramp", "variants" (each item)
	keys []key[T]
	// check, if set, runs after the keys decoded: rules between keys
	// given or left out.
	check func(d *decoder, t *T, f *fields, path string)
}

// names are the section's keys in table order.
func (s section[T]) names() []string {
	out := make([]string, len(s.keys))
	for i, k := range s.keys {
		out[i] = k.name
	}
	return out
}

func (s section[T]) table() keyTable { return keyTable{s.name, s.names()} }

// decode checks that n (at path) is a mapping of the section's keys and
// decodes them into t; what describes the mapping for "expected …, got".
// false when n is not a mapping or the node budget is spent.
func (s section[T]) decode(d *decoder, n *yaml.Node, path, what string, t *T) (*fields, bool) {
	f, ok := d.mapping(n, path, s.name, s.names(), what)
	if !ok {
		return f, false
	}
	for _, k := range s.keys {
		e, given := f.get(k.name)
		p := child(path, k.name)
		switch {
		case given:
			d.marks[p] = e.key
			if k.dec != nil {
				k.dec(d, t, e, p, f)
			}
		case k.missing != "":
			d.problem(f.node, path, "no %s: %s", k.name, k.missing)
		}
	}
	if s.check != nil {
		s.check(d, t, f, path)
	}
	return f, true
}

// keyTable is a section's name and keys, for messages about keys.
type keyTable struct {
	section string
	keys    []string
}

// keyTables are every section's keys ("" is the top level), in the order
// of the file's documentation.
func keyTables() []keyTable {
	return []keyTable{
		topSection().table(),
		targetSection().table(),
		workloadSection().table(),
		scriptSection().table(),
		loadSection().table(),
		rampSection().table(),
		scenarioSection().table(),
		protocolSection().table(),
		calibrateSection().table(),
		variantSection().table(),
		injectionSection().table(),
		sloSection("slo").table(),
		searchSection().table(),
		sloSection("search.slo").table(),
		collectSection().table(),
		dataSection().table(),
		dataShapeSection().table(),
		dataAgeSection().table(),
	}
}

// sectionKeys are the keys a section allows.
func sectionKeys(section string) []string {
	for _, t := range keyTables() {
		if t.section == section {
			return t.keys
		}
	}
	return nil
}

// sectionPath is how a section is written in messages.
func sectionPath(section string) string {
	switch section {
	case "":
		return "the top level"
	case "workload.scripts", "variants", "injections", "slo", "scenarios", "data.shape":
		return section + "[…]"
	}
	return section
}

// unknownKey explains an unknown key: the closest known key of the
// section, or the section the key belongs to, or the list of known keys.
func unknownKey(name, section string) string {
	allowed := sectionKeys(section)
	if sug := closest(strings.ToLower(name), allowed); sug != "" {
		return fmt.Sprintf("unknown key %q; did you mean %q?", name, sug)
	}
	var homes []string
	for _, t := range keyTables() {
		if t.section != section && slices.Contains(t.keys, name) {
			homes = append(homes, sectionPath(t.section))
		}
	}
	if len(homes) > 0 {
		return fmt.Sprintf("unknown key %q here: it belongs in %s", name, strings.Join(homes, " or "))
	}
	return fmt.Sprintf("unknown key %q: expected %s", name, quoteList(allowed, "or"))
}

// closest is the choice nearest to s by edit distance (optimal string
// alignment: insertions, deletions, substitutions and swaps of neighbours
// cost 1), if it is near enough: 1 edit for names up to 4 bytes, 2 beyond.
func closest(s string, choices []string) string {
	limit := 1
	if len(s) > 4 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, c := range choices {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 64
	}
	// d[i][j] = distance between a[:i] and b[:j]
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func quoteList(items []string, conj string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + conj + " " + q[len(q)-1]
}
