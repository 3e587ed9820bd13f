package localpg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// EnvPGBin names the environment variable that points at a directory of PostgreSQL
// server binaries (initdb, pg_ctl, postgres).
const EnvPGBin = "PGTRIAL_PG_BIN"

// InstallHint is the command that installs PostgreSQL's server binaries on Debian and
// Ubuntu; it is printed whenever none are found.
const InstallHint = "apt-get update && apt-get install -y postgresql postgresql-contrib"

// DefaultSystemGlob is where Debian and Ubuntu install versioned server binaries.
const DefaultSystemGlob = "/usr/lib/postgresql/*/bin"

// serverPrograms must all be present (and executable) in a candidate directory.
var serverPrograms = []string{"initdb", "pg_ctl", "postgres"}

// FindOptions says where FindBinaries looks. The zero value searches the real system.
type FindOptions struct {
	// BinDir is the --pg-bin flag. When set it must hold the binaries; no other place
	// is tried (an explicit choice is never silently replaced by another version).
	BinDir string
	// Getenv reads PGTRIAL_PG_BIN and PATH; nil means os.Getenv. Tests pass a fake.
	Getenv func(string) string
	// SystemGlob overrides DefaultSystemGlob (tests point it at fake trees; "-" disables it).
	SystemGlob string
}

// Binaries is one directory of PostgreSQL server programs and the version they report.
type Binaries struct {
	Dir     string // absolute directory holding initdb, pg_ctl and postgres (symlinks resolved)
	Source  string // where it was found: "--pg-bin", "PGTRIAL_PG_BIN", "pg_config --bindir", "PATH", or the system glob
	Version string // server version as "postgres --version" prints it, e.g. "15.18"
	Major   int    // major version: 15 for "15.18", 9 for "9.6.24"
}

// Path returns the full path of one program in the binaries' directory.
func (b Binaries) Path(program string) string { return filepath.Join(b.Dir, program) }

// NotFoundError is returned by FindBinaries when no candidate qualifies (or the one
// named by --pg-bin or PGTRIAL_PG_BIN does not). Tried lists every place that was
// looked at, in order, with the reason it did not count.
type NotFoundError struct {
	Tried []string
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	b.WriteString("no PostgreSQL server binaries (initdb, pg_ctl, postgres) found; tried:\n")
	for _, t := range e.Tried {
		b.WriteString("  - ")
		b.WriteString(t)
		b.WriteString("\n")
	}
	b.WriteString("install them (as root): " + InstallHint + "\n")
	b.WriteString("or point --pg-bin or " + EnvPGBin + " at a directory containing initdb, pg_ctl and postgres")
	return b.String()
}

// FindBinaries looks for PostgreSQL server binaries in this order and returns the first
// directory that holds initdb, pg_ctl and postgres:
//
//  1. opts.BinDir (the --pg-bin flag)
//  2. $PGTRIAL_PG_BIN
//  3. the directory printed by "pg_config --bindir" (pg_config found in PATH)
//  4. each directory in $PATH
//  5. /usr/lib/postgresql/*/bin, highest version first (compared numerically: 9.6 < 10 < 15)
//
// An explicitly named directory (1 or 2) that does not qualify is an error of its own:
// pgtrial does not fall back to a different installation the user did not ask for.
// Symlinked programs (e.g. /usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb)
// are followed to their real directory, where the share and lib directories can be found.
func FindBinaries(opts FindOptions) (Binaries, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var tried []string

	explicit := func(source, dir string) (Binaries, error) {
		b, reason := checkCandidate(dir)
		if reason != "" {
			return Binaries{}, &NotFoundError{Tried: []string{fmt.Sprintf("%s=%s: %s (named explicitly, so nothing else was tried)", source, dir, reason)}}
		}
		b.Source = source
		return b, nil
	}
	if opts.BinDir != "" {
		return explicit("--pg-bin", opts.BinDir)
	}
	tried = append(tried, "--pg-bin: not given")
	if dir := getenv(EnvPGBin); dir != "" {
		return explicit(EnvPGBin, dir)
	}
	tried = append(tried, EnvPGBin+": not set")

	pathDirs := filepath.SplitList(getenv("PATH"))

	// pg_config --bindir. On Debian /usr/bin/pg_config is a wrapper that runs the newest
	// /usr/lib/postgresql/N/bin/pg_config, or libpq-dev's, whose bindir (/usr/bin) has
	// no initdb; then we fall through.
	if pgConfig := lookPathIn("pg_config", pathDirs); pgConfig == "" {
		tried = append(tried, "pg_config --bindir: no pg_config in PATH")
	} else if dir, err := pgConfigValue(pgConfig, "--bindir"); err != nil {
		tried = append(tried, fmt.Sprintf("pg_config --bindir (%s): %v", pgConfig, err))
	} else if b, reason := checkCandidate(dir); reason != "" {
		tried = append(tried, fmt.Sprintf("pg_config --bindir (%s) = %s: %s", pgConfig, dir, reason))
	} else {
		b.Source = "pg_config --bindir"
		return b, nil
	}

	found := false
	for _, dir := range pathDirs {
		if dir == "" || !isExecutable(filepath.Join(dir, "initdb")) {
			continue
		}
		found = true
		b, reason := checkCandidate(dir)
		if reason != "" {
			tried = append(tried, fmt.Sprintf("PATH entry %s: %s", dir, reason))
			continue
		}
		b.Source = "PATH"
		return b, nil
	}
	if !found {
		tried = append(tried, "PATH: no directory in PATH has initdb")
	}

	glob := opts.SystemGlob
	if glob == "" {
		glob = DefaultSystemGlob
	}
	if glob != "-" {
		dirs, _ := filepath.Glob(glob) // the only error is a malformed pattern
		if len(dirs) == 0 {
			tried = append(tried, glob+": no matches")
		}
		sortByVersionDesc(dirs)
		for _, dir := range dirs {
			b, reason := checkCandidate(dir)
			if reason != "" {
				tried = append(tried, fmt.Sprintf("%s: %s", dir, reason))
				continue
			}
			b.Source = glob
			return b, nil
		}
	}
	return Binaries{}, &NotFoundError{Tried: tried}
}

// checkCandidate returns the binaries in dir, or a reason why dir does not qualify.
func checkCandidate(dir string) (Binaries, string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Binaries{}, err.Error()
	}
	if fi, err := os.Stat(abs); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Binaries{}, "does not exist"
		}
		return Binaries{}, err.Error()
	} else if !fi.IsDir() {
		return Binaries{}, "not a directory"
	}
	if reason := missingPrograms(abs); reason != "" {
		return Binaries{}, reason
	}
	// Follow a symlinked initdb to its real directory when that one is complete too,
	// so that ../share and ../lib (extensions) are found next to the real programs.
	if real, err := filepath.EvalSymlinks(filepath.Join(abs, "initdb")); err == nil {
		if rdir := filepath.Dir(real); rdir != abs && missingPrograms(rdir) == "" {
			abs = rdir
		}
	}
	version, major, err := serverVersion(filepath.Join(abs, "postgres"))
	if err != nil {
		return Binaries{}, err.Error()
	}
	return Binaries{Dir: abs, Version: version, Major: major}, ""
}

// missingPrograms returns "" when dir has every server program, else which are missing.
func missingPrograms(dir string) string {
	var missing []string
	for _, p := range serverPrograms {
		if !isExecutable(filepath.Join(dir, p)) {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "no " + strings.Join(missing, ", ")
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path) // follows symlinks
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func lookPathIn(program string, dirs []string) string {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if p := filepath.Join(d, program); isExecutable(p) {
			return p
		}
	}
	return ""
}

// pgConfigValue runs "pg_config FLAG" with a short timeout and returns its one line.
func pgConfigValue(pgConfig, flag string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, pgConfig, flag).Output()
	if err != nil {
		return "", fmt.Errorf("run %s %s: %w", pgConfig, flag, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" {
		return "", fmt.Errorf("%s %s printed nothing", pgConfig, flag)
	}
	return v, nil
}

// versionRE matches "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)", "16beta2",
// "9.6.24".
var versionRE = regexp.MustCompile(`\(PostgreSQL\)\s+(\d+)(\.\d+)*\S*`)

// serverVersion runs "postgres --version" (allowed as root) and parses it.
func serverVersion(postgres string) (string, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, postgres, "--version").Output()
	if err != nil {
		return "", 0, fmt.Errorf("%s --version: %w", postgres, err)
	}
	return parseVersion(string(out))
}

func parseVersion(out string) (string, int, error) {
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return "", 0, fmt.Errorf("unrecognised version output %q", strings.TrimSpace(out))
	}
	full := strings.TrimSpace(strings.TrimPrefix(m[0], "(PostgreSQL)"))
	major, _ := strconv.Atoi(m[1])
	return full, major, nil
}

// sortByVersionDesc orders .../<version>/bin paths by the numeric version (highest
// first); non-numeric versions sort last, alphabetically.
func sortByVersionDesc(dirs []string) {
	key := func(d string) []int {
		v := filepath.Base(filepath.Dir(d))
		var nums []int
		for _, part := range strings.Split(v, ".") {
			n, err := strconv.Atoi(part)
			if err != nil {
				return nil
			}
			nums = append(nums, n)
		}
		return nums
	}
	sort.SliceStable(dirs, func(i, j int) bool {
		a, b := key(dirs[i]), key(dirs[j])
		if a == nil || b == nil {
			if (a == nil) != (b == nil) {
				return b == nil
			}
			return dirs[i] < dirs[j]
		}
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] > b[k]
			}
		}
		return len(a) > len(b)
	})
}

// shareAndLibDirs returns the directories where this installation keeps extension
// control files and loadable modules. It asks the pg_config next to the programs (Debian:
// /usr/share/postgresql/15 and /usr/lib/postgresql/15/lib) and otherwise guesses the
// layouts of source builds (<prefix>/share[/postgresql], <prefix>/lib[/postgresql]).
func (b Binaries) shareAndLibDirs() (share, lib []string) {
	if pc := b.Path("pg_config"); isExecutable(pc) {
		if s, err := pgConfigValue(pc, "--sharedir"); err == nil {
			share = append(share, s)
		}
		if l, err := pgConfigValue(pc, "--pkglibdir"); err == nil {
			lib = append(lib, l)
		}
	}
	prefix := filepath.Dir(b.Dir)
	share = append(share, filepath.Join(prefix, "share", "postgresql"), filepath.Join(prefix, "share"))
	lib = append(lib, filepath.Join(prefix, "lib", "postgresql"), filepath.Join(prefix, "lib"))
	return share, lib
}

// HasExtension reports whether the extension's control file and its shared library are
// both installed, so that it can be preloaded and created.
func (b Binaries) HasExtension(name string) bool {
	share, lib := b.shareAndLibDirs()
	control := false
	for _, s := range share {
		if fileExists(filepath.Join(s, "extension", name+".control")) {
			control = true
			break
		}
	}
	if !control {
		return false
	}
	for _, l := range lib {
		if fileExists(filepath.Join(l, name+".so")) {
			return true
		}
	}
	return false
}

// preloadLibraries are the extensions of preloadable installed with these
// binaries (control file and library), in preloadable's order.
func (b Binaries) preloadLibraries() []string {
	var out []string
	for _, name := range preloadable {
		if b.HasExtension(name) {
			out = append(out, name)
		}
	}
	return out
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
