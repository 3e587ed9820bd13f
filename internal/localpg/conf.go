package localpg

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// confFile is pgtrial's part of the server configuration, included from
// postgresql.conf. ALTER SYSTEM (pgtrial local set) writes postgresql.auto.conf, which
// is read last and overrides it; "ALTER SYSTEM RESET ALL" returns to these values.
const confFile = "pgtrial.conf"

// managedSettings are owned by pgtrial: they define where the throwaway cluster
// listens, and "set" refuses to change them.
var managedSettings = map[string]bool{
	"listen_addresses":        true,
	"port":                    true,
	"unix_socket_directories": true,
}

// hbaConf replaces initdb's pg_hba.conf.
//
// Trust authentication is deliberate: this is a throwaway benchmark cluster that
// listens only on 127.0.0.1 (never a routable address) and on a socket inside its own
// directory, so only processes on this machine can reach it, and pgtrial's URLs carry no
// password (nothing to leak into run directories or shell history). Anyone with a login
// on this host can connect as superuser: do not keep data here that needs protection.
const hbaConf = `# pgtrial throwaway cluster: local connections only, trust (see pgtrial local --help).
# TYPE  DATABASE     USER  ADDRESS       METHOD
local   all          all                 trust
host    all          all   127.0.0.1/32  trust
local   replication  all                 trust
host    replication  all   127.0.0.1/32  trust
`

// setting is one line of pgtrial.conf with a comment on why.
type setting struct {
	name, value, why string
}

// preloadable are the extensions pgtrial's collectors read, in the order they are
// preloaded when the binaries have them: pg_stat_statements (statements.csv) and
// pg_wait_sampling (the wait profile of waits.csv).
var preloadable = []string{"pg_stat_statements", "pg_wait_sampling"}

// defaultSettings are the benchmark defaults written at creation. ramBytes is the
// machine's memory (0 when unknown); pgMajor gates settings that older servers lack;
// preload are the libraries for shared_preload_libraries (those of preloadable
// that are installed), none when empty.
func defaultSettings(ramBytes int64, pgMajor int, preload []string) []setting {
	// shared_buffers = RAM/8 clamped to [128MB, 1GB]: big enough to hold a small
	// benchmark's hot set, small enough for a laptop and for several clusters at once.
	const mb = int64(1) << 20
	sb := ramBytes / 8
	sb = max(sb, 128*mb)
	sb = min(sb, 1024*mb)
	s := []setting{
		{"shared_buffers", fmt.Sprintf("%dMB", sb/mb), "RAM/8, clamped to 128MB..1GB"},
		{"max_connections", "200", "room for benchmark clients plus collectors"},
		{"max_wal_size", "4GB", "checkpoints come from checkpoint_timeout, not from WAL volume"},
		{"min_wal_size", "1GB", "recycle WAL segments instead of creating them"},
		{"track_io_timing", "on", "I/O time in pg_stat_statements and EXPLAIN (BUFFERS)"},
		{"log_checkpoints", "on", "checkpoints are events on the run timeline"},
		{"log_autovacuum_min_duration", "0", "every autovacuum/analyze run is logged"},
		{"log_lock_waits", "on", "lock waits longer than deadlock_timeout are logged"},
		{"log_temp_files", "0", "every temporary file is logged"},
		{"log_line_prefix", "%m [%p] %q%u@%d ", "timestamp, pid, user@database"},
	}
	if pgMajor >= 14 {
		s = append(s, setting{"track_wal_io_timing", "on", "WAL write/sync time in pg_stat_wal"})
	}
	if len(preload) > 0 {
		s = append(s, setting{"shared_preload_libraries", strings.Join(preload, ", "),
			"collector evidence: per-statement statistics and wait-event profile (pgtrial creates the extensions in the databases it runs in)"})
	}
	return s
}

// quoteConf quotes a value for a configuration file: single quotes, with ' and \
// doubled (the file syntax treats backslash as an escape inside quotes).
func quoteConf(v string) string {
	v = strings.ReplaceAll(v, `\`, `\\`)
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

// renderConf builds pgtrial.conf. extra (from Config.Settings) overrides or extends
// the defaults; names are lower-cased as the server does.
func renderConf(port int, socketDir string, defaults []setting, extra map[string]string) string {
	var b strings.Builder
	b.WriteString("# Written by pgtrial at cluster creation and included from postgresql.conf.\n")
	b.WriteString("# \"pgtrial local set\" uses ALTER SYSTEM (postgresql.auto.conf), which overrides this file.\n\n")
	b.WriteString("# Connection settings, managed by pgtrial (loopback and the cluster's own socket only).\n")
	fmt.Fprintf(&b, "listen_addresses = '127.0.0.1'\n")
	fmt.Fprintf(&b, "port = %d\n", port)
	fmt.Fprintf(&b, "unix_socket_directories = %s\n\n", quoteConf(socketDir))
	b.WriteString("# Benchmark defaults.\n")
	seen := map[string]bool{}
	for _, s := range defaults {
		v := s.value
		if e, ok := extra[s.name]; ok {
			v = e
		}
		seen[s.name] = true
		fmt.Fprintf(&b, "%s = %s", s.name, quoteConf(v))
		if s.why != "" {
			fmt.Fprintf(&b, "\t# %s", s.why)
		}
		b.WriteString("\n")
	}
	var names []string
	for name := range extra {
		if !seen[strings.ToLower(name)] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) > 0 {
		b.WriteString("\n# Settings requested by the caller.\n")
		for _, name := range names {
			fmt.Fprintf(&b, "%s = %s\n", strings.ToLower(name), quoteConf(extra[name]))
		}
	}
	return b.String()
}

var portLineRE = regexp.MustCompile(`(?m)^port = \d+$`)

// rewritePort replaces the port line of pgtrial.conf.
func rewritePort(conf string, port int) (string, error) {
	if !portLineRE.MatchString(conf) {
		return "", fmt.Errorf("no \"port = N\" line in %s", confFile)
	}
	return portLineRE.ReplaceAllString(conf, "port = "+strconv.Itoa(port)), nil
}

// validSettingName is what the configuration file grammar accepts for a name
// (identifiers, optionally qualified with a dot for extension settings).
var validSettingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$`)

// memTotal reads MemTotal from /proc/meminfo in bytes (0 when unknown).
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
