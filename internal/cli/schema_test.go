package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/schemagen"
	"github.com/pgtrial/pgtrial/schema"
)

var updateSchemas = flag.Bool("update", false, "TestSchemas: write schema/*.schema.json from the types")

// schemaBase is the $id of the published schemas, the repository's schema/.
const schemaBase = "https://github.com/pgtrial/pgtrial/schema/"

// schemaDocs are the published schemas made from the types that write the
// documents: kind → its schema.
func schemaDocs(t *testing.T) map[string][]byte {
	t.Helper()
	isConst := func(v any) func(*schemagen.Schema) {
		return func(s *schemagen.Schema) {
			s.Const = v
			s.Description = fmt.Sprintf("the version of this format: %v (docs/schemas.md)", v)
		}
	}
	oneOf := func(vs ...any) func(*schemagen.Schema) {
		return func(s *schemagen.Schema) { s.Enum = vs }
	}
	// What every document shares: the checklist's items, the load model,
	// the findings' version.
	common := map[string]func(*schemagen.Schema){
		"results.Check.status": oneOf("pass", "warn", "fail"),
		"results.Check.value": func(s *schemagen.Schema) {
			s.Type = []string{"number", "string"}
		},
		"results.Model.kind":      oneOf(results.ModelClosed, results.ModelOpen),
		"results.Findings.schema": isConst(results.FindingsSchema),
	}
	docs := []struct {
		kind, title, desc string
		fields            map[string]func(*schemagen.Schema)
		roots             []reflect.Type
	}{
		{schema.Run, "pgtrial run.json", "A run directory's run.json: the run, its summary, evidence, checklist and findings.",
			map[string]func(*schemagen.Schema){"results.Run.schema": isConst(results.Schema)},
			[]reflect.Type{reflect.TypeFor[results.Run]()}},
		{schema.Experiment, "pgtrial experiment.json", "An experiment directory's experiment.json, also the --json output of experiment, capacity and demo.",
			map[string]func(*schemagen.Schema){
				"experiment.Record.schema":          isConst(experiment.SchemaVersion),
				"explain.ExperimentFindings.schema": isConst(results.FindingsSchema),
			},
			[]reflect.Type{reflect.TypeFor[experiment.Record]()}},
		{schema.RunSummary, "pgtrial run --json", "The --json output of run and pgbench: the measured window's summary, the scenarios, the evidence, the checklist.",
			map[string]func(*schemagen.Schema){"cli.jsonSummary.schema": isConst(jsonSchemaID(jsonRunSummary))},
			[]reflect.Type{reflect.TypeFor[jsonSummary]()}},
		{schema.Compare, "pgtrial compare --json", "The --json output of compare: one comparison, or an array of them (compare of an experiment's variants).",
			map[string]func(*schemagen.Schema){"cli.jsonCompareReport.schema": isConst(jsonSchemaID(jsonCompare))},
			[]reflect.Type{reflect.TypeFor[jsonCompareReport](), reflect.TypeFor[[]jsonCompareReport]()}},
		{schema.Age, "pgtrial age --json", "The --json output of age: the table before and after aging.",
			map[string]func(*schemagen.Schema){"cli.jsonAgeResult.schema": isConst(jsonSchemaID(jsonAge))},
			[]reflect.Type{reflect.TypeFor[jsonAgeResult]()}},
		{schema.Runs, "pgtrial runs --json", "The --json output of runs: the run and experiment directories under a folder.",
			map[string]func(*schemagen.Schema){"cli.jsonRunsList.schema": isConst(jsonSchemaID(jsonRuns))},
			[]reflect.Type{reflect.TypeFor[jsonRunsList]()}},
		{schema.Check, "pgtrial check --json", "The --json output of check: the TPC-C consistency conditions, as run.json's tpcc.checks.",
			map[string]func(*schemagen.Schema){"cli.jsonChecks.schema": isConst(jsonSchemaID(jsonCheck))},
			[]reflect.Type{reflect.TypeFor[jsonChecks]()}},
		{schema.Mask, "pgtrial mask --json", "The --json output of mask: the columns masked and the proof.",
			map[string]func(*schemagen.Schema){"cli.jsonMaskResult.schema": isConst(jsonSchemaID(jsonMask))},
			[]reflect.Type{reflect.TypeFor[jsonMaskResult]()}},
		{schema.Version, "pgtrial version --json", "The --json output of version: run.json's tool, with the platform.",
			map[string]func(*schemagen.Schema){"cli.versionJSON.schema": isConst(jsonSchemaID(jsonVersion))},
			[]reflect.Type{reflect.TypeFor[versionJSON]()}},
		{schema.CaptureCompare, "pgtrial capture compare --json", "The --json output of capture compare: a run of a captured workload against its profile.",
			map[string]func(*schemagen.Schema){"cli.jsonCaptureCompareDoc.schema": isConst(jsonSchemaID(jsonCaptureCompare))},
			[]reflect.Type{reflect.TypeFor[jsonCaptureCompareDoc]()}},
		{schema.Advise, "pgtrial advise --json", "The --json output of advise: the hardware, pgtune's settings and the experiment file written.",
			map[string]func(*schemagen.Schema){"cli.adviseJSON.schema": isConst(jsonSchemaID(jsonAdvise))},
			[]reflect.Type{reflect.TypeFor[adviseJSON]()}},
		{schema.LocalStatus, "pgtrial local status --json", "The --json output of local status: the throwaway cluster's state.",
			map[string]func(*schemagen.Schema){"cli.localStatusJSON.schema": isConst(jsonSchemaID(jsonLocalStatus))},
			[]reflect.Type{reflect.TypeFor[localStatusJSON]()}},
	}
	out := map[string][]byte{}
	for _, d := range docs {
		s, err := schemagen.Generate(schemagen.Options{
			ID: schemaBase + schema.FileName(d.kind), Title: d.title, Description: d.desc,
			Fields: d.fields, Optional: common,
		}, d.roots...)
		if err != nil {
			t.Fatalf("%s: %v", d.kind, err)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		out[d.kind] = buf.Bytes()
	}
	if len(out) != len(schema.Kinds()) {
		t.Fatalf("schemas for %d kinds, want %d (%v)", len(out), len(schema.Kinds()), schema.Kinds())
	}
	return out
}

// TestSchemas keeps schema/*.schema.json true to the types: each must be
// what the types generate (-update writes them).
func TestSchemas(t *testing.T) {
	dir := filepath.Join("..", "..", "schema")
	for kind, want := range schemaDocs(t) {
		path := filepath.Join(dir, schema.FileName(kind))
		if *updateSchemas {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v; write it with go test ./internal/cli -run TestSchemas -update", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the types generate (a field added, changed or documented?); write it again with go test ./internal/cli -run TestSchemas -update, and read docs/schemas.md on versions", path)
		}
	}
}

// In tests printJSON validates each --json output against its kind's
// schema and writes nothing that breaks it.
func TestPrintJSONValidates(t *testing.T) {
	var out bytes.Buffer
	if err := printJSON(&out, jsonAge, jsonAgeResult{Schema: jsonSchemaID(jsonAge)}); err != nil {
		t.Fatalf("age --json of a zero result: %v", err)
	}
	out.Reset()
	err := printJSON(&out, jsonAge, jsonAgeResult{Schema: "pgtrial.age/v0"})
	if err == nil || !strings.Contains(err.Error(), "age.schema.json") || out.Len() != 0 {
		t.Errorf("age --json of another version: %v, wrote %q", err, out.String())
	}
}
