package localpg

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pgtrial/pgtrial/internal/pgconf"
)

func TestSocketDirFor(t *testing.T) {
	short := "/var/tmp/pgtrial/clusters/default"
	if got, moved := socketDirFor(short); got != short || moved {
		t.Errorf("socketDirFor(%s) = %s, %v", short, got, moved)
	}
	long := "/" + strings.Repeat("d", 100)
	got, moved := socketDirFor(long)
	if !moved || len(got)+len("/.s.PGSQL.65535") > maxSocketPath {
		t.Errorf("socketDirFor(long) = %s, %v; want a short directory", got, moved)
	}
	if again, _ := socketDirFor(long); again != got {
		t.Errorf("socketDirFor is not deterministic: %s then %s", got, again)
	}
	// The boundary: exactly 107 bytes fit.
	edge := "/" + strings.Repeat("e", maxSocketPath-len("/.s.PGSQL.65535")-1)
	if _, moved := socketDirFor(edge); moved {
		t.Errorf("a %d-byte socket path was moved", len(edge)+len("/.s.PGSQL.65535"))
	}
}

func TestRenderConfAndRewritePort(t *testing.T) {
	conf := renderConf(5433, "/tmp/x y", defaultSettings(24<<30, 15, []string{"pg_stat_statements", "pg_wait_sampling"}), map[string]string{"fsync": "off", "shared_buffers": "128MB"})
	for _, want := range []string{
		"listen_addresses = '127.0.0.1'\n",
		"port = 5433\n",
		"unix_socket_directories = '/tmp/x y'\n",
		"shared_buffers = '128MB'", // override wins
		"shared_preload_libraries = 'pg_stat_statements, pg_wait_sampling'",
		"track_io_timing = 'on'",
		"log_checkpoints = 'on'",
		"log_autovacuum_min_duration = '0'",
		"fsync = 'off'\n",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("conf lacks %q:\n%s", want, conf)
		}
	}
	if strings.Count(conf, "shared_buffers") != 1 {
		t.Errorf("shared_buffers appears more than once:\n%s", conf)
	}
	updated, err := rewritePort(conf, 6000)
	if err != nil || !strings.Contains(updated, "port = 6000\n") || strings.Contains(updated, "port = 5433") {
		t.Errorf("rewritePort: %v\n%s", err, updated)
	}
	if _, err := rewritePort("no port here", 1); err == nil {
		t.Error("rewritePort without a port line succeeded")
	}
}

func TestDefaultSettingsSharedBuffers(t *testing.T) {
	get := func(ram int64) string {
		for _, s := range defaultSettings(ram, 15, nil) {
			if s.name == "shared_buffers" {
				return s.value
			}
		}
		return ""
	}
	for _, tt := range []struct {
		ram  int64
		want string
	}{{0, "128MB"}, {512 << 20, "128MB"}, {4 << 30, "512MB"}, {64 << 30, "1024MB"}} {
		if got := get(tt.ram); got != tt.want {
			t.Errorf("RAM %d: shared_buffers %s, want %s", tt.ram, got, tt.want)
		}
	}
	for _, s := range defaultSettings(1<<30, 15, nil) {
		if s.name == "shared_preload_libraries" {
			t.Error("pg_stat_statements preloaded although it is not installed")
		}
	}
}

func TestQuoting(t *testing.T) {
	if got := quoteConf(`it's a\b`); got != `'it''s a\\b'` {
		t.Errorf("quoteConf = %s", got)
	}
	if got := pgconf.QuoteLiteral(`it's a\b`); got != `E'it''s a\\b'` {
		t.Errorf("quoteLiteral = %s", got)
	}
	if got := pgconf.NameSQL("pg_stat_statements.max"); got != `"pg_stat_statements"."max"` {
		t.Errorf("nameSQL = %s", got)
	}
	for _, tt := range []struct {
		name, value, want string
		major             int
		wantErr           bool
	}{
		{"work_mem", "64MB", "E'64MB'", 15, false},
		{"shared_preload_libraries", "pg_stat_statements, auto_explain", "E'pg_stat_statements', E'auto_explain'", 15, false},
		{"search_path", `"$user", public`, "E'$user', E'public'", 15, false},
		{"shared_preload_libraries", "", "", 15, true},
		{"shared_preload_libraries", " ", "NULL", 19, false},
	} {
		got, err := pgconf.ValueSQL(tt.name, tt.value, tt.major)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("pgconf.ValueSQL(%s, %q) = %s, %v; want %s (error %v)", tt.name, tt.value, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseSetting(t *testing.T) {
	s, err := ParseSetting("search_path=a=b")
	if err != nil || s.Name != "search_path" || s.Value != "a=b" {
		t.Errorf("got %+v, %v", s, err)
	}
	if s, err := ParseSetting("work_mem="); err != nil || s.Value != "" {
		t.Errorf("empty value: %+v, %v", s, err)
	}
	for _, bad := range []string{"work_mem", "=1", ""} {
		if _, err := ParseSetting(bad); err == nil {
			t.Errorf("ParseSetting(%q) succeeded", bad)
		}
	}
}

func TestCanTraverse(t *testing.T) {
	u := OSUser{Name: "nobody-test", UID: 65534, GID: 65534}
	root := t.TempDir()
	open := filepath.Join(root, "open")
	closed := filepath.Join(root, "closed")
	for _, d := range []string{open, closed} {
		if err := os.MkdirAll(filepath.Join(d, "inner"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	parent := filepath.Dir(root) // t.TempDir's own parent, also 0700
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := u.CanTraverse(parent); err != nil {
		t.Skipf("the test's temp parent is not reachable for uid 65534: %v", err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(closed, &st); err != nil {
		t.Fatal(err)
	}
	if st.Uid == u.UID {
		t.Skip("running as uid 65534")
	}
	if err := u.CanTraverse(filepath.Join(open, "inner", "not-yet")); err != nil {
		t.Errorf("open path: %v", err)
	}
	err := u.CanTraverse(filepath.Join(closed, "inner"))
	if err == nil || !strings.Contains(err.Error(), closed) || !strings.Contains(err.Error(), "0700") {
		t.Errorf("closed path: err = %v, want it to name %s and its mode", err, closed)
	}
}
