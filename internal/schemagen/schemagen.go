// Package schemagen makes the JSON Schema (draft 2020-12) of a Go type as
// encoding/json writes it: a struct is an object with exactly its fields
// (additionalProperties false), a field is required unless omitempty or
// omitzero can leave it out, and a slice, map, pointer or interface that is
// not omitted when nil may be null. Each named struct type is one entry of
// $defs, named "package.Type", described by its Go doc comment, and each
// field by its own (read from the package's source with go/parser).
//
// The published schemas (schema/*.schema.json) are generated with it from
// the types that write the files, by internal/cli's TestSchemas, so that a
// field added to a type and not to its schema fails a test.
package schemagen

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Schema is one JSON Schema; its fields are written in this order.
type Schema struct {
	SchemaURI   string `json:"$schema,omitempty"`
	ID          string `json:"$id,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Ref         string `json:"$ref,omitempty"`
	// Type is a type name ("object") or a list of them (["array", "null"]).
	Type                 any         `json:"type,omitempty"`
	Const                any         `json:"const,omitempty"`
	Enum                 []any       `json:"enum,omitempty"`
	Format               string      `json:"format,omitempty"`
	Minimum              *float64    `json:"minimum,omitempty"`
	Maximum              *float64    `json:"maximum,omitempty"`
	Items                *Schema     `json:"items,omitempty"`
	MinItems             *int        `json:"minItems,omitempty"`
	MaxItems             *int        `json:"maxItems,omitempty"`
	Properties           *Properties `json:"properties,omitempty"`
	Required             []string    `json:"required,omitempty"`
	AdditionalProperties any         `json:"additionalProperties,omitempty"` // false or a *Schema
	AnyOf                []*Schema   `json:"anyOf,omitempty"`
	Defs                 *Properties `json:"$defs,omitempty"`
}

// Properties are named schemas in the order given (JSON objects keep it).
type Properties struct {
	names   []string
	schemas map[string]*Schema
}

// Set adds or replaces name's schema; a new name goes last.
func (p *Properties) Set(name string, s *Schema) {
	if p.schemas == nil {
		p.schemas = map[string]*Schema{}
	}
	if _, ok := p.schemas[name]; !ok {
		p.names = append(p.names, name)
	}
	p.schemas[name] = s
}

// Get is name's schema, nil when there is none.
func (p *Properties) Get(name string) *Schema { return p.schemas[name] }

// Names are the names in order.
func (p *Properties) Names() []string { return slices.Clone(p.names) }

// MarshalJSON writes the properties as an object in their order.
func (p *Properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, name := range p.names {
		if i > 0 {
			b.WriteByte(',')
		}
		// Unescaped: a description's "<" stays "<".
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(name); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(p.schemas[name]); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Options are a document's identity and the constraints the types cannot
// say.
type Options struct {
	ID, Title, Description string
	// Fields constrain fields further, by "package.Type.json_name"
	// ("results.Run.schema"): a const, an enum, a narrower type. Every key
	// must name a field the document has.
	Fields map[string]func(*Schema)
	// Optional are constraints as Fields' for the fields a document may
	// not have (those several documents share).
	Optional map[string]func(*Schema)
}

// Generate is the schema document of the values of t, as encoding/json
// writes them; roots are more types the document may be (anyOf), e.g. a
// slice of t. It fails on a type it cannot describe: a json.Marshaler of
// its own, a channel, a function, a complex number.
func Generate(opts Options, roots ...reflect.Type) (*Schema, error) {
	g := &generator{defs: &Properties{}, fields: opts.Fields, optional: opts.Optional, used: map[string]bool{}, docs: map[string]*pkgDocs{}}
	doc := &Schema{SchemaURI: "https://json-schema.org/draft/2020-12/schema", ID: opts.ID, Title: opts.Title, Description: opts.Description}
	var alts []*Schema
	for _, t := range roots {
		s, err := g.schema(t)
		if err != nil {
			return nil, err
		}
		alts = append(alts, notNull(s)) // a document is never null
	}
	switch {
	case len(alts) == 1 && alts[0].Ref != "":
		doc.Ref = alts[0].Ref
	case len(alts) == 1:
		return nil, fmt.Errorf("schemagen: the root type %s is not a named struct", roots[0])
	default:
		doc.AnyOf = alts
	}
	for key := range opts.Fields {
		if !g.used[key] {
			return nil, fmt.Errorf("schemagen: Options.Fields names %s, which is not a field of the document", key)
		}
	}
	// $defs in name order, so that a document does not change with the
	// order the types are met in.
	names := g.defs.Names()
	slices.Sort(names)
	doc.Defs = &Properties{}
	for _, n := range names {
		doc.Defs.Set(n, g.defs.Get(n))
	}
	return doc, nil
}

type generator struct {
	defs     *Properties
	fields   map[string]func(*Schema)
	optional map[string]func(*Schema)
	used     map[string]bool
	docs     map[string]*pkgDocs // by package path
}

var (
	timeType       = reflect.TypeFor[time.Time]()
	durationType   = reflect.TypeFor[time.Duration]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
	jsonMarshaler  = reflect.TypeFor[json.Marshaler]()
	textMarshaler  = reflect.TypeFor[encoding.TextMarshaler]()
	zero, maxUint8 = 0.0, 255.0
)

// schema is t's schema, a $ref for a named struct.
func (g *generator) schema(t reflect.Type) (*Schema, error) {
	switch t {
	case timeType:
		return &Schema{Type: "string", Format: "date-time"}, nil
	case durationType:
		return &Schema{Type: "integer", Description: "nanoseconds"}, nil
	case rawMessageType:
		return &Schema{}, nil
	case numberType:
		return &Schema{Type: "number"}, nil
	}
	if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
		return nil, fmt.Errorf("schemagen: %s has a MarshalJSON of its own; describe it in schemagen", t)
	}
	if t.Kind() != reflect.Pointer && (t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)) {
		return &Schema{Type: "string"}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &Schema{Type: "integer"}, nil
	case reflect.Uint8:
		return &Schema{Type: "integer", Minimum: &zero, Maximum: &maxUint8}, nil
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &Schema{Type: "integer", Minimum: &zero}, nil
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}, nil
	case reflect.String:
		return &Schema{Type: "string"}, nil
	case reflect.Interface:
		return &Schema{}, nil // any value; Options.Fields may narrow it
	case reflect.Pointer:
		inner, err := g.schema(t.Elem())
		if err != nil {
			return nil, err
		}
		return nullable(inner), nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !t.Elem().Implements(jsonMarshaler) && !t.Elem().Implements(textMarshaler) {
			return &Schema{Type: []string{"string", "null"}, Description: "base64"}, nil
		}
		items, err := g.schema(t.Elem())
		if err != nil {
			return nil, err
		}
		return &Schema{Type: []string{"array", "null"}, Items: items}, nil
	case reflect.Array:
		items, err := g.schema(t.Elem())
		if err != nil {
			return nil, err
		}
		n := t.Len()
		return &Schema{Type: "array", Items: items, MinItems: &n, MaxItems: &n}, nil
	case reflect.Map:
		k := t.Key()
		if k.Kind() != reflect.String && !k.Implements(textMarshaler) && !(k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr) {
			return nil, fmt.Errorf("schemagen: %s's key cannot be a JSON object's name", t)
		}
		values, err := g.schema(t.Elem())
		if err != nil {
			return nil, err
		}
		return &Schema{Type: []string{"object", "null"}, AdditionalProperties: values}, nil
	case reflect.Struct:
		return g.structRef(t)
	}
	return nil, fmt.Errorf("schemagen: %s cannot be written as JSON", t)
}

// nullable is s or null.
func nullable(s *Schema) *Schema {
	if s.Ref == "" && s.Type == nil && s.Const == nil && s.Enum == nil && s.AnyOf == nil {
		return s // any value already
	}
	if name, ok := s.Type.(string); ok && s.Ref == "" {
		c := *s
		c.Type = []string{name, "null"}
		return &c
	}
	if names, ok := s.Type.([]string); ok && slices.Contains(names, "null") {
		return s
	}
	return &Schema{AnyOf: []*Schema{s, {Type: "null"}}}
}

// notNull is s without null, for a field omitted when nil.
func notNull(s *Schema) *Schema {
	if names, ok := s.Type.([]string); ok && len(names) == 2 && names[1] == "null" {
		c := *s
		c.Type = names[0]
		return &c
	}
	if len(s.AnyOf) == 2 && s.AnyOf[1].Type == "null" && s.Description == "" {
		return s.AnyOf[0]
	}
	return s
}

// defName is a named type's $defs name: "results.Run".
func defName(t reflect.Type) string {
	pkg := t.PkgPath()
	if i := strings.LastIndex(pkg, "/"); i >= 0 {
		pkg = pkg[i+1:]
	}
	name := t.Name()
	if i := strings.Index(name, "["); i >= 0 { // a generic type's instance
		name = name[:i]
	}
	if pkg == "" {
		return name
	}
	return pkg + "." + name
}

// structRef puts t's schema in $defs (once) and is its $ref.
func (g *generator) structRef(t reflect.Type) (*Schema, error) {
	if t.Name() == "" {
		s, err := g.object(t, "")
		return s, err
	}
	name := defName(t)
	ref := &Schema{Ref: "#/$defs/" + name}
	if g.defs.Get(name) != nil {
		return ref, nil
	}
	g.defs.Set(name, &Schema{}) // a placeholder against recursion
	s, err := g.object(t, name)
	if err != nil {
		return nil, err
	}
	s.Description = g.typeDoc(t)
	g.defs.Set(name, s)
	return ref, nil
}

// field is one JSON member of a struct, after embedding.
type field struct {
	name      string
	sf        reflect.StructField
	owner     reflect.Type // the struct the field is declared in
	depth     int
	tagged    bool
	omitEmpty bool
	omitZero  bool
	asString  bool
	viaPtr    bool // through an embedded pointer: absent when it is nil
}

// object is a struct's schema: its fields as encoding/json finds them
// (embedded structs' fields promoted, the shallowest or the tagged one
// winning a name).
func (g *generator) object(t reflect.Type, name string) (*Schema, error) {
	var all []field
	g.collect(t, 0, false, map[reflect.Type]bool{}, &all)
	byName := map[string][]field{}
	var order []string
	for _, f := range all {
		if _, ok := byName[f.name]; !ok {
			order = append(order, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	s := &Schema{Type: "object", Properties: &Properties{}, AdditionalProperties: false}
	for _, n := range order {
		f, ok := dominant(byName[n])
		if !ok {
			continue
		}
		fs, err := g.fieldSchema(f)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, f.sf.Name, err)
		}
		s.Properties.Set(n, fs)
		if !f.omitEmpty && !f.omitZero && !f.viaPtr {
			s.Required = append(s.Required, n)
		}
	}
	return s, nil
}

// dominant is the field encoding/json writes of those with one name: the
// shallowest, and of those the only tagged one or the only one.
func dominant(fs []field) (field, bool) {
	minDepth := fs[0].depth
	for _, f := range fs {
		minDepth = min(minDepth, f.depth)
	}
	var top []field
	for _, f := range fs {
		if f.depth == minDepth {
			top = append(top, f)
		}
	}
	if len(top) == 1 {
		return top[0], true
	}
	var tagged []field
	for _, f := range top {
		if f.tagged {
			tagged = append(tagged, f)
		}
	}
	if len(tagged) == 1 {
		return tagged[0], true
	}
	return field{}, false
}

// collect appends t's JSON fields, descending into embedded structs.
func (g *generator) collect(t reflect.Type, depth int, viaPtr bool, seen map[reflect.Type]bool, out *[]field) {
	if seen[t] {
		return
	}
	seen[t] = true
	defer delete(seen, t)
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous {
			et, ptr := ft, false
			if et.Kind() == reflect.Pointer {
				et, ptr = et.Elem(), true
			}
			if !sf.IsExported() && et.Kind() != reflect.Struct {
				continue
			}
			if name == "" && et.Kind() == reflect.Struct {
				g.collect(et, depth+1, viaPtr || ptr, seen, out)
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		f := field{name: name, sf: sf, owner: t, depth: depth, tagged: name != "", viaPtr: viaPtr}
		if f.name == "" {
			f.name = sf.Name
		}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty":
				f.omitEmpty = emptiable(ft)
			case "omitzero":
				f.omitZero = true
			case "string":
				f.asString = true
			}
		}
		*out = append(*out, f)
	}
}

// emptiable says omitempty can leave a value of t out (it never leaves a
// struct out).
func emptiable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		return false
	}
	return true
}

// fieldSchema is f's schema with its doc comment and Options.Fields'
// constraint.
func (g *generator) fieldSchema(f field) (*Schema, error) {
	s, err := g.schema(f.sf.Type)
	if err != nil {
		return nil, err
	}
	if f.asString {
		switch f.sf.Type.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			s = &Schema{Type: "string"}
		}
	}
	if f.omitEmpty || f.omitZero {
		s = notNull(s) // nil is left out, never written as null
	}
	c := *s
	s = &c
	if d := g.fieldDoc(f); d != "" {
		// Beside a $ref too: draft 2020-12 reads a $ref's siblings.
		if s.Description == "" {
			s.Description = d
		} else {
			s.Description = d + " (" + s.Description + ")"
		}
	}
	key := defName(f.owner) + "." + f.name
	if fn, ok := g.fields[key]; ok {
		fn(s)
		g.used[key] = true
	} else if fn, ok := g.optional[key]; ok {
		fn(s)
	}
	return s, nil
}

// pkgDocs are a package's doc comments: of its types, and of their fields.
type pkgDocs struct {
	types  map[string]string // "Run" → its doc
	fields map[string]string // "Run.StartedAt" → its doc or line comment
}

// typeDoc is t's doc comment, "" when its source is not found.
func (g *generator) typeDoc(t reflect.Type) string {
	return g.pkg(t.PkgPath()).types[strings.SplitN(t.Name(), "[", 2)[0]]
}

// fieldDoc is f's doc or line comment.
func (g *generator) fieldDoc(f field) string {
	return g.pkg(f.owner.PkgPath()).fields[strings.SplitN(f.owner.Name(), "[", 2)[0]+"."+f.sf.Name]
}

// pkg reads the doc comments of the package at path from its source (found
// as the go command would, from the working directory's module).
func (g *generator) pkg(path string) *pkgDocs {
	if d, ok := g.docs[path]; ok {
		return d
	}
	d := &pkgDocs{types: map[string]string{}, fields: map[string]string{}}
	g.docs[path] = d
	if path == "" {
		return d
	}
	bp, err := build.Import(path, ".", build.FindOnly)
	if err != nil {
		return d
	}
	entries, err := os.ReadDir(bp.Dir)
	if err != nil {
		return d
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") { // _test.go too: its types are a test's
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(bp.Dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			continue
		}
		for _, decl := range file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				d.types[ts.Name.Name] = text(doc)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fl := range st.Fields.List {
					c := text(fl.Doc)
					if c == "" {
						c = text(fl.Comment)
					}
					for _, n := range fl.Names {
						d.fields[ts.Name.Name+"."+n.Name] = c
					}
					if len(fl.Names) == 0 { // embedded
						d.fields[ts.Name.Name+"."+embeddedName(fl.Type)] = c
					}
				}
			}
		}
	}
	return d
}

// embeddedName is an embedded field's name: its type's, without package
// or pointer.
func embeddedName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return embeddedName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return embeddedName(x.X)
	}
	return ""
}

// text is a comment group's text on one line.
func text(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	return strings.Join(strings.Fields(cg.Text()), " ")
}
