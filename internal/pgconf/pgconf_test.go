package pgconf

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, ""},
		{" , ", nil, ""},
		{"pg_stat_statements", []string{"pg_stat_statements"}, ""},
		{"pg_stat_statements, auto_explain", []string{"pg_stat_statements", "auto_explain"}, ""},
		{`"$user", public`, []string{"$user", "public"}, ""},
		{`"my,lib" , "a""b"`, []string{"my,lib", `a"b`}, ""},
		{"a,,b", []string{"a", "b"}, ""},
		{`"open`, nil, "unterminated"},
		{`"a"b`, nil, "want a comma"},
		{`""`, nil, "empty quoted name"},
	} {
		got, err := SplitList(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("SplitList(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitList(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestValueSQL(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		major       int
		want, err   string
	}{
		{"work_mem", "64MB", 17, "E'64MB'", ""},
		{"application_name", `it's a\b`, 17, `E'it''s a\\b'`, ""},
		{"shared_preload_libraries", "pg_stat_statements,auto_explain", 17, "E'pg_stat_statements', E'auto_explain'", ""},
		{"search_path", `"$user", public`, 17, "E'$user', E'public'", ""},
		{"shared_preload_libraries", "", 17, "", "empty list"},
		{"shared_preload_libraries", "", 19, "NULL", ""},
		{"search_path", `"x`, 17, "", "unterminated"},
	} {
		got, err := ValueSQL(tc.name, tc.value, tc.major)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ValueSQL(%s, %q) error = %v, want %q", tc.name, tc.value, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ValueSQL(%s, %q) = %s, %v; want %s", tc.name, tc.value, got, err, tc.want)
		}
	}
	if got := NameSQL("pg_stat_statements.max"); got != `"pg_stat_statements"."max"` {
		t.Errorf("nameSQL = %s", got)
	}
}
