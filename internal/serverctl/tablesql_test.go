package serverctl

import (
	"strings"
	"testing"
)

func TestTableSQL(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"t", `"t"`, ""},
		{"public.pgbench_accounts", `"public"."pgbench_accounts"`, ""},
		{"Public.T", `"Public"."T"`, ""},
		{`s."my.table"`, `"s"."my.table"`, ""},
		{`"a""b"`, `"a""b"`, ""},
		{"db.s.t", `"db"."s"."t"`, ""},
		{"", "", "empty part"},
		{"a..b", "", "empty part"},
		{"a.", "", "empty part after the last dot"},
		{".a", "", "empty part"},
		{"a.b.c.d", "", "4 parts"},
		{"my table", "", "quote the whole part"},
		{`a"b`, "", "quote or blank"},
		{`"a"b`, "", "want a dot"},
		{"t\x00", "", "NUL"},
		{`t; DROP TABLE x`, "", "quote or blank"},
	} {
		got, err := tableSQL(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("tableSQL(%q) = %s, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("tableSQL(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestShortSQL(t *testing.T) {
	if got := shortSQL("SELECT\n\t1"); got != "SELECT 1" {
		t.Errorf("shortSQL = %q", got)
	}
	long := strings.Repeat("é", 200)
	if got := shortSQL(long); got != strings.Repeat("é", 120)+"…" {
		t.Errorf("shortSQL cut = %q", got)
	}
}
