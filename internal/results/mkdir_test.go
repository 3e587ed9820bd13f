package results

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every file of a run directory is FileMode and the directories made for it
// DirMode, from Create to Finish (issue 14: statements.csv was 0644).
func TestRunDirectoryModes(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "runs", "r1")
	d, err := Create(dir, testRun())
	if err != nil {
		t.Fatal(err)
	}
	w, err := CreateStatements(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := WriteExperiment(dir, minimalExperiment("x"), nil); err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(testRun()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(base, "runs"), dir} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != DirMode {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, DirMode)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != FileMode {
			t.Errorf("%s: mode %v, want %v", e.Name(), fi.Mode().Perm(), FileMode)
		}
	}
	for _, n := range []string{RunFile, LatencyFile, TimelineFile, EventsFile, StatementsFile, ExperimentFile} {
		if !names[n] {
			t.Errorf("%s not written (files: %v)", n, names)
		}
	}
}

// A run directory that is a symbolic link is refused with a message naming
// the link, where it points and what to do, and nothing is written where it
// points (issue 14, defect 7: the link was followed).
func TestCreateRefusesSymlink(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(base, "dangling")
	if err := os.Symlink(filepath.Join(base, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{link, link + "/", dangling} {
		_, err := Create(dir, testRun())
		if err == nil {
			t.Fatalf("Create(%s) through a symbolic link succeeded", dir)
		}
		for _, want := range []string{"run directory " + dir, "symbolic link", "give the real directory"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Create(%s): %v; want it to say %q", dir, err, want)
			}
		}
	}
	if _, err := Create(link, testRun()); err == nil || !strings.Contains(err.Error(), real) {
		t.Errorf("the message does not name the real directory %s: %v", real, err)
	}
	if entries, _ := os.ReadDir(real); len(entries) > 0 {
		t.Errorf("files written through the link: %v", entries)
	}
	if _, err := os.Lstat(filepath.Join(base, "nowhere")); err == nil {
		t.Error("the dangling link's target was created")
	}
	// The experiment's directories follow the same rule.
	if err := MakeDirs("experiment directory", link, filepath.Join(link, "runs")); err == nil || !strings.Contains(err.Error(), "experiment directory "+link+" is a symbolic link") {
		t.Errorf("MakeDirs(experiment through a link): %v", err)
	}
	// A regular file is not a directory.
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(file, testRun()); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Create(a file): %v", err)
	}
}

// A parent that exists is the user's choice of place and is followed; the
// run directory made under it is a real one.
func TestCreateFollowsExistingParentLink(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	d, err := Create(filepath.Join(base, "link", "r1"), testRun())
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	fi, err := os.Lstat(filepath.Join(real, "r1"))
	if err != nil || !fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0 {
		t.Errorf("run directory under the parent's target: %v, %v", fi, err)
	}
}

// A parent made for the run directory that is a symbolic link (made by
// someone else between MakeDirs' look and its mkdir) is refused.
func TestCheckDirRefusesParentLink(t *testing.T) {
	base := t.TempDir()
	link := filepath.Join(base, "p")
	if err := os.Symlink(base, link); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	err = checkDir("run directory", filepath.Join(link, "r1"), link, fi)
	if err == nil || !strings.Contains(err.Error(), "its parent "+link+" is a symbolic link") {
		t.Errorf("checkDir(parent link): %v", err)
	}
}
