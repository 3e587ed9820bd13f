package experiment

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/target"
	"github.com/pgtrial/pgtrial/internal/tpcc"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// The target and workload sections.

// targetSection is target: the server.
func targetSection() section[Target] {
	return section[Target]{name: "target", keys: []key[Target]{
		{name: "url", doc: "a server's connection string instead of the local cluster", dec: func(d *decoder, t *Target, e entry, path string, _ *fields) {
			if v, ok := d.nonEmpty(e.val, path, "a connection string (postgres:// URL or key=value)"); ok {
				if err := target.CheckScheme(v); err != nil {
					d.problem(d.resolve(e.val), path, "%v", err)
					return
				}
				t.URL = v
				t.Local = ""
				t.Given = "the file's target.url"
			}
		}},
		{name: "local", doc: "true: the local cluster \"default\"; or a local cluster's name", dec: func(d *decoder, t *Target, e entry, path string, f *fields) {
			_, hasURL := f.get("url")
			n := e.val
			if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
				var on bool
				_ = n.Decode(&on)
				switch {
				case on && hasURL:
					d.problem(e.key, path, "url and local exclude each other: the target is either a server (url) or a local cluster")
				case !on && !hasURL:
					d.problem(n, path, "false, but no url: give the server as target.url, or use the local cluster (local: true)")
				case on:
					t.Given = "the file's target.local"
				}
				return
			}
			if v, ok := d.nonEmpty(n, path, "true or a local cluster's name"); ok {
				switch {
				case hasURL:
					d.problem(e.key, path, "url and local exclude each other: the target is either a server (url) or a local cluster")
				case !validName(v):
					d.problem(n, path, "%s is not a cluster name: use letters, digits, '_', '.', '-' (at most 64, not starting with '.' or '-'); a server is target.url", shown(v))
				default:
					t.Local = v
					t.Given = "the file's target.local"
				}
			}
		}},
		{name: "restart_command", doc: "the shell command that restarts a remote server", dec: func(d *decoder, t *Target, e entry, path string, f *fields) {
			if v, ok := d.nonEmpty(e.val, path, "a shell command"); ok {
				if _, hasURL := f.get("url"); !hasURL {
					d.problem(e.key, path, "applies to a server given by url: a local cluster is restarted with pg_ctl")
				} else {
					t.RestartCommand = v
				}
			}
		}},
		{name: "node_exporter", doc: "OS metrics of a remote server (--node-exporter)", dec: func(d *decoder, t *Target, e entry, path string, _ *fields) {
			t.NodeExporter, _ = d.nonEmpty(e.val, path, "host:port or URL of a node_exporter")
		}},
	}, check: func(d *decoder, t *Target, _ *fields, _ string) {
		// The variants' restart settings need a way to restart a remote server.
		d.remoteNoRestart = t.Remote() && t.RestartCommand == ""
		d.remoteTarget, d.localGiven = t.Remote(), !t.Remote() && t.Given != ""
	}}
}

// workloadSection is workload: what the clients run.
func workloadSection() section[Workload] {
	return section[Workload]{name: "workload", keys: []key[Workload]{
		{name: "builtin", doc: "a built-in script (-b; a prefix works)", dec: func(d *decoder, w *Workload, e entry, path string, f *fields) {
			if _, both := f.get("scripts"); both {
				return // reported at scripts
			}
			v, ok := d.nonEmpty(e.val, path, "a built-in script's name")
			if !ok {
				return
			}
			if mode, ok := tpcc.ModeOf(v); ok { // the TPC-C-like mixes (spec_tpcc.go)
				w.Builtin, w.TPCCMode = strings.ToLower(v), mode
				return
			}
			bi, n := workload.FindBuiltin(v)
			if n == 1 {
				w.Builtin = bi.Name
				return
			}
			d.problem(e.val, path, "%s %q: choose %s (any unambiguous prefix), or give script files (scripts)", workload.NotOneBuiltin(n), v, quoteList(workload.BuiltinNames(), "or"))
		}},
		{name: "scale", doc: "the pgbench scale to load (pgtrial init -s)", dec: func(d *decoder, w *Workload, e entry, path string, _ *fields) {
			if v, ok := d.integer(e.val, path, 1, math.MaxInt32, "the pgbench scale is 1 to 2147483647"); ok {
				w.Scale = int(v)
			}
		}},
		{name: "warehouses", doc: "builtin tpcc: the TPC-C warehouses, loaded (pgtrial init -w tpcc --warehouses N) when the database has another count", dec: decodeWarehouses},
		{name: "mode", doc: "builtin tpcc: spec (keying and think times, 10 terminals per warehouse) or throughput (no waits)", dec: decodeTPCCMode},
		{name: "scripts", doc: "script files instead of builtin (-f)", dec: func(d *decoder, w *Workload, e entry, path string, f *fields) {
			if _, both := f.get("builtin"); both {
				d.problem(e.key, path, "builtin and scripts exclude each other: run a built-in script or script files")
				return
			}
			w.Builtin = ""
			d.scripts(w, e, path)
		}},
		{name: "variables", doc: "script variables (-D NAME=VALUE)", dec: func(d *decoder, w *Workload, e entry, path string, _ *fields) {
			d.variables(w, e.val, path)
		}},
		{name: "protocol", doc: "the query protocol (-M)", dec: func(d *decoder, w *Workload, e entry, path string, _ *fields) {
			if v, ok := d.oneOf(e.val, path, "simple", "extended", "prepared"); ok {
				w.Protocol, _ = script.ParseMode(v)
			}
		}},
		{name: "max_tries", doc: "tries of a serialization failure or deadlock (--max-tries)", dec: func(d *decoder, w *Workload, e entry, path string, _ *fields) {
			if v, ok := d.integer(e.val, path, 0, math.MaxInt32, "1 or more, or 0 for unlimited"); ok {
				w.MaxTries = int(v)
			}
		}},
		{name: "continue_on_error", doc: "count other SQL errors as failures (--continue-on-error)", dec: func(d *decoder, w *Workload, e entry, path string, _ *fields) {
			w.ContinueOnError, _ = d.boolean(e.val, path)
		}},
	}, check: checkTPCCKeys}
}

// scriptSection is one item of workload.scripts.
func scriptSection() section[Script] {
	return section[Script]{name: "workload.scripts", keys: []key[Script]{
		{name: "file", doc: "the script file, relative to the experiment file", missing: "each script needs {file: NAME.sql}",
			dec: func(d *decoder, sc *Script, e entry, path string, _ *fields) {
				name, ok := d.nonEmpty(e.val, path, "a script file's name")
				if !ok {
					return
				}
				sc.File, sc.Path = name, name
				if !filepath.IsAbs(name) {
					sc.Path = filepath.Join(d.dir, name)
				}
				d.checkScript(e.val, path, sc.Path)
			}},
		{name: "weight", doc: "how often the script is chosen (default 1)", dec: func(d *decoder, sc *Script, e entry, path string, _ *fields) {
			if v, ok := d.integer(e.val, path, 0, math.MaxInt32, "a weight is 0 to 2147483647"); ok {
				sc.Weight = int(v)
			}
		}},
	}}
}

// scripts decodes workload.scripts and checks each file: it exists, and
// parses as a pgbench script.
func (d *decoder) scripts(w *Workload, e entry, path string) {
	items, ok := d.nonEmptySeq(e, path, "{file, weight}", "give at least one script file, e.g. [{file: mix.sql}]")
	if !ok {
		return
	}
	if len(items) > engine.MaxScripts {
		d.problem(e.val, path, "%d scripts: at most %d are allowed", len(items), engine.MaxScripts)
		return
	}
	total := int64(0)
	for i, it := range items {
		before := len(d.problems)
		sc := Script{Weight: 1, Pos: posOf(d.resolve(it))}
		if _, ok := scriptSection().decode(d, it, index(path, i), "a mapping {file: NAME.sql, weight: N}", &sc); !ok || len(d.problems) > before {
			continue
		}
		total += int64(sc.Weight)
		w.Scripts = append(w.Scripts, sc)
	}
	if total == 0 && len(w.Scripts) == len(items) {
		d.problem(e.val, path, "the weights add up to 0: give at least one script a positive weight")
	}
}

func (d *decoder) checkScript(n *yaml.Node, path, file string) {
	st, err := os.Stat(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		d.problem(n, path, "%s does not exist (script files are found relative to the experiment file)", file)
		return
	case err != nil:
		d.problem(n, path, "%v", err)
		return
	case !st.Mode().IsRegular():
		d.problem(n, path, "%s is not a regular file", file)
		return
	case st.Size() > maxScriptSize:
		d.problem(n, path, "%s is larger than %d bytes: not a pgbench script", file, maxScriptSize)
		return
	}
	data, err := readLimited(file, maxScriptSize)
	switch {
	case err != nil:
		d.problem(n, path, "%v", err)
		return
	case len(data) > maxScriptSize:
		d.problem(n, path, "%s is larger than %d bytes: not a pgbench script", file, maxScriptSize)
		return
	}
	parsed, err := script.Parse(file, string(data))
	if err != nil {
		var pe *script.ParseError
		if errors.As(err, &pe) && pe.AtLine > 0 {
			d.problem(n, path, "%v (at %s)", err, pe.Where())
		} else {
			d.problem(n, path, "%v", err)
		}
		return
	}
	if len(parsed.Commands) == 0 {
		d.problem(n, path, "%s has no commands", file)
		return
	}
	if err := parsed.CheckConditionals(); err != nil {
		var ce *script.ConditionError
		if errors.As(err, &ce) {
			d.problem(n, path, "%v (at %s)", err, ce.Where())
		} else {
			d.problem(n, path, "%v", err)
		}
	}
}

// variables decodes workload.variables in file order (their keys are free,
// so mapping's key check is not used).
func (d *decoder) variables(w *Workload, n *yaml.Node, path string) {
	n = d.resolve(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.problem(n, path, "expected a mapping of NAME: VALUE, got %s", describe(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !d.spend(n, 2) {
			return
		}
		if isMerge(k) || k.Kind != yaml.ScalarNode {
			d.problem(k, path, "a key must be a variable name")
			continue
		}
		p := child(path, k.Value)
		if !script.ValidVarName(k.Value) {
			d.problem(k, p, "%q is not a variable name (letters, digits, '_'; not starting with a digit)", k.Value)
			continue
		}
		if line, dup := seen[k.Value]; dup {
			d.problem(k, p, "repeated variable (first at line %d)", line)
			continue
		}
		seen[k.Value] = k.Line
		if val, ok := d.str(v, p, "a value"); ok {
			w.Variables = append(w.Variables, Variable{Name: k.Value, Value: val})
		}
	}
}
