package experiment

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The positioned YAML decoding: the file's nodes with their lines and
// columns, mappings with merge keys and aliases expanded within a node
// budget, and the scalar decoders that report a Problem at the value.

// decoder collects the problems of one file while its sections decode.
type decoder struct {
	dir      string
	problems []Problem
	budget   int  // nodes that may still be visited
	over     bool // budget exhausted (reported once)
	// every key given, by its path (load.rate): where cross-checks report
	marks map[string]*yaml.Node
	// the target is remote without a restart_command (decoded before the
	// variants)
	remoteNoRestart bool
	// the target is a server given by url (decoded before the variants);
	// false: the local cluster, or whatever the libpq environment names
	remoteTarget bool
	// the file names the local cluster (target.local)
	localGiven bool
}

func (d *decoder) problemAt(line, col int, path, format string, args ...any) {
	d.problems = append(d.problems, Problem{Line: line, Column: col, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (d *decoder) problem(n *yaml.Node, path, format string, args ...any) {
	line, col := 0, 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	d.problemAt(line, col, path, format, args...)
}

func (d *decoder) result(file string) error {
	if len(d.problems) == 0 {
		return nil
	}
	slices.SortStableFunc(d.problems, func(a, b Problem) int {
		if c := cmp.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.Column, b.Column)
	})
	return &ValidationError{File: file, Problems: d.problems}
}

// spend counts visited nodes; false once the budget is spent.
func (d *decoder) spend(n *yaml.Node, k int) bool {
	d.budget -= k
	if d.budget < 0 {
		if !d.over {
			d.over = true
			d.problem(n, "", "the file expands to more than %d YAML nodes (aliases and merge keys): write it out plainly", maxNodes)
		}
		return false
	}
	return true
}

// document parses the YAML text into its root mapping.
func (d *decoder) document(data []byte) (root *yaml.Node) {
	defer func() {
		// The YAML library is not ours: a panic on odd input is a problem
		// of the file, not a crash.
		if r := recover(); r != nil {
			root = nil
			d.problemAt(0, 0, "", "not valid YAML (%v)", r)
		}
	}()
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.problemAt(0, 0, "", "the file is empty: an experiment needs at least a load model, e.g. \"load: {rate: 500}\"")
			return nil
		}
		d.yamlError(err)
		return nil
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		d.problem(&next, "", "a second YAML document: an experiment file holds one (remove the \"---\")")
	case !errors.Is(err, io.EOF):
		d.yamlError(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		d.problemAt(1, 1, "", "the file holds no YAML mapping")
		return nil
	}
	root = d.resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
			d.problemAt(0, 0, "", "the file is empty: an experiment needs at least a load model, e.g. \"load: {rate: 500}\"")
			return nil
		}
		d.problem(root, "", "expected a mapping of keys (target, workload, load, protocol, variants, …), got %s", describe(root))
		return nil
	}
	return root
}

// yamlError turns the library's "yaml: line N: message" into a Problem.
func (d *decoder) yamlError(err error) {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msg = strings.Join(te.Errors, "; ")
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = n, tail
			}
		}
	}
	d.problemAt(line, 0, "", "not valid YAML: %s", msg)
}

// resolve follows an alias to the node it names.
func (d *decoder) resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	if n == nil || n.Kind == yaml.AliasNode {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	return n
}

// entry is one key: value of a mapping.
type entry struct {
	name     string
	key, val *yaml.Node // val resolved
}

// path is the entry's path in the mapping at parent.
func (e entry) path(parent string) string { return child(parent, e.name) }

// fields is a decoded mapping: its known keys.
type fields struct {
	node    *yaml.Node // the mapping, for problems about missing keys
	entries map[string]entry
}

func (f *fields) get(name string) (entry, bool) {
	e, ok := f.entries[name]
	return e, ok
}

// mapping checks that n is a mapping whose keys are allowed (those of
// section, see keyTable), expanding merge keys; unknown and repeated keys
// are problems.
func (d *decoder) mapping(n *yaml.Node, path, section string, allowed []string, what string) (*fields, bool) {
	n = d.resolve(n)
	if n.Kind != yaml.MappingNode {
		d.problem(n, path, "expected %s, got %s", what, describe(n))
		return nil, false
	}
	f := &fields{node: n, entries: map[string]entry{}}
	first := map[string]*yaml.Node{}
	merges, ok := d.pairs(n, path, "a plain name", func(k, v *yaml.Node) {
		name := k.Value
		if prev, dup := first[name]; dup {
			d.problem(k, child(path, name), "repeated key (first at line %d)", prev.Line)
			return
		}
		first[name] = k
		if !slices.Contains(allowed, name) {
			if section == "" && strings.HasPrefix(name, "x-") {
				return // room for anchors
			}
			d.problem(k, child(path, name), "%s", unknownKey(name, section))
			return
		}
		f.entries[name] = entry{name: name, key: k, val: d.resolve(v)}
	})
	if !ok {
		return f, false
	}
	for _, m := range merges {
		d.merge(f, m, path, section, allowed, map[*yaml.Node]bool{n: true}, 0)
	}
	return f, true
}

// pairs walks the key/value pairs of mapping n within the decoder's budget
// (spend): a merge key's (<<) value is kept for the caller to expand, a key
// that is not a scalar is a problem ("a key must be " + what), and every
// other pair goes to each, in order. It returns the merge keys' values, and
// false when the budget ran out.
func (d *decoder) pairs(n *yaml.Node, path, what string, each func(k, v *yaml.Node)) (merges []*yaml.Node, ok bool) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !d.spend(n, 2) {
			return merges, false
		}
		k, v := n.Content[i], n.Content[i+1]
		if isMerge(k) {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.problem(k, path, "a key must be %s, got %s", what, describe(d.resolve(k)))
			continue
		}
		each(k, v)
	}
	return merges, true
}

func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge"
}

// mergeable checks a merge key's (resolved) value v before it is expanded:
// within the node budget, not nested deeper than maxMergeNest, and not a
// mapping that contains the merge (a cycle). false: a problem was recorded
// (or the budget is spent) and v must not be expanded.
func (d *decoder) mergeable(v *yaml.Node, path string, active map[*yaml.Node]bool, depth int) bool {
	switch {
	case !d.spend(v, 1):
		return false
	case depth > maxMergeNest:
		d.problem(v, path, "merge keys (<<) nested more than %d deep", maxMergeNest)
		return false
	case active[v]:
		d.problem(v, path, "a merge key (<<) refers to a mapping that contains it")
		return false
	}
	return true
}

// merge adds the keys of a merge key's mapping(s) that f does not have yet
// (YAML's merge: explicit keys win, then earlier merged mappings).
func (d *decoder) merge(f *fields, v *yaml.Node, path, section string, allowed []string, active map[*yaml.Node]bool, depth int) {
	v = d.resolve(v)
	if !d.mergeable(v, path, active, depth) {
		return
	}
	switch {
	case v.Kind == yaml.SequenceNode:
		active[v] = true
		defer delete(active, v)
		for _, m := range v.Content {
			if m.Kind != yaml.AliasNode && d.resolve(m).Kind != yaml.MappingNode {
				d.problem(m, path, "a merge key (<<) takes mappings, got %s", describe(d.resolve(m)))
				continue
			}
			d.merge(f, m, path, section, allowed, active, depth+1)
		}
		return
	case v.Kind != yaml.MappingNode:
		d.problem(v, path, "a merge key (<<) takes a mapping or a list of mappings, got %s", describe(v))
		return
	}
	active[v] = true
	defer delete(active, v)
	inner, ok := d.pairs(v, path, "a plain name", func(k, val *yaml.Node) {
		if _, have := f.entries[k.Value]; have {
			return
		}
		if !slices.Contains(allowed, k.Value) {
			d.problem(k, child(path, k.Value), "%s (merged with <<)", unknownKey(k.Value, section))
			return
		}
		f.entries[k.Value] = entry{name: k.Value, key: k, val: d.resolve(val)}
	})
	if !ok {
		return
	}
	for _, m := range inner {
		d.merge(f, m, path, section, allowed, active, depth+1)
	}
}

// seq returns a list's items (unresolved, for their positions); null is an
// empty list.
func (d *decoder) seq(e entry, path, what string) ([]*yaml.Node, bool) {
	switch {
	case isNull(e.val):
		return nil, true
	case e.val.Kind != yaml.SequenceNode:
		d.problem(e.val, path, "expected a list of %s, got %s", what, describe(e.val))
		return nil, false
	}
	if !d.spend(e.val, len(e.val.Content)) {
		return nil, false
	}
	return e.val.Content, true
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// str is a scalar's text; null is a problem.
func (d *decoder) str(n *yaml.Node, path, what string) (string, bool) {
	n = d.resolve(n)
	switch {
	case n.Kind != yaml.ScalarNode:
		d.problem(n, path, "expected %s, got %s", what, describe(n))
		return "", false
	case isNull(n):
		d.problem(n, path, "no value: expected %s", what)
		return "", false
	case strings.IndexByte(n.Value, 0) >= 0:
		d.problem(n, path, "the value contains a NUL character")
		return "", false
	}
	return n.Value, true
}

// nonEmpty is a scalar's text, which must not be blank.
func (d *decoder) nonEmpty(n *yaml.Node, path, what string) (string, bool) {
	s, ok := d.str(n, path, what)
	if ok && strings.TrimSpace(s) == "" {
		d.problem(d.resolve(n), path, "empty: expected %s", what)
		return "", false
	}
	return s, ok
}

// integer is a whole number in [lo, hi].
func (d *decoder) integer(n *yaml.Node, path string, lo, hi int64, rule string) (int64, bool) {
	n = d.resolve(n)
	var v int64
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" {
			d.problem(n, path, "%s is not a whole number: %s", n.Value, rule)
		} else {
			d.problem(n, path, "expected a whole number (%s), got %s", rule, describe(n))
		}
		return 0, false
	}
	if v < lo || v > hi {
		d.problem(n, path, "%d is out of range: %s", v, rule)
		return 0, false
	}
	return v, true
}

// positive is a finite number in (0, hi]; rule says what it is.
func (d *decoder) positive(n *yaml.Node, path string, hi float64, rule string) (float64, bool) {
	n = d.resolve(n)
	var v float64
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") || n.Decode(&v) != nil {
		d.problem(n, path, "expected a number (%s), got %s", rule, describe(n))
		return 0, false
	}
	if !(v > 0) || v > hi || math.IsInf(v, 0) {
		d.problem(n, path, "%s is out of range: %s", n.Value, rule)
		return 0, false
	}
	return v, true
}

// boolean is true or false.
func (d *decoder) boolean(n *yaml.Node, path string) (bool, bool) {
	n = d.resolve(n)
	var v bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&v) != nil {
		d.problem(n, path, "expected true or false, got %s", describe(n))
		return false, false
	}
	return v, true
}

// durationIn is a duration from lo to hi; outside them it is a problem
// ("… is out of range: use " + use).
func (d *decoder) durationIn(n *yaml.Node, path string, lo, hi time.Duration, use string) (time.Duration, bool) {
	v, ok := d.duration(n, path)
	if ok && (v < lo || v > hi) {
		d.problem(n, path, "%v is out of range: use %s", v, use)
		return 0, false
	}
	return v, ok
}

// nonEmptySeq is seq for a list that needs an item: an empty one is a
// problem ("empty: " + give).
func (d *decoder) nonEmptySeq(e entry, path, what, give string) ([]*yaml.Node, bool) {
	items, ok := d.seq(e, path, what)
	if ok && len(items) == 0 {
		d.problem(e.val, path, "empty: %s", give)
		return nil, false
	}
	return items, ok
}

// duration is a non-negative duration in Go syntax.
func (d *decoder) duration(n *yaml.Node, path string) (time.Duration, bool) {
	n = d.resolve(n)
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.problem(n, path, "expected a duration such as 90s or 2m, got %s", describe(n))
		return 0, false
	}
	s := strings.TrimSpace(n.Value)
	tag := n.ShortTag()
	if _, err := strconv.ParseFloat(s, 64); tag == "!!int" || tag == "!!float" || err == nil && s != "" && strings.IndexByte("0123456789.+-", s[0]) >= 0 {
		d.problem(n, path, "%s has no unit: write a duration such as %ss, %sms or 2m", s, s, s)
		return 0, false
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		d.problem(n, path, "%q is not a duration: use Go syntax such as 90s, 2m, 1m30s or 250ms", n.Value)
		return 0, false
	}
	if v < 0 {
		d.problem(n, path, "%s is negative", s)
		return 0, false
	}
	return v, true
}

// positiveDuration is a duration above zero.
func (d *decoder) positiveDuration(n *yaml.Node, path string) (time.Duration, bool) {
	v, ok := d.duration(n, path)
	if ok && v == 0 {
		d.problem(d.resolve(n), path, "must be longer than 0")
		return 0, false
	}
	return v, ok
}

// oneOf is a scalar that must be one of choices (case-insensitive).
func (d *decoder) oneOf(n *yaml.Node, path string, choices ...string) (string, bool) {
	s, ok := d.str(n, path, strings.Join(choices, " or "))
	if !ok {
		return "", false
	}
	for _, c := range choices {
		if strings.EqualFold(s, c) {
			return c, true
		}
	}
	msg := fmt.Sprintf("%q: expected %s", s, quoteList(choices, "or"))
	if sug := closest(strings.ToLower(s), choices); sug != "" {
		msg += fmt.Sprintf("; did you mean %q?", sug)
	}
	d.problem(d.resolve(n), path, "%s", msg)
	return "", false
}

// describe names a node's type for "expected X, got Y".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing (null)"
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!bool":
			return n.Value
		}
		return shown(n.Value)
	}
	return "an alias"
}

// shown quotes a value for a message: cut to 40 bytes, and not at all when
// it may be a connection string with a password.
func shown(v string) string {
	if strings.Contains(v, "://") || strings.Contains(strings.ToLower(v), "password") {
		return "a connection string (not shown)"
	}
	if len(v) > 40 {
		v = strings.ToValidUTF8(v[:40], "") + "…"
	}
	return strconv.Quote(v)
}

func child(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

func posOf(n *yaml.Node) Pos { return Pos{Line: n.Line, Column: n.Column} }

// validName: letters, digits, '_', '.', '-', 1 to 64 bytes, not starting
// with '.' or '-' (a directory name; the local cluster's rule).
func validName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// validSettingName: a PostgreSQL parameter name (letters, digits, '_',
// '.' for an extension's parameters such as pg_stat_statements.max).
func validSettingName(s string) bool {
	if s == "" || len(s) > 63 || s[0] == '.' || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
