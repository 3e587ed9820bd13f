package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every schema compiles, and a document that breaks one says where.
func TestSchemasCompile(t *testing.T) {
	var v Validator
	for _, kind := range Kinds() {
		if _, err := v.schema(kind); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
	}
	if _, err := File("nope"); err == nil {
		t.Error("an unknown kind has a schema")
	}
}

func TestValidate(t *testing.T) {
	ok := `{"schema":"pgtrial.age/v1","table":"t","key":"k","set":"s","daily":0.1,"vacuum_every":1,
	"before":{},"after":{},"days":1,"updated":1,"vacuums":0,"stopped":"","reached":true,"missing":"",
	"autovacuum":"on","elapsed_s":1}`
	var doc map[string]any
	if err := json.Unmarshal([]byte(ok), &doc); err != nil {
		t.Fatal(err)
	}
	err := Validate(Age, []byte(ok))
	if err != nil && !strings.Contains(err.Error(), "/before") {
		t.Fatalf("valid but for before/after: %v", err)
	}
	for name, bad := range map[string]string{
		"wrong schema":  strings.Replace(ok, "pgtrial.age/v1", "pgtrial.age/v2", 1),
		"unknown field": strings.Replace(ok, `"days":1`, `"days":1,"weeks":2`, 1),
		"wrong type":    strings.Replace(ok, `"days":1`, `"days":"1"`, 1),
		"not JSON":      ok[:20],
	} {
		if err := Validate(Age, []byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func BenchmarkValidateRun(b *testing.B) {
	run := []byte(`{"schema":"pgtrial.run/v1","tool":{"name":"pgtrial"},"started_at":"2026-01-02T03:04:05Z","target":{},"workload":{},"model":{"kind":"closed","clients":1}}`)
	for b.Loop() {
		if err := Validate(Run, run); err != nil {
			b.Fatal(err)
		}
	}
}
