package localpg_test

import (
	"net/netip"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/localpg"
)

// listeners is what listens on the cluster's port, by the kernel's tables
// (/proc/net/tcp and tcp6), whatever the server says of itself.
func listeners(t *testing.T, port int) []netip.AddrPort {
	t.Helper()
	got, err := localpg.TCPListeners(0, port)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestLoopbackWhateverAutoConf: the server listens on 127.0.0.1 only, on
// the marker's port and in its socket directory, even after ALTER SYSTEM
// sets listen_addresses = '*', another port and another socket directory
// (postgresql.auto.conf) and the cluster is restarted, and after a stop and
// a start: the command line pgtrial gives the server wins over every file.
// (Defect 6 of issue 14: the server listened on 0.0.0.0 and [::].)
func TestLoopbackWhateverAutoConf(t *testing.T) {
	needBinaries(t)
	ctx := testCtx(t, 3*time.Minute)
	dir := filepath.Join(reachableDir(t), "cluster")
	c := openCluster(t, dir)
	res, err := c.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.AddrPort{netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(res.Port))}
	if got := listeners(t, res.Port); !slices.Equal(got, want) {
		t.Fatalf("after the first start, listening on %v, want %v", got, want)
	}

	conn, err := c.Connect(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		"ALTER SYSTEM SET listen_addresses = '*'",
		"ALTER SYSTEM SET port = 1",
		"ALTER SYSTEM SET unix_socket_directories = '/tmp'",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	conn.Close(ctx)

	check := func(after string) {
		t.Helper()
		if got := listeners(t, res.Port); !slices.Equal(got, want) {
			t.Errorf("after %s with listen_addresses = '*' in postgresql.auto.conf: listening on %v, want %v", after, got, want)
		}
		if got := listeners(t, 1); len(got) != 0 {
			t.Errorf("after %s: listening on port 1: %v", after, got)
		}
		if c.Port() != res.Port {
			t.Errorf("after %s: port %d, want %d", after, c.Port(), res.Port)
		}
		if got := queryString(t, ctx, c.URL(""), "SELECT current_setting('unix_socket_directories')"); got != c.SocketDir() {
			t.Errorf("after %s: unix_socket_directories %q, want %q", after, got, c.SocketDir())
		}
		if got := queryString(t, ctx, c.URL(""), "SELECT current_setting('listen_addresses')"); got != localpg.ListenAddress {
			t.Errorf("after %s: SHOW listen_addresses %q", after, got)
		}
	}
	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	check("Restart")
	if _, err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	check("Stop and Start")

	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.Listen, want) {
		t.Errorf("Status.Listen = %v, want %v", st.Listen, want)
	}
}
