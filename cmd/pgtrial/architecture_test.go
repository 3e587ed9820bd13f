package main

// TestArchitectureMap keeps docs/ARCHITECTURE.md's code map true: every
// package under internal/ (and cmd/, schema/) has a row, every row names a
// package that exists, and a package imports (in its non-test files) only
// what its row says it may.

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const modulePath = "github.com/pgtrial/pgtrial/"

func TestArchitectureMap(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := codeMap(t, string(doc))

	// The packages: directories under internal/ (and cmd/, and the top-level
	// schema/) with non-test Go files.
	pkgs := map[string][]string{} // "engine" → its imports of ours, as in the map ("report/format")
	for _, top := range []string{"internal", "cmd", "schema"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() || d.Name() == "testdata" {
				if d != nil && d.IsDir() && d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return err
			}
			imports, ok := packageImports(t, path)
			if !ok {
				return nil
			}
			rel, _ := filepath.Rel(filepath.Join(root, "internal"), path)
			if top != "internal" {
				rel, _ = filepath.Rel(root, path)
			}
			pkgs[filepath.ToSlash(rel)] = imports
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	for name := range pkgs {
		if _, ok := rows[name]; !ok {
			t.Errorf("package %s is not in docs/ARCHITECTURE.md's code map", name)
		}
	}
	for name, allowed := range rows {
		imports, ok := pkgs[name]
		if !ok {
			t.Errorf("docs/ARCHITECTURE.md lists %s, which is not a package", name)
			continue
		}
		if slices.Contains(allowed, "everything below") {
			continue
		}
		for _, imp := range imports {
			if !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s, which its row in docs/ARCHITECTURE.md does not allow (%s)", name, imp, strings.Join(allowed, ", "))
			}
		}
	}
}

// codeMap reads the rows of the "Code map" table: `a`, `b` → the packages
// of the first cell, each with the list of the last cell.
func codeMap(t *testing.T, doc string) map[string][]string {
	_, after, ok := strings.Cut(doc, "## Code map")
	if !ok {
		t.Fatal("docs/ARCHITECTURE.md has no \"## Code map\" section")
	}
	section, _, _ := strings.Cut(after, "\n## ")
	rows := map[string][]string{}
	for line := range strings.Lines(section) {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) < 5 || !strings.Contains(cells[1], "`") {
			continue
		}
		var allowed []string
		for a := range strings.SplitSeq(cells[len(cells)-2], ",") {
			if a = strings.TrimSpace(a); a != "" && a != "—" {
				allowed = append(allowed, a)
			}
		}
		for name := range strings.SplitSeq(cells[1], ",") {
			name = strings.Trim(strings.TrimSpace(name), "`")
			if name != "" {
				rows[name] = allowed
			}
		}
	}
	if len(rows) == 0 {
		t.Fatal("docs/ARCHITECTURE.md's code map has no rows")
	}
	return rows
}

// packageImports is the imports of pgtrial's packages in dir's non-test Go
// files, relative to internal/ ("engine", "report/format") or, outside it,
// to the module ("schema"); false when dir has none.
func packageImports(t *testing.T, dir string) ([]string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		found = true
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			rest, ok := strings.CutPrefix(p, modulePath+"internal/")
			if !ok {
				rest, ok = strings.CutPrefix(p, modulePath)
			}
			if ok && !slices.Contains(out, rest) {
				out = append(out, rest)
			}
		}
	}
	return out, found
}
