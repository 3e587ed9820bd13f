package experiment

import (
	"testing"

	"github.com/pgtrial/pgtrial/internal/shape"
)

// TestDataShape: data.shape's items decode into shape's Configs with
// pgtrial shape's defaults (min 1, max the row count, seed 1, ANALYZE after).
func TestDataShape(t *testing.T) {
	s, err := Parse("x.yaml", []byte(`load: {rate: 10}
data:
  shape:
    - {table: pgbench_accounts, column: bid, dist: "zipf:s=1.1", max: 10}
    - {table: tasks, column: project_id, dist: "loguniform:n=200", permute: true, min: 5, seed: 7, force: true, key: code, batch: 500}
    - {table: events, json: payload, size: 1KB-8KB, force: true}
    - {table: notes, pad: body, size: 300}
  age: {days: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	sh := s.Data.Shape
	if len(sh) != 4 || s.Data.Age == nil {
		t.Fatalf("data %+v", s.Data)
	}
	a := sh[0]
	if a.Table != "pgbench_accounts" || a.Column != "bid" || a.Dist == nil || a.Dist.Kind != shape.Zipf || a.Dist.Param != 1.1 ||
		a.Dist.Min != 1 || a.Dist.Max != 10 || !a.MaxSet || a.Seed != 1 || a.Force || a.Sizes != nil {
		t.Errorf("item 0: %+v dist %+v", a, a.Dist)
	}
	b := sh[1]
	if b.Dist == nil || b.Dist.Kind != shape.LogUniform || b.Dist.N != 200 || !b.Dist.Permute || b.Dist.Min != 5 || b.MaxSet ||
		b.Seed != 7 || !b.Force || b.Key != "code" || b.Batch != 500 {
		t.Errorf("item 1: %+v dist %+v", b, b.Dist)
	}
	if c := sh[2]; c.Column != "payload" || c.Dist != nil || c.Sizes == nil || *c.Sizes != (shape.Sizes{Kind: shape.PadJSON, Min: 1024, Max: 8192}) {
		t.Errorf("item 2: %+v", c)
	}
	if d := sh[3]; d.Column != "body" || d.Sizes == nil || *d.Sizes != (shape.Sizes{Kind: shape.PadText, Min: 300, Max: 300}) {
		t.Errorf("item 3: %+v", d)
	}
}

// TestBadDataShape: each bad item is a problem at its place, with the flags'
// rules and messages.
func TestBadDataShape(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"not a list", "data: {shape: {table: t}}\n",
			`x.yaml:2:15: data.shape: expected a list of shapings {table, column, dist, …} or {table, pad|json, size}, got a mapping`},
		{"no table", "data:\n  shape:\n    - {column: bid, dist: uniform}\n",
			`x.yaml:4:7: data.shape[0]: no table: name the table whose column to regenerate`},
		{"unknown key", "data:\n  shape:\n    - {table: t, column: c, dist: uniform, permut: true}\n",
			`x.yaml:4:44: data.shape[0].permut: unknown key "permut"; did you mean "permute"?`},
		{"bad dist", "data:\n  shape:\n    - {table: t, column: c, dist: \"zipf:s=0.5\"}\n",
			`x.yaml:4:35: data.shape[0].dist: "zipf:s=0.5": zipf's s must be in [1.001, 1000] (pgbench's random_zipfian)`},
		{"unknown dist", "data:\n  shape:\n    - {table: t, column: c, dist: pareto}\n",
			`x.yaml:4:35: data.shape[0].dist: "pareto": unknown distribution "pareto"; give uniform, zipf:s=S, loguniform:n=N, exponential:p=P or gaussian:p=P`},
		{"dist without column", "data:\n  shape:\n    - {table: t, dist: uniform}\n",
			`x.yaml:4:7: data.shape[0]: dist needs column: the integer column to regenerate`},
		{"neither", "data:\n  shape:\n    - {table: t, column: c}\n",
			`x.yaml:4:7: data.shape[0]: no dist and no pad or json: give column with dist (e.g. zipf:s=1.1), or pad/json with size`},
		{"pad and json", "data:\n  shape:\n    - {table: t, pad: a, json: b, size: 1KB}\n",
			`x.yaml:4:7: data.shape[0]: give pad or json, not both`},
		{"json without size", "data:\n  shape:\n    - {table: t, json: payload}\n",
			`x.yaml:4:7: data.shape[0]: json needs size, e.g. size: 1KB-8KB`},
		{"bad size", "data:\n  shape:\n    - {table: t, json: payload, size: 8KB-1KB}\n",
			`x.yaml:4:39: data.shape[0].size: "8KB-1KB": want MIN-MAX with 2 <= MIN <= MAX <= 1MB`},
		{"size with dist", "data:\n  shape:\n    - {table: t, column: c, dist: uniform, size: 1KB}\n",
			`x.yaml:4:44: data.shape[0].size: size goes with pad or json, not dist`},
		{"column with pad", "data:\n  shape:\n    - {table: t, column: c, pad: c, size: 1KB}\n",
			`x.yaml:4:18: data.shape[0].column: pad names the column; leave out column`},
		{"empty range", "data:\n  shape:\n    - {table: t, column: c, dist: uniform, min: 10, max: 5}\n",
			`x.yaml:4:7: data.shape[0]: empty range [10, 5]: min must be <= max`},
		{"bad types", "data:\n  shape:\n    - {table: t, column: c, dist: uniform, permute: yes please, seed: -1, force: 1}\n",
			"x.yaml:4:53: data.shape[0].permute: expected true or false, got \"yes please\"\n" +
				"x.yaml:4:71: data.shape[0].seed: -1 is out of range: an unsigned whole number\n" +
				"x.yaml:4:82: data.shape[0].force: expected true or false, got the number 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte("load: {rate: 10}\n"+tc.yaml))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
