package capture

import (
	"reflect"
	"testing"
)

// TestParamColumns: each form a parameter is placed by names its column
// (and qualifier); a parameter in an expression stays unknown.
func TestParamColumns(t *testing.T) {
	cases := []struct {
		sql    string
		want   map[int]columnRef
		tables []tableRef
	}{
		{"SELECT abalance FROM pgbench_accounts WHERE aid = $1", map[int]columnRef{1: {name: "aid"}},
			[]tableRef{{name: "pgbench_accounts"}}},
		{"UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", map[int]columnRef{1: {name: "abalance", arith: true}, 2: {name: "aid"}},
			[]tableRef{{name: "pgbench_accounts"}}},
		{"update t set v = $1 * t.w, u = u - $2 where k = $3", map[int]columnRef{1: {qualifier: "t", name: "w", arith: true}, 2: {name: "u", arith: true}, 3: {name: "k"}},
			[]tableRef{{name: "t"}}},
		{"select f($1 + 1) from t", map[int]columnRef{}, []tableRef{{name: "t"}}},
		{"select 1 from pgbench_accounts where abalance = $1", map[int]columnRef{1: {name: "abalance"}},
			[]tableRef{{name: "pgbench_accounts"}}},
		{"update t set v = $1 where k >= $2 and $3 > k2", map[int]columnRef{1: {name: "v"}, 2: {name: "k"}, 3: {name: "k2"}},
			[]tableRef{{name: "t"}}},
		{`SELECT * FROM public.orders o JOIN "Customers" AS c ON c.id = o.cid WHERE o.status IN ($1, $2) AND c.name LIKE $3`,
			map[int]columnRef{1: {qualifier: "o", name: "status"}, 2: {qualifier: "o", name: "status"}, 3: {qualifier: "c", name: "name"}},
			[]tableRef{{name: "public.orders", alias: "o"}, {name: `"Customers"`, alias: "c"}}},
		{"select 1 from a, b x where a.k between $1 and $2 and x.j = any ($3) and a.s not in ($4)",
			map[int]columnRef{1: {qualifier: "a", name: "k"}, 2: {qualifier: "a", name: "k"}, 3: {qualifier: "x", name: "j"}, 4: {qualifier: "a", name: "s"}},
			[]tableRef{{name: "a"}, {name: "b", alias: "x"}}},
		{"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)",
			map[int]columnRef{1: {name: "tid"}, 2: {name: "bid"}, 3: {name: "aid"}, 4: {name: "delta"}},
			[]tableRef{{name: "pgbench_history"}}},
		{"SELECT count(*) FROM t WHERE k > $1 AND abs($2) = $3 /* $4 */ AND s = '$5'", map[int]columnRef{1: {name: "k"}},
			[]tableRef{{name: "t"}}},
		{"SELECT * FROM t WHERE k = $1 FOR UPDATE", map[int]columnRef{1: {name: "k"}}, []tableRef{{name: "t"}}},
		{"DELETE FROM t WHERE $1 = lower(k)", map[int]columnRef{}, []tableRef{{name: "t"}}},
	}
	for _, c := range cases {
		got, tables := paramColumns(tokenize(c.sql))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\ncolumns %+v\nwant    %+v", c.sql, got, c.want)
		}
		if !reflect.DeepEqual(tables, c.tables) {
			t.Errorf("%s:\ntables %+v\nwant   %+v", c.sql, tables, c.tables)
		}
	}
}

func TestStatementKind(t *testing.T) {
	for sql, want := range map[string]string{
		"select 1":                      "dml",
		"(SELECT 1)":                    "dml",
		"WITH x AS (SELECT 1) SELECT 1": "dml",
		"BEGIN":                         "transaction control (BEGIN)",
		"create index on t (k)":         "DDL (CREATE)",
		"vacuum analyze t":              "utility statement (VACUUM)",
		"-- only a comment":             "empty text",
	} {
		if got := statementKind(tokenize(sql)); got != want {
			t.Errorf("%q: %q, want %q", sql, got, want)
		}
	}
}

// TestSubstitute: $n outside literals and quoted names becomes its
// expression; $10 is not $1 followed by 0.
func TestSubstitute(t *testing.T) {
	d := map[int]drawing{1: {expr: ":p1"}, 10: {expr: ":p10"}}
	got := substitute(`SELECT '$1', "$1", $1, $10, x$1 FROM t`, d)
	if want := `SELECT '$1', "$1", :p1, :p10, x$1 FROM t`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestParseArray(t *testing.T) {
	got, err := parseArray(`{a,"b c","d\"e",NULL,"NULL",5}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b c", `d"e`, "NULL", "5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	if got := arrayLiteral([]string{`a"b`, `c\d`}); got != `{"a\"b","c\\d"}` {
		t.Errorf("arrayLiteral: %s", got)
	}
	back, _ := parseArray(arrayLiteral([]string{`a"b`, `c\d`, "x,y"}))
	if !reflect.DeepEqual(back, []string{`a"b`, `c\d`, "x,y"}) {
		t.Errorf("round trip: %q", back)
	}
}
