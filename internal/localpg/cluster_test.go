package localpg_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/localpg"
)

// needBinaries skips the test without PostgreSQL server binaries (fails under CI=true).
func needBinaries(t *testing.T) localpg.Binaries {
	t.Helper()
	b, err := localpg.FindBinaries(localpg.FindOptions{})
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("no PostgreSQL binaries: %v", err)
	}
	return b
}

// reachableDir returns a fresh directory that the server's OS user can reach: as root,
// t.TempDir()'s parent is mode 0700, so it is opened up (it is the test's own).
func reachableDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	for _, p := range []string{d, filepath.Dir(d)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// openCluster opens a test cluster in a reachable temp dir and destroys it at the end.
func openCluster(t *testing.T, dir string) *localpg.Cluster {
	t.Helper()
	c, err := localpg.Open(localpg.Config{Name: "t", Dir: dir, NoSync: true,
		Settings: map[string]string{"shared_buffers": "128MB", "fsync": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Destroy(ctx); err != nil && !errors.Is(err, localpg.ErrNoCluster) {
			t.Errorf("cleanup: %v", err)
		}
	})
	return c
}

func queryString(t *testing.T, ctx context.Context, url, sql string, args ...any) string {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer conn.Close(context.Background())
	var s string
	if err := conn.QueryRow(ctx, sql, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

// procUID returns the real uid of a process from /proc.
func procUID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "Uid:" {
			uid, _ := strconv.Atoi(f[1])
			return uid
		}
	}
	t.Fatalf("no Uid in /proc/%d/status", pid)
	return -1
}

// TestLifecycle walks one cluster through everything "pgtrial local" does. The steps
// depend on each other, so they are one test.
func TestLifecycle(t *testing.T) {
	needBinaries(t)
	ctx := testCtx(t, 3*time.Minute)
	dir := filepath.Join(reachableDir(t), "cluster")
	c := openCluster(t, dir)

	st, err := c.Status(ctx)
	if err != nil || st.State != localpg.NotCreated {
		t.Fatalf("before start: %+v, %v", st, err)
	}

	res, err := c.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.AlreadyRunning || res.Port == 0 {
		t.Errorf("first start: %+v", res)
	}
	url := c.URL("")
	wantURL := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", res.Port)
	if url != wantURL {
		t.Errorf("URL = %s, want %s", url, wantURL)
	}
	if got := c.URL("bench"); got != strings.Replace(wantURL, "/postgres?", "/bench?", 1) {
		t.Errorf("URL(bench) = %s", got)
	}

	t.Run("marker", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(dir, localpg.MarkerFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"name": "t"`, `"port": ` + strconv.Itoa(res.Port), `"bin_dir": "/`, `"pg_version": "`, `"os_user": "`, `"created": "`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("marker lacks %s:\n%s", want, b)
			}
		}
	})

	t.Run("start again", func(t *testing.T) {
		res2, err := c.Start(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !res2.AlreadyRunning || res2.Created || res2.Port != res.Port || c.URL("") != url {
			t.Errorf("second start: %+v, URL %s", res2, c.URL(""))
		}
	})

	st, err = c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("status", func(t *testing.T) {
		if st.State != localpg.Running || st.PID <= 0 || st.Port != res.Port || st.URL != url ||
			st.DataDir != filepath.Join(dir, "data") || st.DataBytes < 1<<20 || !strings.HasPrefix(st.Version, strconv.Itoa(c.Major())+".") {
			t.Errorf("status: %+v", st)
		}
		if got := queryString(t, ctx, url, "SELECT current_setting('server_version')"); !strings.HasPrefix(got, st.Version) {
			t.Errorf("server says version %s, status %s", got, st.Version)
		}
	})

	t.Run("server runs as the OS user", func(t *testing.T) {
		want := os.Getuid()
		if want == 0 {
			u, err := user.Lookup(c.OSUser().Name)
			if err != nil {
				t.Fatal(err)
			}
			want, _ = strconv.Atoi(u.Uid)
			if want == 0 {
				t.Fatalf("OS user %s is root", u.Username)
			}
		}
		if got := procUID(t, st.PID); got != want {
			t.Errorf("postmaster uid %d, want %d", got, want)
		}
		// The connection stays open while /proc is read: its backend exits with it.
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		backend := int(conn.PgConn().PID())
		if got := procUID(t, backend); got != want {
			t.Errorf("backend uid %d, want %d", got, want)
		}
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if uid := int(fi.Sys().(*syscall.Stat_t).Uid); uid != want {
			t.Errorf("cluster directory owned by uid %d, want %d", uid, want)
		}
	})

	t.Run("benchmark defaults", func(t *testing.T) {
		for name, want := range map[string]string{
			"listen_addresses":            "127.0.0.1",
			"track_io_timing":             "on",
			"log_checkpoints":             "on",
			"log_autovacuum_min_duration": "0",
			"unix_socket_directories":     dir,
			"fsync":                       "off", // Config.Settings
		} {
			if got := queryString(t, ctx, url, "SELECT current_setting($1)", name); got != want {
				t.Errorf("%s = %s, want %s", name, got, want)
			}
		}
		b, err := c.Binaries()
		if err != nil {
			t.Fatal(err)
		}
		if b.HasExtension("pg_wait_sampling") {
			if got := queryString(t, ctx, url, "SHOW shared_preload_libraries"); !strings.Contains(got, "pg_wait_sampling") {
				t.Errorf("pg_wait_sampling is installed but not preloaded: shared_preload_libraries = %q", got)
			}
		}
		{
			if b.HasExtension("pg_stat_statements") {
				if got := queryString(t, ctx, url, "SHOW shared_preload_libraries"); !strings.Contains(got, "pg_stat_statements") {
					t.Errorf("shared_preload_libraries = %q", got)
				}
				conn, err := pgx.Connect(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(context.Background())
				if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
					t.Fatal(err)
				}
				if _, err := conn.Exec(ctx, "SELECT count(*) FROM pg_stat_statements"); err != nil {
					t.Errorf("pg_stat_statements: %v", err)
				}
			}
		}
	})

	t.Run("unix socket", func(t *testing.T) {
		sock := fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres", c.SocketDir(), res.Port)
		if got := queryString(t, ctx, sock, "SELECT 'ok'"); got != "ok" {
			t.Errorf("got %s", got)
		}
	})

	t.Run("set reload", func(t *testing.T) {
		pid := st.PID
		results, err := c.Set(ctx, []localpg.Setting{{Name: "work_mem", Value: "64MB"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(results) != 1 || results[0].Action != localpg.ActionReload || results[0].Needs != localpg.ActionReload ||
			results[0].Value != "64MB" || results[0].PendingRestart {
			t.Errorf("results: %+v", results)
		}
		if got := queryString(t, ctx, url, "SHOW work_mem"); got != "64MB" {
			t.Errorf("work_mem = %s after reload", got)
		}
		if st2, _ := c.Status(ctx); st2.PID != pid {
			t.Errorf("reload restarted the server: pid %d -> %d", pid, st2.PID)
		}
	})

	t.Run("set restart", func(t *testing.T) {
		before, _ := c.Status(ctx)
		results, err := c.Set(ctx, []localpg.Setting{{Name: "shared_buffers", Value: "256MB"}, {Name: "max_connections", Value: "150"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			if r.Action != localpg.ActionRestart || r.Needs != localpg.ActionRestart || r.PendingRestart || r.Context != "postmaster" {
				t.Errorf("result: %+v", r)
			}
		}
		if results[0].Value != "256MB" || results[1].Value != "150" {
			t.Errorf("values: %+v", results)
		}
		after, _ := c.Status(ctx)
		if after.PID == before.PID || after.State != localpg.Running {
			t.Errorf("no restart: pid %d -> %d (%s)", before.PID, after.PID, after.State)
		}
		if got := queryString(t, ctx, url, "SHOW shared_buffers"); got != "256MB" {
			t.Errorf("shared_buffers = %s after restart", got)
		}
		if got := queryString(t, ctx, url, "SHOW max_connections"); got != "150" {
			t.Errorf("max_connections = %s after restart", got)
		}
	})

	t.Run("set errors", func(t *testing.T) {
		for _, tt := range []struct {
			settings []localpg.Setting
			want     string
		}{
			{[]localpg.Setting{{Name: "no_such_setting", Value: "1"}}, `unknown setting "no_such_setting"`},
			{[]localpg.Setting{{Name: "port", Value: "1"}}, "managed by pgtrial"},
			{[]localpg.Setting{{Name: "server_version", Value: "1"}}, "read-only"},
			{[]localpg.Setting{{Name: "work_mem;drop", Value: "1"}}, "not a valid setting name"},
			{[]localpg.Setting{{Name: "work_mem", Value: "8MB"}, {Name: "max_connections", Value: "lots"}}, "rolled back"},
		} {
			_, err := c.Set(ctx, tt.settings)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Set(%v): err = %v, want %q", tt.settings, err, tt.want)
			}
		}
		// Nothing of the failed calls stuck.
		if got := queryString(t, ctx, url, "SHOW work_mem"); got != "64MB" {
			t.Errorf("work_mem = %s, want 64MB kept", got)
		}
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_file_settings WHERE name = 'work_mem' AND setting = '8MB'").Scan(&n); err != nil || n != 0 {
			t.Errorf("work_mem=8MB still in the files (%d, %v)", n, err)
		}
	})

	t.Run("values are quoted", func(t *testing.T) {
		val := `it's a \ test; SELECT 1`
		if _, err := c.Set(ctx, []localpg.Setting{{Name: "application_name", Value: val}}); err != nil {
			t.Fatal(err)
		}
		if got := queryString(t, ctx, url, "SELECT reset_val FROM pg_settings WHERE name = 'application_name'"); got != val {
			t.Errorf("application_name = %q, want %q", got, val)
		}
	})

	t.Run("set undoes a restart that fails", func(t *testing.T) {
		_, err := c.Set(ctx, []localpg.Setting{{Name: "shared_preload_libraries", Value: "no_such_library_pgtrial"}})
		if err == nil || !strings.Contains(err.Error(), "undone") || !strings.Contains(err.Error(), "no_such_library_pgtrial") {
			t.Errorf("err = %v", err)
		}
		if !c.Running() {
			t.Fatal("cluster not running after the undone setting")
		}
	})

	t.Run("stop, taken port, start", func(t *testing.T) {
		was, err := c.Stop(ctx)
		if err != nil || !was {
			t.Fatalf("stop: %v, %v", was, err)
		}
		if st, _ := c.Status(ctx); st.State != localpg.Stopped || st.PID != 0 {
			t.Errorf("after stop: %+v", st)
		}
		if was, err := c.Stop(ctx); err != nil || was {
			t.Errorf("second stop: %v, %v", was, err)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(res.Port)))
		if err != nil {
			t.Fatalf("occupy port %d: %v", res.Port, err)
		}
		defer l.Close()
		res3, err := c.Start(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res3.OldPort != res.Port || res3.Port == res.Port || c.Port() != res3.Port {
			t.Errorf("start on taken port: %+v", res3)
		}
		if got := queryString(t, ctx, c.URL(""), "SHOW port"); got != strconv.Itoa(res3.Port) {
			t.Errorf("server port %s, want %d", got, res3.Port)
		}
		// Reopening reads the new port from the marker.
		c2, err := localpg.Open(localpg.Config{Dir: dir})
		if err != nil || c2.Port() != res3.Port {
			t.Errorf("reopened: port %d, %v", c2.Port(), err)
		}
	})

	t.Run("destroy", func(t *testing.T) {
		if err := c.Destroy(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists: %v", dir, err)
		}
		if c.Running() {
			t.Error("still running after destroy")
		}
		if err := c.Destroy(ctx); !errors.Is(err, localpg.ErrNoCluster) {
			t.Errorf("second destroy: %v", err)
		}
	})
}

func TestDestroyRefusesForeignDirectory(t *testing.T) {
	dir := filepath.Join(reachableDir(t), "precious")
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data", "keep.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := localpg.Open(localpg.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Destroy(testCtx(t, time.Minute))
	if err == nil || !strings.Contains(err.Error(), "refusing") || !strings.Contains(err.Error(), localpg.MarkerFile) {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "keep.txt")); err != nil {
		t.Errorf("file gone: %v", err)
	}
	// Nor does start take over a non-empty foreign directory.
	needBinaries(t)
	if _, err := c.Start(testCtx(t, time.Minute)); err == nil || !strings.Contains(err.Error(), "not a pgtrial cluster") {
		t.Errorf("start in a foreign directory: %v", err)
	}
}

func TestLongPathUsesShortSocketDir(t *testing.T) {
	needBinaries(t)
	ctx := testCtx(t, 2*time.Minute)
	dir := reachableDir(t)
	for len(dir) < 120 {
		dir = filepath.Join(dir, "a-rather-long-directory-name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c := openCluster(t, filepath.Join(dir, "cluster"))
	if _, err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	sd := c.SocketDir()
	if sd == c.Dir() || len(sd)+len("/.s.PGSQL.65535") > 107 {
		t.Errorf("socket dir %s (cluster %s)", sd, c.Dir())
	}
	sock := fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres", sd, c.Port())
	if got := queryString(t, ctx, sock, "SELECT 'ok'"); got != "ok" {
		t.Errorf("got %s", got)
	}
	if err := c.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sd); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket dir %s left behind: %v", sd, err)
	}
}

func TestOSUserAndDefaultDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		if _, err := localpg.LookupOSUser("someone-else-" + strconv.Itoa(os.Getpid())); err == nil || !strings.Contains(err.Error(), "only root") {
			t.Errorf("non-root --os-user: %v", err)
		}
		return
	}
	if _, err := localpg.LookupOSUser("no-such-user-pgtrial"); err == nil || !strings.Contains(err.Error(), "no such OS user") {
		t.Errorf("missing user: %v", err)
	}
	if _, err := localpg.LookupOSUser("root"); err == nil || !strings.Contains(err.Error(), "refuses to run as root") {
		t.Errorf("root as OS user: %v", err)
	}
	u, err := localpg.LookupOSUser("")
	if err != nil {
		t.Skipf("no default OS user: %v", err)
	}
	if u.Name != localpg.DefaultRootOSUser || !u.Switch || u.UID == 0 {
		t.Errorf("default OS user as root: %+v", u)
	}

	// A private home (0700) sends the default cluster to /var/tmp; a reachable
	// XDG_CACHE_HOME is used as is.
	private := t.TempDir() // owned by root
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	c, err := localpg.Open(localpg.Config{Name: "x", Getenv: func(k string) string {
		return map[string]string{"HOME": private}[k]
	}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Dir() != "/var/tmp/pgtrial/clusters/x" || !strings.Contains(c.Note(), "cannot traverse") || !strings.Contains(c.Note(), private) {
		t.Errorf("private home: dir %s, note %q", c.Dir(), c.Note())
	}
	open := reachableDir(t)
	c, err = localpg.Open(localpg.Config{Name: "y", Getenv: func(k string) string {
		return map[string]string{"HOME": private, "XDG_CACHE_HOME": open}[k]
	}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Dir() != filepath.Join(open, "pgtrial", "clusters", "y") || c.Note() != "" {
		t.Errorf("reachable XDG_CACHE_HOME: dir %s, note %q", c.Dir(), c.Note())
	}
	// An explicit --dir the user cannot reach is an error, not a silent chmod.
	needBinaries(t)
	c, err = localpg.Open(localpg.Config{Dir: filepath.Join(private, "c")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Start(testCtx(t, time.Minute))
	if err == nil || !strings.Contains(err.Error(), "cannot traverse") {
		t.Errorf("unreachable --dir: %v", err)
	}
	if fi, err := os.Stat(private); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s mode changed: %v %v", private, fi.Mode(), err)
	}
}

func TestOpenRejectsBadName(t *testing.T) {
	for _, name := range []string{"../x", "a/b", ".hidden", strings.Repeat("n", 70)} {
		if _, err := localpg.Open(localpg.Config{Name: name}); err == nil {
			t.Errorf("name %q accepted", name)
		}
	}
}

// As root, --os-user picks another account, and later commands use the account
// recorded in the marker.
func TestOSUserFromMarker(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	other, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no OS user nobody")
	}
	needBinaries(t)
	ctx := testCtx(t, 2*time.Minute)
	dir := filepath.Join(reachableDir(t), "c")
	c, err := localpg.Open(localpg.Config{Dir: dir, OSUser: "nobody", NoSync: true, Settings: map[string]string{"shared_buffers": "128MB"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Destroy(context.Background()) })
	if _, err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	st, _ := c.Status(ctx)
	if uid := procUID(t, st.PID); strconv.Itoa(uid) != other.Uid {
		t.Errorf("postmaster uid %d, want nobody's %s", uid, other.Uid)
	}
	again, err := localpg.Open(localpg.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if again.OSUser().Name != "nobody" {
		t.Errorf("reopened without --os-user: user %s, want nobody from the marker", again.OSUser().Name)
	}
	if _, err := localpg.Open(localpg.Config{Dir: dir, OSUser: localpg.DefaultRootOSUser}); err == nil || !strings.Contains(err.Error(), "belongs to OS user nobody") {
		t.Errorf("conflicting --os-user: %v", err)
	}
	if was, err := again.Stop(ctx); err != nil || !was {
		t.Errorf("stop through the reopened cluster: %v %v", was, err)
	}
}
