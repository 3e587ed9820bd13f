package pgbenchfmt

import (
	"net/url"
	"strings"
)

// ConnString is the connection pgbench would open, as a libpq-style connection
// string for pgconn.ParseConfig (which fills what it leaves out from libpq's
// environment: PGHOST, PGPORT, PGUSER, PGPASSWORD, PGSSLMODE, …).
//
// pgbench passes host, port, user and then dbname to PQconnectdbParams with
// expand_dbname, so a dbname that is a connection string (it contains "=" or starts
// with postgresql:// or postgres://) is expanded, and what it sets wins over -h, -p
// and -U; those only fill what it leaves unset. pgbench's
// fallback_application_name=pgbench becomes application_name=pgbench unless
// PGAPPNAME or the connection string names the application.
func (o *Options) ConnString(lookupEnv func(string) (string, bool)) string {
	appName := ""
	if v, _ := lookupEnv("PGAPPNAME"); v == "" {
		appName = "pgbench"
	}
	overrides := [][2]string{{"host", o.Host}, {"port", o.Port}, {"user", o.Username}}

	if isConnURI(o.DBName) {
		u, err := url.Parse(o.DBName)
		if err != nil {
			return o.DBName // let the driver report it
		}
		q := u.Query()
		has := map[string]bool{
			"host": u.Hostname() != "" || q.Has("host"),
			"port": u.Port() != "" || q.Has("port"),
			"user": u.User != nil || q.Has("user"),
		}
		for _, kv := range overrides {
			if kv[1] != "" && !has[kv[0]] {
				q.Set(kv[0], kv[1])
			}
		}
		if appName != "" && !q.Has("application_name") {
			q.Set("application_name", appName)
		}
		u.RawQuery = q.Encode()
		return u.String()
	}

	var b strings.Builder
	add := func(k, v string) {
		if v != "" {
			b.WriteString(k + "=" + quoteConnValue(v) + " ")
		}
	}
	add("application_name", appName)
	for _, kv := range overrides {
		add(kv[0], kv[1])
	}
	if strings.Contains(o.DBName, "=") {
		// Later keywords win in a keyword/value string: the expanded dbname comes last.
		b.WriteString(o.DBName)
	} else {
		add("dbname", o.DBName)
	}
	return strings.TrimSpace(b.String())
}

func isConnURI(s string) bool {
	return strings.HasPrefix(s, "postgresql://") || strings.HasPrefix(s, "postgres://")
}

// quoteConnValue quotes a keyword/value connection string value.
func quoteConnValue(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}
