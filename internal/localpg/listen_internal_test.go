package localpg

import (
	"net/netip"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestParseProcNetTCP: the listening sockets on a port, IPv4 and IPv6, by
// inode when asked; other states and ports are skipped.
func TestParseProcNetTCP(t *testing.T) {
	tcp := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:A1B2 00000000:0000 0A 00000000:00000000 00:00000000 00000000   107        0 1001 1 0000000000000000 100 0 0 10 0
   1: 00000000:A1B2 00000000:0000 0A 00000000:00000000 00:00000000 00000000   107        0 1002 1 0000000000000000 100 0 0 10 0
   2: 0100007F:A1B2 0100007F:C000 01 00000000:00000000 00:00000000 00000000   107        0 1003 1 0000000000000000 100 0 0 10 0
   3: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1004 1 0000000000000000 100 0 0 10 0
`
	tcp6 := `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:A1B2 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000   107        0 2001 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:A1B2 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000   107        0 2002 1 0000000000000000 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:A1B2 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000   107        0 2003 1 0000000000000000 100 0 0 10 0
`
	const port = 0xA1B2
	ap := func(s string) netip.AddrPort { return netip.AddrPortFrom(netip.MustParseAddr(s), port) }
	got, err := parseProcNetTCP(strings.NewReader(tcp), port, nil)
	if want := []netip.AddrPort{ap("127.0.0.1"), ap("0.0.0.0")}; err != nil || !slices.Equal(got, want) {
		t.Errorf("tcp: %v, %v; want %v", got, err, want)
	}
	got, err = parseProcNetTCP(strings.NewReader(tcp), port, map[string]bool{"1001": true})
	if want := []netip.AddrPort{ap("127.0.0.1")}; err != nil || !slices.Equal(got, want) {
		t.Errorf("tcp, inode 1001: %v, %v; want %v", got, err, want)
	}
	got, err = parseProcNetTCP(strings.NewReader(tcp6), port, nil)
	if want := []netip.AddrPort{ap("::"), ap("::1"), ap("127.0.0.1")}; err != nil || !slices.Equal(got, want) {
		t.Errorf("tcp6: %v, %v; want %v", got, err, want)
	}
	if _, err := parseProcNetTCP(strings.NewReader("h\n 0: zz:A1B2 0:0 0A 0 0 0 0 0 1\n"), port, nil); err == nil {
		t.Error("a bad address: no error")
	}
}

// TestServerOptionsThroughTheShell: pg_ctl hands -o to /bin/sh; each value
// arrives as one argument whatever it holds.
func TestServerOptionsThroughTheShell(t *testing.T) {
	dir := `/tmp/it's a "dir" $HOME`
	opts := serverOptions(5432, dir)
	out, err := exec.Command("/bin/sh", "-c", `printf '%s\n' `+opts).Output()
	if err != nil {
		t.Skipf("no /bin/sh: %v", err)
	}
	want := "-c\nlisten_addresses=127.0.0.1\n-c\nport=5432\n-c\nunix_socket_directories=" + dir + "\n"
	if string(out) != want {
		t.Errorf("the shell gives\n%s\nwant\n%s", out, want)
	}
	if strings.Contains(serverOptions(5432, ""), "unix_socket_directories") {
		t.Error("an empty socket directory is passed on")
	}
}
