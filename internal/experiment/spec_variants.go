package experiment

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pgtrial/pgtrial/internal/localpg"
)

// The variants and injections sections.

// variantItem is one variant while it decodes, with the names of those
// before it.
type variantItem struct {
	Variant
	names map[string]int // name → line
}

// variantSection is one item of variants.
func variantSection() section[variantItem] {
	return section[variantItem]{name: "variants", keys: []key[variantItem]{
		{name: "name", doc: "names its runs and the verdicts", missing: "every variant needs one (it names its runs and the verdicts)",
			dec: func(d *decoder, v *variantItem, e entry, path string, _ *fields) {
				name, ok := d.nonEmpty(e.val, path, "a name")
				if !ok {
					return
				}
				switch line, dup := v.names[name]; {
				case dup:
					d.problem(e.val, path, "duplicate variant name %q (first at line %d)", name, line)
				case !validName(name):
					d.problem(e.val, path, "%q: use letters, digits, '_', '.' and '-' (at most 64, not starting with '.' or '-'): it names the variant's run directories", name)
				default:
					v.names[name] = e.val.Line
					v.Name = name
				}
			}},
		{name: "settings", doc: "server settings, ALTER SYSTEM SET", dec: func(d *decoder, v *variantItem, e entry, path string, _ *fields) {
			v.Settings = d.settings(e, path)
		}},
		{name: "setup", doc: "SQL before the variant's runs", dec: func(d *decoder, v *variantItem, e entry, path string, _ *fields) {
			v.Setup = d.sqlList(e, path)
		}},
		{name: "teardown", doc: "SQL after them", dec: func(d *decoder, v *variantItem, e entry, path string, _ *fields) {
			v.Teardown = d.sqlList(e, path)
		}},
	}}
}

func (d *decoder) variants(s *Spec, e entry, path string) {
	s.Variants = nil
	items, ok := d.seq(e, path, "variants {name, settings, setup, teardown}")
	if !ok {
		return
	}
	if len(items) == 0 {
		d.problem(e.key, path, "empty: give at least one variant ({name: A}), or leave the key out for one variant named %q", DefaultVariant)
		return
	}
	names := map[string]int{}
	for i, it := range items {
		v := variantItem{Variant: Variant{Pos: posOf(d.resolve(it))}, names: names}
		if _, ok := variantSection().decode(d, it, index(path, i), "a mapping {name, settings, setup, teardown}", &v); ok {
			s.Variants = append(s.Variants, v.Variant)
		}
	}
}

func (d *decoder) settings(e entry, path string) []Setting {
	n := e.val
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.problem(n, path, "expected a mapping of setting: value, got %s", describe(n))
		return nil
	}
	var out []Setting
	seen := map[string]int{}
	add := func(k, v *yaml.Node) {
		p := child(path, k.Value)
		name := strings.ToLower(k.Value) // PostgreSQL's names are case-insensitive
		if !validSettingName(k.Value) {
			d.problem(k, p, "%q is not a setting name (letters, digits, '_', and '.' for an extension's settings)", k.Value)
			return
		}
		if line, dup := seen[name]; dup {
			d.problem(k, p, "repeated setting (first at line %d)", line)
			return
		}
		seen[name] = k.Line
		rv := d.resolve(v)
		if rv.Kind == yaml.ScalarNode && isNull(rv) {
			d.problem(rv, p, "no value: give the value to set (quote it for an empty string: \"\")")
			return
		}
		val, ok := d.str(v, p, "a value (settings are set as text, e.g. 1GB, on, 0.9)")
		if ok && !d.remoteTarget && localpg.IsManagedSetting(name) {
			d.problem(k, p, "%s", localManagedProblem(name, d.localGiven))
			return
		}
		if ok && d.remoteNoRestart && NeedsRestart(name) {
			// Restart settings on a remote server need a way to restart it.
			d.problem(k, p, "needs a server restart, and the target is a remote server (target.url) without target.restart_command: "+
				"give the command that restarts it, or use the local cluster")
		}
		if ok {
			out = append(out, Setting{Name: name, Value: val, Pos: posOf(k)})
		}
	}
	merges, ok := d.pairs(n, path, "a setting name", add)
	if !ok {
		return out
	}
	// Merged settings: those not given explicitly, in merge order.
	active := map[*yaml.Node]bool{n: true}
	var expand func(m *yaml.Node, depth int)
	expand = func(m *yaml.Node, depth int) {
		m = d.resolve(m)
		if !d.mergeable(m, path, active, depth) {
			return
		}
		switch m.Kind {
		case yaml.SequenceNode:
			active[m] = true
			defer delete(active, m)
			for _, x := range m.Content {
				expand(x, depth+1)
			}
		case yaml.MappingNode:
			active[m] = true
			defer delete(active, m)
			for i := 0; i+1 < len(m.Content); i += 2 {
				if !d.spend(m, 2) {
					return
				}
				k, v := m.Content[i], m.Content[i+1]
				switch {
				case isMerge(k):
					expand(v, depth+1)
				case k.Kind == yaml.ScalarNode:
					if _, have := seen[strings.ToLower(k.Value)]; !have {
						add(k, v)
					}
				}
			}
		default:
			d.problem(m, path, "a merge key (<<) takes a mapping or a list of mappings, got %s", describe(m))
		}
	}
	for _, m := range merges {
		expand(m, 0)
	}
	return out
}

// localManagedProblem is why a variant may not set name (listen_addresses,
// port or unix_socket_directories) on the local cluster: pgtrial keeps it
// on loopback, its port and its own socket (localpg.IsManagedSetting).
// given: the file names the local cluster; else it is the target unless
// the libpq environment names a server, and such a server cannot be
// restarted for these settings either (they all need a restart, and
// restart_command goes with target.url).
func localManagedProblem(name string, given bool) string {
	where := "the target is the local cluster"
	if !given {
		where = "the target is the local cluster (no target.url; a server from the libpq environment could not be restarted for it either)"
	}
	return fmt.Sprintf("%s says where the server listens, and %s, which pgtrial keeps on %s, its own port and socket: "+
		"a variant may not change it; to experiment with it, give a server of your own as target.url (with target.restart_command)",
		name, where, localpg.ListenAddress)
}

// sqlList is a list of SQL statements.
func (d *decoder) sqlList(e entry, path string) []string {
	items, ok := d.seq(e, path, "SQL statements")
	if !ok {
		return nil
	}
	var out []string
	for i, it := range items {
		if v, ok := d.nonEmpty(it, index(path, i), "an SQL statement"); ok {
			out = append(out, v)
		}
	}
	return out
}

// injectionSection is one item of injections.
func injectionSection() section[Injection] {
	return section[Injection]{name: "injections", keys: []key[Injection]{
		{name: "at", doc: "when, from the start of the measured window", missing: "when to inject, from the start of the measured window (e.g. at: 20s)",
			dec: func(d *decoder, inj *Injection, e entry, path string, _ *fields) {
				inj.atPos = posOf(e.val)
				inj.At, _ = d.duration(e.val, path)
			}},
		{name: "kind", doc: "lock, checkpoint or vacuum", missing: "lock, checkpoint or vacuum", dec: func(d *decoder, inj *Injection, e entry, path string, _ *fields) {
			switch v, ok := d.oneOf(e.val, path, "lock", "checkpoint", "vacuum"); {
			case !ok:
			case v == "lock":
				inj.Kind = InjectLock
			case v == "checkpoint":
				inj.Kind = InjectCheckpoint
			default:
				inj.Kind = InjectVacuum
			}
		}},
		{name: "table", doc: "the table locked or vacuumed", dec: func(d *decoder, inj *Injection, e entry, path string, _ *fields) {
			inj.Table, _ = d.nonEmpty(e.val, path, "a table name")
		}},
		{name: "duration", doc: "how long a lock is held", dec: func(d *decoder, inj *Injection, e entry, path string, _ *fields) {
			inj.durPos = posOf(e.val)
			inj.Duration, _ = d.positiveDuration(e.val, path)
		}},
	}, check: func(d *decoder, inj *Injection, f *fields, path string) {
		te, hasTable := f.get("table")
		de, hasDur := f.get("duration")
		switch inj.Kind {
		case InjectLock:
			if !hasTable {
				d.problem(f.node, path, "a lock needs a table (table: pgbench_branches)")
			}
			if !hasDur {
				d.problem(f.node, path, "a lock needs a duration: how long it is held (duration: 5s)")
			}
		case InjectCheckpoint:
			if hasTable {
				d.problem(te.key, te.path(path), "a checkpoint takes no table")
			}
			if hasDur {
				d.problem(de.key, de.path(path), "a checkpoint takes no duration: only a lock is held for a time")
			}
		case InjectVacuum:
			if hasDur {
				d.problem(de.key, de.path(path), "a vacuum takes no duration: only a lock is held for a time")
			}
		}
	}}
}

func (d *decoder) injections(s *Spec, e entry, path string) {
	items, ok := d.seq(e, path, "injections {at, kind, table, duration}")
	if !ok {
		return
	}
	for i, it := range items {
		before := len(d.problems)
		inj := Injection{Pos: posOf(d.resolve(it)), index: i}
		if _, ok := injectionSection().decode(d, it, index(path, i), "a mapping {at, kind, table, duration}", &inj); ok && len(d.problems) == before {
			s.Injections = append(s.Injections, inj)
		}
	}
}
