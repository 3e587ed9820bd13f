package schemagen

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Inner is embedded in Outer.
type Inner struct {
	Shared string `json:"shared"`
	Deep   int    `json:"deep"`
}

// Extra is embedded through a pointer: its fields are absent when it is nil.
type Extra struct {
	Note string `json:"note"`
}

// Outer is a test type.
type Outer struct {
	Inner
	*Extra
	Shared   string            `json:"shared"` // shallower: wins over Inner's
	Name     string            `json:"name"`   // the name
	Count    int               `json:"count,omitempty"`
	At       time.Time         `json:"at"`
	Until    time.Time         `json:"until,omitzero"`
	Tags     []string          `json:"tags"`
	Opt      []string          `json:"opt,omitempty"`
	Next     *Outer            `json:"next,omitempty"`
	Maybe    *Inner            `json:"maybe"`
	Labels   map[string]string `json:"labels"`
	Seed     uint64            `json:"seed"`
	AsString int               `json:"as_string,string"`
	Pair     [2]float64        `json:"pair"`
	Any      any               `json:"any,omitempty"`
	Skipped  string            `json:"-"`
	hidden   string            //lint:ignore U1000 an unexported field, which encoding/json leaves out
}

func generate(t *testing.T, opts Options, roots ...reflect.Type) (*Schema, []byte) {
	t.Helper()
	s, err := Generate(opts, roots...)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(s); err != nil {
		t.Fatal(err)
	}
	return s, b.Bytes()
}

func compile(t *testing.T, doc []byte) *jsonschema.Schema {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem:///s.json", v); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem:///s.json")
	if err != nil {
		t.Fatalf("the generated schema does not compile: %v\n%s", err, doc)
	}
	return sch
}

func valid(t *testing.T, sch *jsonschema.Schema, data []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(v)
}

// What encoding/json writes of a type validates against its schema, zero
// or full; what it cannot write does not.
func TestGenerateMatchesEncodingJSON(t *testing.T) {
	s, doc := generate(t, Options{ID: "mem:///s.json",
		Fields: map[string]func(*Schema){"schemagen.Outer.name": func(s *Schema) { s.Enum = []any{"", "a"} }}},
		reflect.TypeFor[Outer]())
	sch := compile(t, doc)
	full := Outer{Inner: Inner{Shared: "x", Deep: 1}, Extra: &Extra{Note: "n"}, Name: "a", Count: 2,
		At: time.Now(), Until: time.Now(), Tags: []string{"t"}, Opt: []string{"o"},
		Next: &Outer{Name: "a"}, Maybe: &Inner{}, Labels: map[string]string{"k": "v"}, Seed: 1 << 63,
		AsString: 5, Pair: [2]float64{1, 2}, Any: 1.5}
	for name, v := range map[string]Outer{"zero": {}, "full": full} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := valid(t, sch, data); err != nil {
			t.Errorf("%s: %s does not validate: %v", name, data, err)
		}
	}
	def := s.Defs.Get("schemagen.Outer")
	if def == nil {
		t.Fatalf("no $defs entry schemagen.Outer: %s", doc)
	}
	for _, want := range []string{"shared", "deep", "name", "at", "tags", "maybe", "labels", "seed", "as_string", "pair"} {
		if !slices.Contains(def.Required, want) {
			t.Errorf("%s is not required (%v)", want, def.Required)
		}
	}
	for _, not := range []string{"note", "count", "until", "opt", "next", "any", "Skipped", "hidden"} {
		if slices.Contains(def.Required, not) {
			t.Errorf("%s is required, but encoding/json may leave it out", not)
		}
	}
	if d := def.Properties.Get("name").Description; d != "the name" {
		t.Errorf("name's description %q, want its line comment", d)
	}
	if !strings.Contains(def.Description, "Outer is a test type") {
		t.Errorf("Outer's description %q, want its doc comment", def.Description)
	}
	for name, bad := range map[string]string{
		"unknown field":  `"name":"a","zzz":1`,
		"name not enum":  `"name":"b"`,
		"null where not": `"name":"a","count":null`,
		"not date-time":  `"name":"a","until":"yesterday"`,
		"negative uint":  `"seed":-1`,
		"string for int": `"deep":"1"`,
	} {
		data, _ := json.Marshal(Outer{})
		key, _, _ := strings.Cut(bad, ":")
		for _, zero := range []string{`""`, `0`} {
			data = bytes.Replace(data, []byte(key+":"+zero), []byte(bad), 1)
		}
		if err := valid(t, sch, data); err == nil {
			t.Errorf("%s: %s validates", name, data)
		}
	}
}

type marshals struct{}

func (marshals) MarshalJSON() ([]byte, error) { return []byte("1"), nil }

type withMarshaler struct {
	M marshals `json:"m"`
}

// A type it cannot describe, and a constraint on no field, are errors.
func TestGenerateRefuses(t *testing.T) {
	if _, err := Generate(Options{}, reflect.TypeFor[withMarshaler]()); err == nil || !strings.Contains(err.Error(), "MarshalJSON") {
		t.Errorf("a MarshalJSON of its own: %v", err)
	}
	if _, err := Generate(Options{}, reflect.TypeFor[struct{ C chan int }]()); err == nil {
		t.Error("a channel was described")
	}
	if _, err := Generate(Options{Fields: map[string]func(*Schema){"schemagen.Inner.nope": func(*Schema) {}}}, reflect.TypeFor[Inner]()); err == nil {
		t.Error("a constraint on no field was accepted")
	}
	if _, err := Generate(Options{Optional: map[string]func(*Schema){"schemagen.Inner.nope": func(*Schema) {}}}, reflect.TypeFor[Inner]()); err != nil {
		t.Errorf("an optional constraint on no field: %v", err)
	}
}

// Several roots are alternatives: a value or a list of them, never null.
func TestGenerateRoots(t *testing.T) {
	_, doc := generate(t, Options{}, reflect.TypeFor[Inner](), reflect.TypeFor[[]Inner]())
	sch := compile(t, doc)
	for _, ok := range []string{`{"shared":"","deep":0}`, `[{"shared":"","deep":0}]`, `[]`} {
		if err := valid(t, sch, []byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{`null`, `[null]`, `{"shared":""}`} {
		if err := valid(t, sch, []byte(bad)); err == nil {
			t.Errorf("%s validates", bad)
		}
	}
}
