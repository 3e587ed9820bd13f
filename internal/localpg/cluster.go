// Package localpg manages throwaway PostgreSQL clusters built from the system's server
// binaries: find initdb/pg_ctl/postgres, create a cluster with benchmark defaults,
// start, stop and restart it, change settings, and destroy it.
//
// A cluster lives in one directory:
//
//	<dir>/pgtrial-cluster.json  marker: name, creation time, binaries, version, port, OS user
//	<dir>/data/                 PGDATA (pgtrial.conf holds pgtrial's settings)
//	<dir>/server.log            server log (pg_ctl -l)
//	<dir>/.s.PGSQL.<port>       unix socket (or in a short directory under /tmp, see socketDirFor)
//
// The server listens on 127.0.0.1 and that socket only, with trust authentication, and
// its superuser is "postgres": listen_addresses, port and unix_socket_directories are
// given on the server's command line at every start (listen.go), so neither ALTER
// SYSTEM nor an edited postgresql.conf can move it off loopback. As root, every program runs as an unprivileged OS user.
package localpg

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// MarkerFile names the file that identifies a directory as a pgtrial cluster. Destroy
// removes only directories that carry it.
const MarkerFile = "pgtrial-cluster.json"

// markerSchema versions the marker format.
const markerSchema = "pgtrial.localpg/v1"

// DefaultName is the cluster name when none is given.
const DefaultName = "default"

// Superuser is the database superuser that initdb creates and the URLs use.
const Superuser = "postgres"

// RootFallbackParent is where clusters go when running as root and the OS user cannot
// reach the default location (root's home is usually mode 0700).
const RootFallbackParent = "/var/tmp/pgtrial/clusters"

// maxSocketPath is the longest unix socket path: sizeof(sun_path) = 108 on Linux,
// including the terminating NUL.
const maxSocketPath = 107

// StartTimeout bounds pg_ctl start/stop waits (pg_ctl -t, seconds).
const StartTimeout = 60 * time.Second

// Config says which cluster to open and how to create it. The zero value is the
// default cluster in the default location.
type Config struct {
	Name   string // cluster name (default "default"); names the default directory
	Dir    string // cluster directory; overrides the default location
	BinDir string // --pg-bin: directory of initdb, pg_ctl, postgres
	OSUser string // --os-user: who runs the server when pgtrial runs as root

	// Settings extend or override the benchmark defaults written to pgtrial.conf at
	// creation (name → value as in postgresql.conf, unquoted).
	Settings map[string]string
	// NoSync runs initdb --no-sync: faster, for tests; a crash may corrupt the cluster.
	NoSync bool
	// Getenv reads PGTRIAL_PG_BIN, PATH, XDG_CACHE_HOME and HOME; nil means os.Getenv.
	Getenv func(string) string
}

// Marker is the content of pgtrial-cluster.json.
type Marker struct {
	Schema    string    `json:"schema"`
	Name      string    `json:"name"`
	Created   time.Time `json:"created"`
	BinDir    string    `json:"bin_dir"`
	PGVersion string    `json:"pg_version"`
	PGMajor   int       `json:"pg_major"`
	Port      int       `json:"port"`
	OSUser    string    `json:"os_user"`
	SocketDir string    `json:"socket_dir"`
}

// Cluster is one throwaway cluster, created or not yet. Its methods are safe for
// concurrent use; lifecycle operations are serialised.
type Cluster struct {
	mu     sync.Mutex
	cfg    Config
	name   string
	dir    string
	note   string // why dir is not the usual default location ("" when it is)
	user   OSUser
	marker *Marker   // nil until created
	bins   *Binaries // resolved lazily
	getenv func(string) string
}

// State is a cluster's life-cycle state.
type State string

// The states Status reports.
const (
	NotCreated State = "not created"
	Stopped    State = "stopped"
	Running    State = "running"
)

// Status describes a cluster; fields that do not apply to its state are zero.
type Status struct {
	State     State
	Name      string
	Dir       string // cluster directory
	DataDir   string
	SocketDir string
	LogFile   string
	Note      string // why Dir is not the default location, if it is not
	OSUser    string
	Version   string // PostgreSQL version, e.g. "15.18"
	Port      int
	PID       int // postmaster pid when running
	// Listen are the TCP addresses the running server listens on, as the kernel says
	// (TCPListeners); nil when it is stopped or they cannot be read (ListenErr says why).
	Listen    []netip.AddrPort
	ListenErr error
	DataBytes int64 // size of the data directory in bytes
	URL       string
}

// StartResult says what Start did.
type StartResult struct {
	Created        bool // the cluster was initialised by this call
	AlreadyRunning bool // nothing was started
	OldPort        int  // non-zero when the previous port was taken and a new one chosen
	Port           int
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)

// Open finds the cluster directory for cfg and reads its marker if it exists. It does
// not create anything: use Create or Start for that.
func Open(cfg Config) (*Cluster, error) {
	c := &Cluster{cfg: cfg, getenv: cfg.Getenv}
	if c.getenv == nil {
		c.getenv = os.Getenv
	}
	c.name = cfg.Name
	if c.name == "" {
		c.name = DefaultName
	}
	if !nameRE.MatchString(c.name) {
		return nil, fmt.Errorf("cluster name %q: use letters, digits, '_', '.', '-' (at most 64, not starting with '.' or '-')", c.name)
	}
	u, uerr := LookupOSUser(cfg.OSUser)
	if cfg.Dir != "" {
		abs, err := filepath.Abs(cfg.Dir)
		if err != nil {
			return nil, fmt.Errorf("--dir %s: %w", cfg.Dir, err)
		}
		c.dir = abs
	} else {
		if uerr != nil {
			return nil, uerr
		}
		var err error
		c.dir, c.note, err = defaultDir(c.name, u, c.getenv)
		if err != nil {
			return nil, err
		}
	}
	m, err := readMarker(c.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	c.marker = m
	// An existing cluster belongs to the OS user recorded in its marker.
	if m != nil && m.OSUser != "" && (uerr != nil || m.OSUser != u.Name) {
		switch {
		case os.Geteuid() != 0:
			return nil, fmt.Errorf("cluster in %s belongs to OS user %s; run pgtrial as %s or as root", c.dir, m.OSUser, m.OSUser)
		case cfg.OSUser != "":
			return nil, fmt.Errorf("cluster in %s belongs to OS user %s, not %s; drop --os-user", c.dir, m.OSUser, cfg.OSUser)
		}
		u, uerr = LookupOSUser(m.OSUser)
	}
	if uerr != nil {
		return nil, uerr
	}
	c.user = u
	return c, nil
}

// defaultDir applies the location rule: ${XDG_CACHE_HOME:-$HOME/.cache}/pgtrial/clusters/NAME,
// except as root when the OS user cannot traverse that path (root's home is usually
// 0700): then /var/tmp/pgtrial/clusters/NAME, and the note says why. pgtrial never
// changes the permissions of existing directories to make a path reachable.
func defaultDir(name string, u OSUser, getenv func(string) string) (dir, note string, err error) {
	base := getenv("XDG_CACHE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" {
			if home, err = os.UserHomeDir(); err != nil {
				return "", "", fmt.Errorf("no XDG_CACHE_HOME or HOME to put the cluster in: %w; pass --dir", err)
			}
		}
		base = filepath.Join(home, ".cache")
	}
	dir = filepath.Join(base, "pgtrial", "clusters", name)
	if u.Switch {
		if terr := u.CanTraverse(dir); terr != nil {
			alt := filepath.Join(RootFallbackParent, name)
			return alt, fmt.Sprintf("running as root and %v, so the cluster is in %s (not %s)", terr, alt, dir), nil
		}
	}
	return dir, "", nil
}

func readMarker(dir string) (*Marker, error) {
	b, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	if err != nil {
		return nil, err
	}
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, MarkerFile), err)
	}
	if m.Schema != markerSchema {
		return nil, fmt.Errorf("%s: unknown schema %q (want %s)", filepath.Join(dir, MarkerFile), m.Schema, markerSchema)
	}
	return &m, nil
}

func (c *Cluster) writeMarker(m *Marker) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(c.dir, MarkerFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := c.user.chown(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Name returns the cluster name.
func (c *Cluster) Name() string { return c.name }

// Dir returns the cluster directory.
func (c *Cluster) Dir() string { return c.dir }

// DataDir returns the PGDATA directory.
func (c *Cluster) DataDir() string { return filepath.Join(c.dir, "data") }

// LogFile returns the server log.
func (c *Cluster) LogFile() string { return filepath.Join(c.dir, "server.log") }

// Note says why the cluster is not in the default location ("" when it is).
func (c *Cluster) Note() string { return c.note }

// OSUser returns the account that owns the files and runs the server.
func (c *Cluster) OSUser() OSUser { return c.user }

// Created reports whether the directory holds a cluster (has the marker).
func (c *Cluster) Created() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.marker != nil
}

// recorded is a copy of the cluster's marker, the zero Marker before
// creation.
func (c *Cluster) recorded() Marker {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.marker == nil {
		return Marker{}
	}
	return *c.marker
}

// Port returns the cluster's TCP port on 127.0.0.1 (0 before creation).
func (c *Cluster) Port() int { return c.recorded().Port }

// Version returns the PostgreSQL version of the cluster ("" before creation).
func (c *Cluster) Version() string { return c.recorded().PGVersion }

// Major returns the PostgreSQL major version (0 before creation).
func (c *Cluster) Major() int { return c.recorded().PGMajor }

// SocketDir returns the directory of the unix socket ("" before creation).
func (c *Cluster) SocketDir() string { return c.recorded().SocketDir }

// URL returns a connection URL for database db ("postgres" when empty), e.g.
// postgres://postgres@127.0.0.1:41235/postgres?sslmode=disable. It never carries a
// password (the cluster trusts loopback connections). Before creation it returns "".
func (c *Cluster) URL(db string) string {
	port := c.Port()
	if port == 0 {
		return ""
	}
	return urlFor(port, db)
}

func urlFor(port int, db string) string {
	if db == "" {
		db = "postgres"
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(Superuser),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Connect opens a connection to database db ("postgres" when empty) as the superuser.
func (c *Cluster) Connect(ctx context.Context, db string) (*pgx.Conn, error) {
	u := c.URL(db)
	if u == "" {
		return nil, fmt.Errorf("cluster %s is not created", c.name)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", u, err)
	}
	return conn, nil
}

// Binaries returns the server binaries the cluster uses: the marker's directory for an
// existing cluster (or --pg-bin when given, which must be the same major version),
// else the result of FindBinaries.
func (c *Cluster) Binaries() (Binaries, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.binaries()
}

func (c *Cluster) binaries() (Binaries, error) {
	if c.bins != nil {
		return *c.bins, nil
	}
	var b Binaries
	var err error
	switch {
	case c.marker != nil && c.cfg.BinDir == "" && c.getenv(EnvPGBin) == "":
		var reason string
		b, reason = checkCandidate(c.marker.BinDir)
		if reason != "" {
			// The recorded installation is gone (e.g. upgraded): look for another one of
			// the same major version.
			b, err = FindBinaries(FindOptions{Getenv: c.getenv})
			if err != nil {
				return Binaries{}, fmt.Errorf("cluster %s was created with %s, which is unusable now (%s): %w", c.name, c.marker.BinDir, reason, err)
			}
		} else {
			b.Source = "marker"
		}
	default:
		b, err = FindBinaries(FindOptions{BinDir: c.cfg.BinDir, Getenv: c.getenv})
		if err != nil {
			return Binaries{}, err
		}
	}
	if c.marker != nil && b.Major != c.marker.PGMajor {
		return Binaries{}, fmt.Errorf("cluster %s is PostgreSQL %d but the binaries in %s are %s; pass --pg-bin with PostgreSQL %d binaries or destroy the cluster",
			c.name, c.marker.PGMajor, b.Dir, b.Version, c.marker.PGMajor)
	}
	c.bins = &b
	return b, nil
}

// socketDirFor returns where the unix socket goes: the cluster directory when
// "<dir>/.s.PGSQL.65535" fits the 107-byte limit, else a short per-cluster directory
// /tmp/pgtrial-<first 12 hex digits of sha256(dir)>, recorded in the marker and created
// again at start if /tmp was cleaned.
func socketDirFor(dir string) (string, bool) {
	if len(dir)+len("/.s.PGSQL.65535") <= maxSocketPath {
		return dir, false
	}
	sum := sha256.Sum256([]byte(dir))
	// /tmp rather than $TMPDIR: it is short and, unlike a private TMPDIR, reachable by
	// the server's OS user.
	return filepath.Join("/tmp", "pgtrial-"+hex.EncodeToString(sum[:6])), true
}

// ensureSocketDir creates a short socket directory if the cluster uses one (it may have
// been cleaned from /tmp since the last start).
func (c *Cluster) ensureSocketDir() error {
	sd := c.marker.SocketDir
	if sd == "" || sd == c.dir {
		return nil
	}
	if err := os.Mkdir(sd, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create socket directory %s: %w", sd, err)
	}
	return c.user.chown(sd)
}

// freePort asks the kernel for a free TCP port on 127.0.0.1 (bind to port 0, read it,
// close). Another process could take it before the server binds; Start retries.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// portFree reports whether nothing listens on 127.0.0.1:port.
func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// Create initialises the cluster: initdb (UTF8, locale C, superuser postgres), pg_hba.conf
// (trust, loopback and socket only), pgtrial.conf with the benchmark defaults, and the
// marker. The directory must not exist or be empty. On failure everything created is
// removed again.
func (c *Cluster) Create(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.create(ctx)
}

func (c *Cluster) create(ctx context.Context) (err error) {
	if c.marker != nil {
		return fmt.Errorf("cluster %s already exists in %s", c.name, c.dir)
	}
	b, err := c.binaries()
	if err != nil {
		return err
	}
	if err := c.user.CanTraverse(filepath.Dir(c.dir)); err != nil {
		return fmt.Errorf("cannot create the cluster in %s: %w; choose a --dir the user can reach (e.g. under %s)", c.dir, err, RootFallbackParent)
	}

	createdDir := false
	switch entries, rerr := os.ReadDir(c.dir); {
	case errors.Is(rerr, fs.ErrNotExist):
		if err := mkdirAllReachable(filepath.Dir(c.dir)); err != nil {
			return err
		}
		if err := os.Mkdir(c.dir, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", c.dir, err)
		}
		createdDir = true
	case rerr != nil:
		return fmt.Errorf("read %s: %w", c.dir, rerr)
	case len(entries) > 0:
		return fmt.Errorf("%s is not empty and has no %s: not a pgtrial cluster; choose another --dir or --name", c.dir, MarkerFile)
	}
	defer func() {
		if err == nil {
			return
		}
		if createdDir {
			os.RemoveAll(c.dir)
		} else {
			entries, _ := os.ReadDir(c.dir)
			for _, e := range entries {
				os.RemoveAll(filepath.Join(c.dir, e.Name()))
			}
		}
	}()
	if err := c.user.chown(c.dir); err != nil {
		return err
	}
	if err := os.Chmod(c.dir, 0o700); err != nil {
		return err
	}

	port, err := freePort()
	if err != nil {
		return err
	}
	socketDir, short := socketDirFor(c.dir)
	m := &Marker{
		Schema:    markerSchema,
		Name:      c.name,
		Created:   time.Now().UTC().Truncate(time.Second),
		BinDir:    b.Dir,
		PGVersion: b.Version,
		PGMajor:   b.Major,
		Port:      port,
		OSUser:    c.user.Name,
		SocketDir: socketDir,
	}
	if short {
		c.marker = m
		if err := c.ensureSocketDir(); err != nil {
			c.marker = nil
			return err
		}
		c.marker = nil
	}

	args := []string{"-D", c.DataDir(), "-U", Superuser, "-E", "UTF8", "--locale=C",
		"--auth-local=trust", "--auth-host=trust"}
	if c.cfg.NoSync {
		args = append(args, "--no-sync")
	}
	out, err := run(ctx, c.user, c.dir, b.Path("initdb"), args...)
	if err != nil {
		return fmt.Errorf("initdb %s as OS user %s: %w\n%s", c.DataDir(), c.user.Name, err, indent(tailLines(out, 20)))
	}

	if err := c.writeFile(filepath.Join(c.DataDir(), "pg_hba.conf"), hbaConf, 0o600); err != nil {
		return err
	}
	extra := map[string]string{}
	for k, v := range c.cfg.Settings {
		name := strings.ToLower(k)
		if !validSettingName.MatchString(name) {
			return fmt.Errorf("setting name %q is not valid", k)
		}
		if managedSettings[name] {
			return fmt.Errorf("setting %s is managed by pgtrial and cannot be overridden", name)
		}
		extra[name] = v
	}
	conf := renderConf(port, socketDir, defaultSettings(memTotal(), b.Major, b.preloadLibraries()), extra)
	if err := c.writeFile(filepath.Join(c.DataDir(), confFile), conf, 0o600); err != nil {
		return err
	}
	mainConf := filepath.Join(c.DataDir(), "postgresql.conf")
	f, err := os.OpenFile(mainConf, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", mainConf, err)
	}
	_, err = fmt.Fprintf(f, "\n# pgtrial: benchmark defaults and connection settings.\ninclude '%s'\n", confFile)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("append to %s: %w", mainConf, err)
	}
	if err := c.writeMarker(m); err != nil {
		return err
	}
	c.marker = m
	return nil
}

// mkdirAllReachable creates dir and its missing parents with mode 0755 whatever the
// umask, so that the server's OS user can traverse them. Existing directories are left
// as they are.
func mkdirAllReachable(dir string) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		}
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirAllReachable(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", dir, err)
	} else if err == nil {
		if err := os.Chmod(dir, 0o755); err != nil {
			return fmt.Errorf("chmod %s: %w", dir, err)
		}
	}
	return nil
}

// writeFile writes a file owned by the OS user.
func (c *Cluster) writeFile(path, content string, perm os.FileMode) error {
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return c.user.chown(path)
}

// postmasterPID returns the pid of the running postmaster, or 0 when none runs. It
// reads postmaster.pid and checks that the process exists and is a postgres process (a
// pid file left by a crash may name a pid reused by something else).
func (c *Cluster) postmasterPID() int {
	b, err := os.ReadFile(filepath.Join(c.DataDir(), "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return 0
	}
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil {
		name := strings.TrimSpace(string(comm))
		if name != "postgres" && name != "postmaster" {
			return 0
		}
	}
	if zombie(pid) {
		// Killed (kill -9) and not yet reaped by its parent: it exists for
		// kill(2) but serves nothing, and a start must not wait for it.
		return 0
	}
	return pid
}

// zombie reports whether process pid has exited and awaits its parent's
// wait(2): state Z (or X) in /proc/PID/stat, the field after the command
// name in parentheses. Without /proc it reports false.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	state := b[i+2]
	return state == 'Z' || state == 'X'
}

// Running reports whether the cluster's server is running.
func (c *Cluster) Running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.marker != nil && c.postmasterPID() != 0
}

// Start creates the cluster if needed and starts the server (pg_ctl start -w, with
// listen_addresses=127.0.0.1, the port and the socket directory as options on the
// server's command line, which override every configuration file). It is
// idempotent: a running server is left alone (AlreadyRunning). When the recorded port
// is taken by something else, a new free port is chosen and recorded; if the server
// loses a race for the port, Start retries with another one (up to 3 times).
func (c *Cluster) Start(ctx context.Context) (StartResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.start(ctx)
}

func (c *Cluster) start(ctx context.Context) (StartResult, error) {
	var res StartResult
	if c.marker == nil {
		if err := c.create(ctx); err != nil {
			return res, err
		}
		res.Created = true
	}
	res.Port = c.marker.Port
	if c.postmasterPID() != 0 {
		res.AlreadyRunning = true
		return res, nil
	}
	b, err := c.binaries()
	if err != nil {
		return res, err
	}
	if err := c.ensureSocketDir(); err != nil {
		return res, err
	}
	const attempts = 3
	for attempt := 1; ; attempt++ {
		if !portFree(c.marker.Port) {
			old := c.marker.Port
			if err := c.changePort(); err != nil {
				return res, err
			}
			if res.OldPort == 0 {
				res.OldPort = old
			}
			res.Port = c.marker.Port
		}
		logOffset := fileSize(c.LogFile())
		// Where the server listens goes on its command line (serverOptions), where no
		// ALTER SYSTEM or edited file can override it: loopback only.
		out, err := run(ctx, c.user, c.dir, b.Path("pg_ctl"), "start", "-D", c.DataDir(),
			"-l", c.LogFile(), "-w", "-t", strconv.Itoa(int(StartTimeout/time.Second)),
			"-o", serverOptions(c.marker.Port, c.marker.SocketDir))
		if err == nil {
			return res, nil
		}
		logTail := tailLines(readFrom(c.LogFile(), logOffset), 20)
		if attempt < attempts && strings.Contains(logTail, "could not bind") && ctx.Err() == nil {
			continue // lost the port to another process; portFree picks a new one
		}
		return res, fmt.Errorf("start cluster %s (pg_ctl start, port %d): %w\n%s\nserver log %s (last lines):\n%s",
			c.name, c.marker.Port, err, indent(out), c.LogFile(), indent(logTail))
	}
}

// changePort picks a new free port and records it in pgtrial.conf and the marker.
func (c *Cluster) changePort() error {
	port, err := freePort()
	if err != nil {
		return err
	}
	path := filepath.Join(c.DataDir(), confFile)
	conf, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("change port: %w", err)
	}
	updated, err := rewritePort(string(conf), port)
	if err != nil {
		return fmt.Errorf("change port in %s: %w", path, err)
	}
	if err := c.writeFile(path, updated, 0o600); err != nil {
		return err
	}
	m := *c.marker
	m.Port = port
	if err := c.writeMarker(&m); err != nil {
		return err
	}
	c.marker = &m
	return nil
}

// Stop shuts the server down with pg_ctl stop -m fast (active transactions are rolled
// back, clients disconnected) and waits for it. It reports whether a server was running.
func (c *Cluster) Stop(ctx context.Context) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stop(ctx, "fast")
}

func (c *Cluster) stop(ctx context.Context, mode string) (bool, error) {
	if c.marker == nil {
		return false, fmt.Errorf("cluster %s does not exist in %s", c.name, c.dir)
	}
	if c.postmasterPID() == 0 {
		return false, nil
	}
	b, err := c.binaries()
	if err != nil {
		return true, err
	}
	out, err := run(ctx, c.user, c.dir, b.Path("pg_ctl"), "stop", "-D", c.DataDir(), "-m", mode,
		"-w", "-t", strconv.Itoa(int(StartTimeout/time.Second)))
	if err != nil {
		if c.postmasterPID() == 0 {
			return true, nil // it stopped anyway (e.g. it was already shutting down)
		}
		return true, fmt.Errorf("stop cluster %s (pg_ctl stop -m %s): %w\n%s", c.name, mode, err, indent(out))
	}
	return true, nil
}

// Restart stops (fast) and starts the server. A stopped server is just started.
func (c *Cluster) Restart(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.restart(ctx)
}

func (c *Cluster) restart(ctx context.Context) error {
	if c.marker == nil {
		return fmt.Errorf("cluster %s does not exist in %s", c.name, c.dir)
	}
	if _, err := c.stop(ctx, "fast"); err != nil {
		return err
	}
	_, err := c.start(ctx)
	return err
}

// Status reports the cluster's state, version, port, pid, data size and URL.
func (c *Cluster) Status(ctx context.Context) (Status, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Status{
		State: NotCreated, Name: c.name, Dir: c.dir, Note: c.note, OSUser: c.user.Name,
	}
	if c.marker == nil {
		return st, nil
	}
	m := c.marker
	st.DataDir = c.DataDir()
	st.SocketDir = m.SocketDir
	st.LogFile = c.LogFile()
	st.OSUser = m.OSUser
	st.Version = m.PGVersion
	st.Port = m.Port
	st.URL = urlFor(m.Port, "")
	st.State = Stopped
	if pid := c.postmasterPID(); pid != 0 {
		st.State = Running
		st.PID = pid
		st.Listen, st.ListenErr = TCPListeners(pid, m.Port)
	}
	size, err := dirSize(ctx, st.DataDir)
	if err != nil {
		return st, fmt.Errorf("size of %s: %w", st.DataDir, err)
	}
	st.DataBytes = size
	return st, nil
}

// dirSize sums the sizes of the regular files under dir (bytes). Files that vanish
// while walking (the server removes temporary files) are skipped.
func dirSize(ctx context.Context, dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total, err
}

// ErrNoCluster is returned by Destroy when the directory does not exist.
var ErrNoCluster = errors.New("no cluster")

// Destroy stops the server if it runs and removes the cluster directory (and its
// short socket directory, if any). It refuses a directory without the marker file.
func (c *Cluster) Destroy(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := os.Stat(c.dir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w in %s", ErrNoCluster, c.dir)
	}
	m, err := readMarker(c.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("refusing to destroy %s: it has no %s, so it is not a pgtrial cluster", c.dir, MarkerFile)
		}
		return fmt.Errorf("refusing to destroy %s: %w", c.dir, err)
	}
	c.marker = m
	if _, err := c.stop(ctx, "fast"); err != nil {
		if _, err2 := c.stop(ctx, "immediate"); err2 != nil {
			return fmt.Errorf("destroy %s: the server does not stop, nothing removed: %w", c.dir, err)
		}
	}
	if sd := m.SocketDir; sd != "" && sd != c.dir && strings.HasPrefix(filepath.Base(sd), "pgtrial-") {
		os.RemoveAll(sd)
	}
	if err := os.RemoveAll(c.dir); err != nil {
		return fmt.Errorf("remove %s: %w", c.dir, err)
	}
	c.marker = nil
	return nil
}
