// Package schema is pgtrial's published JSON Schemas (draft 2020-12), one
// file per kind of document, beside this file:
//
//	run.schema.json          a run directory's run.json ("schema": "pgtrial.run/v1")
//	experiment.schema.json   an experiment directory's experiment.json, and
//	                         experiment/capacity/demo --json ("schema": 1)
//	run-summary.schema.json  run --json ("schema": "pgtrial.run-summary/v1")
//	compare.schema.json      compare --json: one comparison or an array of them
//	                         (each "schema": "pgtrial.compare/v1")
//	age.schema.json          age --json ("schema": "pgtrial.age/v1")
//	runs, check, mask, version, capture-compare, advise, local-status:
//	                         those commands' --json ("schema": "pgtrial.KIND/v1")
//
// They are generated from the Go types that write the documents
// (internal/cli's TestSchemas; `go test ./internal/cli -run TestSchemas
// -update` writes them again), and the writers validate what they write
// against them in tests (testing.Testing), so every document the test
// suite writes is checked. docs/schemas.md says how they are versioned.
package schema

import (
	"bytes"
	"embed"
	"fmt"
	"slices"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The kinds of document, each the base of its file's name.
const (
	Run        = "run"
	Experiment = "experiment"
	RunSummary = "run-summary"
	Compare    = "compare"
	Age        = "age"
	// The other commands' --json outputs (internal/cli).
	Runs           = "runs"
	Check          = "check"
	Mask           = "mask"
	Version        = "version"
	CaptureCompare = "capture-compare"
	Advise         = "advise"
	LocalStatus    = "local-status"
)

// Kinds are every kind, in the order above.
func Kinds() []string {
	return []string{Run, Experiment, RunSummary, Compare, Age, Runs, Check, Mask, Version, CaptureCompare, Advise, LocalStatus}
}

// files are the schemas: data, not state.
//
//go:embed *.schema.json
var files embed.FS

// FileName is kind's schema's file name: "run.schema.json".
func FileName(kind string) string { return kind + ".schema.json" }

// File is kind's schema, as published.
func File(kind string) ([]byte, error) {
	if !slices.Contains(Kinds(), kind) {
		return nil, fmt.Errorf("schema: no schema of kind %q; the kinds are %v", kind, Kinds())
	}
	return files.ReadFile(FileName(kind))
}

// Validator validates documents against the schemas. Its zero value is
// ready; each schema is compiled once, on its first use. It is safe for
// concurrent use.
type Validator struct {
	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

// Validate says whether data, one JSON document, is a valid document of
// kind; the error names each violation's place in the document (a JSON
// pointer) and the rule it breaks.
func (v *Validator) Validate(kind string, data []byte) error {
	sch, err := v.schema(kind)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("schema: the %s document is not JSON: %w", kind, err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("schema: the document is not a valid %s (schema/%s): %w", kind, FileName(kind), err)
	}
	return nil
}

// schema is kind's compiled schema.
func (v *Validator) schema(kind string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.compiled[kind]; ok {
		return s, nil
	}
	text, err := File(kind)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("schema: schema/%s is not JSON: %w", FileName(kind), err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := "mem:///" + FileName(kind)
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema: schema/%s: %w", FileName(kind), err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema: compile schema/%s: %w", FileName(kind), err)
	}
	if v.compiled == nil {
		v.compiled = map[string]*jsonschema.Schema{}
	}
	v.compiled[kind] = s
	return s, nil
}

// Validate validates data against kind's schema, compiling it for this
// call (a Validator keeps it).
func Validate(kind string, data []byte) error {
	var v Validator
	return v.Validate(kind, data)
}
