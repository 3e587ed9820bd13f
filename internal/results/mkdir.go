package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Modes of what a run or an experiment writes. A run directory holds what
// the server said about the run's role and database (statement texts,
// table names, settings) and, with --txlog, every transaction: only its
// owner reads it. Files are 0600 (run.json always was: it is written
// through os.CreateTemp); directories are 0700, so that a file written by
// anything else into a run directory is private too, and a directory made
// in a shared place (/tmp, sticky) cannot be entered, filled or swapped by
// another user between its creation and its files'. Share a run directory
// with chmod.
const (
	FileMode fs.FileMode = 0o600
	DirMode  fs.FileMode = 0o700
)

// MakeDirs makes each of dirs in order (with its missing parents, DirMode),
// what naming them in errors ("run directory", "experiment directory"). A
// directory of dirs that is a symbolic link is refused, and so is a parent
// MakeDirs creates that turns out to be one (made by someone else in
// between): pgtrial never writes a run through a symbolic link, where its
// files would land somewhere the user did not name. Existing parents are
// the user's choice of place and are followed (/var/run → /run; in a
// sticky world-writable directory the kernel's fs.protected_symlinks
// guards them). An existing directory keeps its mode.
func MakeDirs(what string, dirs ...string) error {
	for _, dir := range dirs {
		if err := makeDir(what, dir); err != nil {
			return err
		}
	}
	return nil
}

func makeDir(what, dir string) error {
	clean := filepath.Clean(dir)
	// The missing components, deepest first.
	var missing []string
	for p := clean; ; {
		fi, err := os.Lstat(p)
		if err == nil {
			if p == clean {
				return checkDir(what, dir, clean, fi)
			}
			break // an existing parent: followed
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("create %s %s: %w", what, dir, err)
		}
		missing = append(missing, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	for i := len(missing) - 1; i >= 0; i-- {
		p := missing[i]
		err := os.Mkdir(p, DirMode)
		if err == nil {
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s %s: %w", what, dir, err)
		}
		// Made by someone else since the Lstat: it must be a real directory.
		fi, lerr := os.Lstat(p)
		if lerr != nil {
			return fmt.Errorf("create %s %s: %w", what, dir, lerr)
		}
		if err := checkDir(what, dir, p, fi); err != nil {
			return err
		}
	}
	return nil
}

// checkDir refuses p (dir or one of the parents made for it) when fi says
// it is a symbolic link or not a directory.
func checkDir(what, dir, p string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		to, err := os.Readlink(p)
		if err != nil {
			to = "?"
		}
		where := what + " " + dir
		if p != filepath.Clean(dir) {
			where = fmt.Sprintf("%s %s: its parent %s", what, dir, p)
		}
		return fmt.Errorf("%s is a symbolic link (to %s): pgtrial does not write through a symbolic link, its files would land elsewhere; give the real directory (%s) or a new path", where, to, realPath(p))
	}
	if !fi.IsDir() {
		return fmt.Errorf("create %s %s: %s is not a directory; choose another path", what, dir, p)
	}
	return nil
}

// realPath is p with its symbolic links resolved, or p.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		if abs, err := filepath.Abs(r); err == nil {
			return abs
		}
		return r
	}
	return p
}
