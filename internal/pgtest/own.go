package pgtest

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/localpg"
)

// Own describes a cluster of a test's own (OwnCluster).
type Own struct {
	// Settings extend or override the test settings of the shared cluster
	// (testSettings), written into pgtrial.conf at creation, e.g. ssl: on.
	Settings map[string]string
	// Files are written into the data directory after initdb and before the
	// first start, mode 0600 and owned by the server's OS user (as the server
	// wants its key): certificates, keys, or a pg_hba.conf replacing
	// pgtrial's (which trusts loopback and the socket).
	Files map[string][]byte
}

// OwnCluster creates and starts a throwaway cluster for the calling test
// alone, for tests that restart, freeze, kill or reconfigure a server (the
// shared one, Cluster, serves every test of the binary). It is destroyed in
// t.Cleanup; if the test binary dies first, a watchdog stops the server and
// removes its directory, as for the shared cluster. Without PostgreSQL
// binaries the test is skipped (failed under CI=true). It costs an initdb
// and a start: a second or two.
func OwnCluster(t testing.TB, o Own) *localpg.Cluster {
	t.Helper()
	bins, err := localpg.FindBinaries(localpg.FindOptions{})
	if err != nil {
		var nf *localpg.NotFoundError
		if errors.As(err, &nf) && os.Getenv("CI") != "true" {
			t.Skipf("pgtest: skipping, no PostgreSQL to test against: %v", err)
		}
		t.Fatalf("pgtest: %v", err)
	}
	user, err := localpg.LookupOSUser("")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	tmp, err := makeTempDir(user)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	settings := maps.Clone(testSettings)
	maps.Copy(settings, o.Settings)
	c, err := localpg.Open(localpg.Config{
		Name: "own", Dir: filepath.Join(tmp, "c"), BinDir: bins.Dir, Settings: settings, NoSync: true,
	})
	if err != nil {
		os.RemoveAll(tmp)
		t.Fatalf("pgtest: %v", err)
	}
	stopWatchdog := ownWatchdog(user, bins.Path("pg_ctl"), c.DataDir(), tmp)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Destroy(ctx); err != nil && !errors.Is(err, localpg.ErrNoCluster) {
			t.Errorf("pgtest: destroy the test's own cluster: %v", err)
		}
		os.RemoveAll(tmp)
		stopWatchdog()
	})
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := c.Create(ctx); err != nil {
		t.Fatalf("pgtest: create the test's own cluster: %v", err)
	}
	for name, data := range o.Files {
		WriteServerFile(t, c, name, data)
	}
	if _, err := c.Start(ctx); err != nil {
		t.Fatalf("pgtest: start the test's own cluster: %v", err)
	}
	return c
}

// WriteServerFile writes data into c's data directory as name, mode 0600,
// owned by the OS user that runs the server (a certificate, a key, a
// pg_hba.conf); it fails the test when it cannot.
func WriteServerFile(t testing.TB, c *localpg.Cluster, name string, data []byte) {
	t.Helper()
	path := filepath.Join(c.DataDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	if err := os.Chmod(path, 0o600); err != nil { // an existing file keeps its mode
		t.Fatalf("pgtest: %v", err)
	}
	if u := c.OSUser(); u.Switch {
		if err := os.Chown(path, int(u.UID), int(u.GID)); err != nil {
			t.Fatalf("pgtest: chown %s to %s: %v", path, u.Name, err)
		}
	}
}

// ownWatchdogScript is watchdogScript that first sends SIGCONT to the postmaster
// and its children (a test that froze the server and died).
const ownWatchdogScript = `trap '' INT TERM HUP QUIT
cat >/dev/null
pid=$(head -n 1 "$2/postmaster.pid" 2>/dev/null)
if [ -n "$pid" ]; then
  kill -CONT "$pid" 2>/dev/null
  for s in /proc/[0-9]*/stat; do
    read -r line <"$s" 2>/dev/null || continue
    rest=${line##*) }
    set -- "$1" "$2" "$3" $rest
    child=${s#/proc/}
    [ "$5" = "$pid" ] && kill -CONT "${child%/stat}" 2>/dev/null
    set -- "$1" "$2" "$3"
  done
fi
"$1" stop -D "$2" -m immediate -w -t 30 >/dev/null 2>&1
rm -rf "$3"`

// ownWatchdog is startWatchdog for one own cluster: it returns the function
// that ends it (closes its stdin and waits, at most 30 s). Without /bin/sh
// there is no watchdog; t.Cleanup still removes the cluster.
func ownWatchdog(u localpg.OSUser, pgCtl, dataDir, tmp string) (stop func()) {
	cmd := exec.Command("/bin/sh", "-c", ownWatchdogScript, "pgtest-watchdog", pgCtl, dataDir, tmp)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	attr := u.SysProcAttr()
	if attr == nil {
		attr = new(syscall.SysProcAttr)
	}
	attr.Setpgid = true
	cmd.SysProcAttr = attr
	in, err := cmd.StdinPipe()
	if err != nil {
		return func() {}
	}
	if err := cmd.Start(); err != nil {
		in.Close()
		return func() {}
	}
	return func() {
		in.Close()
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		select {
		case <-waited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
		}
	}
}
