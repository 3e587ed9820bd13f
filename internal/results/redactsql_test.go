package results

import (
	"strings"
	"testing"
)

func TestRedactSQL(t *testing.T) {
	const r = Redacted
	tests := []struct{ in, want string }{
		// Plannable statements as pg_stat_statements keeps them: untouched.
		{"select count(*) from t where id = $1", "select count(*) from t where id = $1"},
		{"select 'abc', $1::text from t", "select 'abc', $1::text from t"},
		{"UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2"},
		{"select a$b$c from t", "select a$b$c from t"},
		// Roles: every literal.
		{"ALTER ROLE x PASSWORD 'secret-1'", "ALTER ROLE x PASSWORD " + r},
		{"alter role x with login encrypted password 'secret-1' valid until '2030-01-01'", "alter role x with login encrypted password " + r + " valid until " + r},
		{"CREATE ROLE x LOGIN PASSWORD 'it''s'", "CREATE ROLE x LOGIN PASSWORD " + r},
		{"CREATE USER u PASSWORD E'a\\'b'", "CREATE USER u PASSWORD " + r},
		{"create user u password $$pw$$", "create user u password " + r},
		{"create user u password $q$p$$w$q$", "create user u password " + r},
		{"ALTER USER u PASSWORD 'SCRAM-SHA-256$4096:abc$def:ghi'", "ALTER USER u PASSWORD " + r},
		{"/* psql */ ALTER GROUP g RENAME TO h", "/* psql */ ALTER GROUP g RENAME TO h"},
		{"  -- c\n alter role x password 'p'", "  -- c\n alter role x password " + r},
		{"ALTER ROLE x PASSWORD NULL", "ALTER ROLE x PASSWORD NULL"},
		// Foreign servers, user mappings, subscriptions.
		{"CREATE USER MAPPING FOR x SERVER s OPTIONS (user 'u', password 'secret-2')", "CREATE USER MAPPING FOR x SERVER s OPTIONS (user " + r + ", password " + r + ")"},
		{"alter user mapping for x server s options (set password 'secret-2')", "alter user mapping for x server s options (set password " + r + ")"},
		{"CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host 'h', \"password\" 'p')", "CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host " + r + ", \"password\" " + r + ")"},
		{"CREATE SUBSCRIPTION s CONNECTION 'host=h password=p' PUBLICATION p", "CREATE SUBSCRIPTION s CONNECTION " + r + " PUBLICATION p"},
		// Anywhere else: after a password word, or a literal that mentions one.
		{"select dblink_connect('host=h password=p')", "select dblink_connect(" + r + ")"},
		{"DO $$BEGIN EXECUTE 'ALTER ROLE x PASSWORD ''p'''; END$$", "DO " + r},
		{"DO $body$ begin execute format('alter role x password %L', 'p'); end $body$", "DO " + r},
		{"select * from f(sslpassword => 'p')", "select * from f(sslpassword => 'p')"}, // not a password keyword's literal
		{"set my.password = 'p'", "set my.password = " + r},
		{"select 'md5d41d8cd98f00b204e9800998ecf8427e'", "select " + r},
		{"select 1 /* password is hunter2 */", "select 1 " + redactedComment},
		// Where a literal ends does not depend on standard_conforming_strings.
		{"alter role x password 'a\\' valid until 'b'", "alter role x password " + r},
		{"select $1 where password = 'a\\' or x = 'q'", "select $1 where password = " + r + "q'"},
		// Cut at 1000 characters inside the literal.
		{"ALTER ROLE x PASSWORD 'secret-cut", "ALTER ROLE x PASSWORD " + r},
		{"ALTER ROLE x PASSWORD E'secret-cut\\", "ALTER ROLE x PASSWORD " + r},
		{"", ""},
	}
	for _, tt := range tests {
		if got := RedactSQL(tt.in); got != tt.want {
			t.Errorf("RedactSQL(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		// Idempotent: a text redacted once (an older run's, shown again) stays.
		if got := RedactSQL(tt.want); got != tt.want {
			t.Errorf("RedactSQL(RedactSQL(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// redactTemplates are statements with a password literal at %s.
var redactTemplates = []string{
	"ALTER ROLE x PASSWORD %s",
	"alter role \"X\" with login encrypted password %s valid until 'infinity'",
	"CREATE ROLE r LOGIN PASSWORD %s",
	"create user u with password %s;",
	"CREATE USER MAPPING FOR public SERVER s OPTIONS (user 'u', password %s)",
	"ALTER SERVER s OPTIONS (ADD password %s)",
	"CREATE SUBSCRIPTION s CONNECTION %s PUBLICATION p",
	"select 1 where password = %s",
	"/* c */ -- d\nALTER ROLE x PASSWORD %s",
}

// quoteLiteral is p as a literal of one of PostgreSQL's forms (style mod 4):
// '…' with doubled quotes, E'…' with backslash escapes, $$…$$ or $t$…$t$
// when p holds no such tag, U&'…'.
func quoteLiteral(p string, style int) string {
	switch style % 4 {
	case 1:
		return "E'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(p) + "'"
	case 2:
		for _, tag := range []string{"$$", "$t$", "$tt$", "$ttt$"} {
			if !strings.Contains(p+"$", tag) && !strings.HasSuffix(p, "$") {
				return tag + p + tag
			}
		}
		return "'" + strings.ReplaceAll(p, "'", "''") + "'"
	case 3:
		return "U&'" + strings.ReplaceAll(p, "'", "''") + "'"
	}
	return "'" + strings.ReplaceAll(p, "'", "''") + "'"
}

// FuzzRedactSQL: RedactSQL never panics, and a password written as a
// literal in a statement that sets one never comes out, in any of the
// literal's forms.
func FuzzRedactSQL(f *testing.F) {
	f.Add("secret-1", "", 0, uint8(0))
	f.Add("it's", "ALTER ROLE", 1, uint8(1))
	f.Add(`a\`, "'", 2, uint8(2))
	f.Add("$$", "$q$", 3, uint8(3))
	f.Add("x*/y", "/*", 4, uint8(0))
	f.Add("\x00\xff'\"", "--", 5, uint8(1))
	f.Fuzz(func(t *testing.T, password, garbage string, template int, style uint8) {
		_ = RedactSQL(garbage) // never panics
		_ = RedactSQL(garbage + password)
		if template < 0 {
			template = -template
		}
		tmpl := redactTemplates[template%len(redactTemplates)]
		lit := quoteLiteral(password, int(style))
		sql := strings.Replace(tmpl, "%s", lit, 1)
		got := RedactSQL(sql)
		// What comes out is the template with the literal redacted (and,
		// in CREATE/ALTER ROLE …, its other literals too), or, when the
		// literal may run further under the other standard_conforming_strings
		// (a backslash in a '…' literal), that up to the redacted literal.
		want := RedactSQL(strings.Replace(tmpl, "%s", Redacted, 1))
		if got != want && !(strings.HasSuffix(got, Redacted) && strings.HasPrefix(want, got)) {
			t.Errorf("RedactSQL(%q)\n got %q\nwant %q", sql, got, want)
		}
		if strings.Contains(got, lit) && !strings.Contains(want, lit) {
			t.Errorf("RedactSQL(%q) = %q: the literal %s is still there", sql, got, lit)
		}
		if password != "" && strings.Contains(got, password) && !strings.Contains(want, password) {
			t.Errorf("RedactSQL(%q) = %q: the password %q is still there", sql, got, password)
		}
		// A cut text (pg_stat_statements keeps 1000 characters) keeps no
		// part of the literal either.
		if cut := len(sql) - 1; cut > strings.Index(sql, lit) {
			got := RedactSQL(sql[:cut])
			body := lit[:len(lit)-1]
			if len(body) >= 4 && strings.Contains(got, body) && !strings.Contains(want, body) {
				t.Errorf("RedactSQL(%q) = %q: the cut literal is still there", sql[:cut], got)
			}
		}
	})
}
