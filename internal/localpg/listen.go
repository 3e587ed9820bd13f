package localpg

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ListenAddress is the only TCP address the cluster's server listens on. It is given on
// the server's command line at every start (pg_ctl start -o "-c listen_addresses=…"),
// which a value in postgresql.auto.conf (ALTER SYSTEM) or postgresql.conf cannot
// override: the command line is a configuration source of higher priority than any
// file. IPv4 loopback only: pg_hba.conf trusts 127.0.0.1/32 and the URLs name it;
// "localhost" would also bind ::1 where it resolves to it, which nothing uses.
const ListenAddress = "127.0.0.1"

// IsManagedSetting reports whether name (any case) is one of the settings that say
// where the local cluster listens (listen_addresses, port, unix_socket_directories):
// pgtrial sets them on the server's command line, and neither "pgtrial local set" nor
// an experiment's variants may change them.
func IsManagedSetting(name string) bool {
	return managedSettings[strings.ToLower(name)]
}

// serverOptions are the options pg_ctl passes to postgres (-o) at every start: where the
// server listens, which no configuration file can override. The text goes through
// /bin/sh (pg_ctl runs "exec postgres … OPTIONS"), so every value is shell-quoted.
// A marker without a socket directory leaves it to pgtrial.conf.
func serverOptions(port int, socketDir string) string {
	opts := []string{
		"-c", shellQuote("listen_addresses=" + ListenAddress),
		"-c", shellQuote("port=" + strconv.Itoa(port)),
	}
	if socketDir != "" {
		opts = append(opts, "-c", shellQuote("unix_socket_directories="+socketDir))
	}
	return strings.Join(opts, " ")
}

// shellQuote quotes s for /bin/sh: in single quotes, a quote inside as quote, backslash, quote, quote.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tcpListenState is the st column of /proc/net/tcp for a listening socket.
const tcpListenState = "0A"

// TCPListeners returns the TCP addresses on which sockets listen on port, from
// /proc/net/tcp and /proc/net/tcp6 (Linux; other systems give an error), sorted. When
// pid > 0 and its descriptors are readable (/proc/PID/fd: the same user, or root), only
// the sockets of that process count; else every listener on the port does.
func TCPListeners(pid, port int) ([]netip.AddrPort, error) {
	var inodes map[string]bool
	if pid > 0 {
		inodes = socketInodes(pid)
	}
	var out []netip.AddrPort
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if errors.Is(err, os.ErrNotExist) && name == "/proc/net/tcp6" {
			continue // a kernel without IPv6
		}
		if err != nil {
			return nil, fmt.Errorf("read the listening sockets: %w", err)
		}
		got, err := parseProcNetTCP(f, port, inodes)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		out = append(out, got...)
	}
	slices.SortFunc(out, func(a, b netip.AddrPort) int { return a.Compare(b) })
	return slices.Compact(out), nil
}

// socketInodes returns the inodes of the sockets process pid holds ("socket:[N]" links in
// /proc/PID/fd), or nil when they cannot be read.
func socketInodes(pid int) map[string]bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	inodes := map[string]bool{}
	for _, e := range entries {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if n, ok := strings.CutPrefix(link, "socket:["); ok {
			inodes[strings.TrimSuffix(n, "]")] = true
		}
	}
	return inodes
}

// parseProcNetTCP reads the listening sockets on port from a /proc/net/tcp or tcp6
// table: "sl local_address rem_address st … uid timeout inode", local_address as
// HEXADDR:HEXPORT with the address in the kernel's byte order (32-bit words, each
// little-endian on x86). inodes, when not nil, keeps only those sockets.
func parseProcNetTCP(r io.Reader, port int, inodes map[string]bool) ([]netip.AddrPort, error) {
	var out []netip.AddrPort
	sc := bufio.NewScanner(r)
	first := true
	for sc.Scan() {
		if first { // the header
			first = false
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != tcpListenState {
			continue
		}
		hexAddr, hexPort, ok := strings.Cut(f[1], ":")
		if !ok {
			return nil, fmt.Errorf("local address %q: want HEXADDR:HEXPORT", f[1])
		}
		p, err := strconv.ParseUint(hexPort, 16, 16)
		if err != nil {
			return nil, fmt.Errorf("local address %q: %w", f[1], err)
		}
		if int(p) != port || (inodes != nil && !inodes[f[9]]) {
			continue
		}
		addr, err := procAddr(hexAddr)
		if err != nil {
			return nil, fmt.Errorf("local address %q: %w", f[1], err)
		}
		out = append(out, netip.AddrPortFrom(addr, uint16(p)))
	}
	return out, sc.Err()
}

// procAddr decodes an address of /proc/net/tcp(6): 4 or 16 bytes in hex, printed as
// 32-bit words in host byte order (the kernel prints each word with %08X).
func procAddr(h string) (netip.Addr, error) {
	b, err := hex.DecodeString(h)
	if err != nil || (len(b) != 4 && len(b) != 16) {
		return netip.Addr{}, fmt.Errorf("not a 4- or 16-byte hex address")
	}
	for i := 0; i < len(b); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(b[i:]))
	}
	addr, _ := netip.AddrFromSlice(b)
	return addr.Unmap(), nil
}
