package pgbenchfmt

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestConnString(t *testing.T) {
	noEnv := func(string) (string, bool) { return "", false }
	tests := []struct {
		o                   Options
		env                 map[string]string
		host, user, db, app string
		port                uint16
	}{
		{o: Options{DBName: "bench"}, host: "/tmp", port: 5432, user: "envuser", db: "bench", app: "pgbench"},
		{o: Options{DBName: "bench", Host: "h1", Port: "5433", Username: "u1"}, host: "h1", port: 5433, user: "u1", db: "bench", app: "pgbench"},
		{o: Options{DBName: "it's"}, host: "/tmp", port: 5432, user: "envuser", db: "it's", app: "pgbench"},
		// A connection string in dbname wins over -h/-p/-U, which fill the rest.
		{o: Options{DBName: "dbname=x host=h2", Host: "h1", Port: "5433"}, host: "h2", port: 5433, user: "envuser", db: "x", app: "pgbench"},
		{o: Options{DBName: "postgres://u2@h2/x", Host: "h1", Port: "5433", Username: "u1"}, host: "h2", port: 5433, user: "u2", db: "x", app: "pgbench"},
		{o: Options{DBName: "postgresql:///x?application_name=me", Host: "h1"}, host: "h1", port: 5432, user: "envuser", db: "x", app: "me"},
		{o: Options{DBName: "x"}, env: map[string]string{"PGAPPNAME": "mine"}, host: "/tmp", port: 5432, user: "envuser", db: "x", app: ""},
	}
	for _, tt := range tests {
		lookup := noEnv
		if tt.env != nil {
			lookup = func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
		}
		s := tt.o.ConnString(lookup)
		t.Setenv("PGHOST", "/tmp")
		t.Setenv("PGPORT", "5432")
		t.Setenv("PGUSER", "envuser")
		t.Setenv("PGAPPNAME", "")
		t.Setenv("PGDATABASE", "")
		cfg, err := pgconn.ParseConfig(s)
		if err != nil {
			t.Errorf("%+v: ParseConfig(%q): %v", tt.o, s, err)
			continue
		}
		if cfg.Host != tt.host || cfg.Port != tt.port || cfg.User != tt.user || cfg.Database != tt.db || cfg.RuntimeParams["application_name"] != tt.app {
			t.Errorf("%q: host %q port %d user %q db %q app %q; want %q %d %q %q %q", s, cfg.Host, cfg.Port, cfg.User, cfg.Database,
				cfg.RuntimeParams["application_name"], tt.host, tt.port, tt.user, tt.db, tt.app)
		}
	}
}
