package localpg

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// DefaultRootOSUser is the OS user that runs the server when pgtrial runs as root.
const DefaultRootOSUser = "postgres"

// OSUser is the operating-system account that owns the cluster files and runs initdb,
// pg_ctl and the server. PostgreSQL refuses to run as root, so as root it is another
// account and commands switch to it (Switch is true).
type OSUser struct {
	Name   string
	UID    uint32
	GID    uint32
	Groups []uint32 // supplementary groups
	Home   string
	Switch bool // the current process is root and must switch credentials to this user
}

// LookupOSUser decides who runs the server. As root: name if given, else "postgres";
// the account must exist and must not be root. As any other user: the current user
// (name, when given, must be that user: only root can switch).
func LookupOSUser(name string) (OSUser, error) {
	if os.Geteuid() != 0 {
		cur, err := user.Current()
		if err != nil {
			return OSUser{}, fmt.Errorf("look up the current OS user: %w", err)
		}
		if name != "" && name != cur.Username && name != cur.Uid {
			return OSUser{}, fmt.Errorf("--os-user %s: only root can run the server as another user (you are %s)", name, cur.Username)
		}
		return fromUser(cur, false)
	}
	explicit := name != ""
	if !explicit {
		name = DefaultRootOSUser
	}
	u, err := user.Lookup(name)
	if err != nil {
		var unknown user.UnknownUserError
		if errors.As(err, &unknown) {
			if explicit {
				return OSUser{}, fmt.Errorf("--os-user %s: no such OS user", name)
			}
			return OSUser{}, fmt.Errorf("running as root: PostgreSQL refuses to run as root and there is no OS user %q to run it as; "+
				"create one (useradd --system --user-group --create-home postgres) or pass --os-user NAME", name)
		}
		return OSUser{}, fmt.Errorf("look up OS user %s: %w", name, err)
	}
	if u.Uid == "0" {
		return OSUser{}, fmt.Errorf("--os-user %s is root: PostgreSQL refuses to run as root; name an unprivileged user", name)
	}
	return fromUser(u, true)
}

func fromUser(u *user.User, switchTo bool) (OSUser, error) {
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return OSUser{}, fmt.Errorf("OS user %s: uid %q: %w", u.Username, u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return OSUser{}, fmt.Errorf("OS user %s: gid %q: %w", u.Username, u.Gid, err)
	}
	o := OSUser{Name: u.Username, UID: uint32(uid), GID: uint32(gid), Home: u.HomeDir, Switch: switchTo}
	if ids, err := u.GroupIds(); err == nil {
		for _, s := range ids {
			if g, err := strconv.ParseUint(s, 10, 32); err == nil {
				o.Groups = append(o.Groups, uint32(g))
			}
		}
	}
	return o, nil
}

// SysProcAttr returns the process attributes that make a child run as the user (a
// Credential when the current process is root), or nil when no switch is needed.
func (u OSUser) SysProcAttr() *syscall.SysProcAttr {
	if !u.Switch {
		return nil
	}
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: u.UID, Gid: u.GID, Groups: u.Groups}}
}

// chown gives path to the user when the process is root (a no-op otherwise).
func (u OSUser) chown(path string) error {
	if !u.Switch {
		return nil
	}
	if err := os.Lchown(path, int(u.UID), int(u.GID)); err != nil {
		return fmt.Errorf("chown %s to %s: %w", path, u.Name, err)
	}
	return nil
}

// CanTraverse returns nil when the user may search (x permission) every existing
// directory from / down to path, i.e. could reach files below path. Directories that do
// not exist yet are ignored: pgtrial creates them world-searchable (0755). The error
// names the first directory that blocks the user.
func (u OSUser) CanTraverse(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if u.UID == 0 {
		return nil
	}
	var chain []string
	for p := abs; ; p = filepath.Dir(p) {
		chain = append(chain, p)
		if p == filepath.Dir(p) {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		fi, err := os.Stat(chain[i])
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			continue
		}
		if !u.mayExec(st) {
			return fmt.Errorf("OS user %s cannot traverse %s (owner uid %d, mode %04o)", u.Name, chain[i], st.Uid, fi.Mode().Perm())
		}
	}
	return nil
}

// mayExec applies the Unix permission rule for the search (x) bit: owner bits when the
// user owns the file, else group bits when one of its groups matches, else other bits.
func (u OSUser) mayExec(st *syscall.Stat_t) bool {
	mode := st.Mode
	if st.Uid == u.UID {
		return mode&0o100 != 0
	}
	if st.Gid == u.GID {
		return mode&0o010 != 0
	}
	for _, g := range u.Groups {
		if st.Gid == g {
			return mode&0o010 != 0
		}
	}
	return mode&0o001 != 0
}
