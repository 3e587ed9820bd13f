package localpg

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeBin creates dir with stub executables; "postgres" prints a version line.
func fakeBin(t *testing.T, dir, version string, programs ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range programs {
		script := "#!/bin/sh\nexit 0\n"
		if p == "postgres" {
			script = "#!/bin/sh\necho 'postgres (PostgreSQL) " + version + "'\n"
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var allPrograms = []string{"initdb", "pg_ctl", "postgres"}

// fakePGConfig makes a directory with a pg_config that prints bindir.
func fakePGConfig(t *testing.T, dir, bindir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\n[ \"$1\" = --bindir ] && echo '" + bindir + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "pg_config"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestFindBinariesOrder(t *testing.T) {
	root := t.TempDir()
	flagDir := fakeBin(t, filepath.Join(root, "flag"), "17.1", allPrograms...)
	envDir := fakeBin(t, filepath.Join(root, "env"), "16.2", allPrograms...)
	cfgBin := fakeBin(t, filepath.Join(root, "cfgbin"), "14.9", allPrograms...)
	cfgDir := fakePGConfig(t, filepath.Join(root, "cfg"), cfgBin)
	badCfgDir := fakePGConfig(t, filepath.Join(root, "badcfg"), filepath.Join(root, "usrbin-without-initdb"))
	partial := fakeBin(t, filepath.Join(root, "partial"), "", "initdb", "pg_ctl") // no postgres
	pathDir := fakeBin(t, filepath.Join(root, "path"), "13.1", allPrograms...)
	sys := filepath.Join(root, "sys")
	fakeBin(t, filepath.Join(sys, "9.6", "bin"), "9.6.24", allPrograms...)
	fakeBin(t, filepath.Join(sys, "10", "bin"), "10.23", allPrograms...)
	fakeBin(t, filepath.Join(sys, "15", "bin"), "15.18", allPrograms...)
	glob := filepath.Join(sys, "*", "bin")

	tests := []struct {
		name       string
		flag       string
		env        map[string]string
		glob       string
		wantDir    string
		wantSource string
		wantMajor  int
	}{
		{"flag beats everything", flagDir,
			map[string]string{EnvPGBin: envDir, "PATH": cfgDir + ":" + pathDir}, glob, flagDir, "--pg-bin", 17},
		{"env beats pg_config", "",
			map[string]string{EnvPGBin: envDir, "PATH": cfgDir + ":" + pathDir}, glob, envDir, EnvPGBin, 16},
		{"pg_config beats PATH", "",
			map[string]string{"PATH": cfgDir + ":" + pathDir}, glob, cfgBin, "pg_config --bindir", 14},
		{"pg_config without initdb falls through to PATH", "",
			map[string]string{"PATH": badCfgDir + ":" + partial + ":" + pathDir}, glob, pathDir, "PATH", 13},
		{"system glob: highest version numerically", "",
			map[string]string{"PATH": partial}, glob, filepath.Join(sys, "15", "bin"), glob, 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := FindBinaries(FindOptions{BinDir: tt.flag, Getenv: env(tt.env), SystemGlob: tt.glob})
			if err != nil {
				t.Fatal(err)
			}
			if b.Dir != tt.wantDir || b.Source != tt.wantSource || b.Major != tt.wantMajor {
				t.Errorf("got dir %s source %q major %d, want %s %q %d", b.Dir, b.Source, b.Major, tt.wantDir, tt.wantSource, tt.wantMajor)
			}
		})
	}

	t.Run("incomplete highest version is skipped", func(t *testing.T) {
		sys2 := filepath.Join(root, "sys2")
		fakeBin(t, filepath.Join(sys2, "16", "bin"), "16.1", "initdb", "pg_ctl")
		fakeBin(t, filepath.Join(sys2, "12", "bin"), "12.1", allPrograms...)
		b, err := FindBinaries(FindOptions{Getenv: env(nil), SystemGlob: filepath.Join(sys2, "*", "bin")})
		if err != nil {
			t.Fatal(err)
		}
		if b.Major != 12 {
			t.Errorf("got %s (%d), want the complete 12", b.Dir, b.Major)
		}
	})
}

func TestFindBinariesFollowsSymlinks(t *testing.T) {
	root := t.TempDir()
	real := fakeBin(t, filepath.Join(root, "lib", "15", "bin"), "15.18", allPrograms...)
	links := filepath.Join(root, "usrlocalbin")
	if err := os.MkdirAll(links, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range allPrograms {
		if err := os.Symlink(filepath.Join(real, p), filepath.Join(links, p)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := FindBinaries(FindOptions{Getenv: env(map[string]string{"PATH": links}), SystemGlob: "-"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Dir != real || b.Source != "PATH" {
		t.Errorf("got %s from %s, want %s from PATH", b.Dir, b.Source, real)
	}
}

func TestFindBinariesNotFound(t *testing.T) {
	root := t.TempDir()
	partial := fakeBin(t, filepath.Join(root, "partial"), "", "initdb")
	_, err := FindBinaries(FindOptions{
		Getenv:     env(map[string]string{"PATH": partial}),
		SystemGlob: filepath.Join(root, "none", "*", "bin"),
	})
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("err = %v, want *NotFoundError", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"--pg-bin: not given",
		EnvPGBin + ": not set",
		"pg_config --bindir: no pg_config in PATH",
		"PATH entry " + partial + ": no pg_ctl, postgres",
		filepath.Join(root, "none", "*", "bin") + ": no matches",
		"apt-get update && apt-get install -y postgresql postgresql-contrib",
		"as root",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

func TestFindBinariesExplicitMustBeComplete(t *testing.T) {
	root := t.TempDir()
	good := fakeBin(t, filepath.Join(root, "good"), "15.1", allPrograms...)
	partial := fakeBin(t, filepath.Join(root, "partial"), "", "initdb", "postgres")
	for _, tt := range []struct {
		name, flag string
		env        map[string]string
		want       string
	}{
		{"flag missing program", partial, map[string]string{"PATH": good}, "--pg-bin=" + partial + ": no pg_ctl"},
		{"flag nonexistent", filepath.Join(root, "nope"), map[string]string{"PATH": good}, "does not exist"},
		{"env missing program", "", map[string]string{EnvPGBin: partial, "PATH": good}, EnvPGBin + "=" + partial + ": no pg_ctl"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FindBinaries(FindOptions{BinDir: tt.flag, Getenv: env(tt.env), SystemGlob: "-"})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), InstallHint) {
				t.Errorf("err = %v, want it to contain %q and the install hint", err, tt.want)
			}
		})
	}
}

func TestSortByVersionDesc(t *testing.T) {
	dirs := []string{"/x/9.6/bin", "/x/15/bin", "/x/devel/bin", "/x/10/bin", "/x/9.5/bin", "/x/16/bin"}
	sortByVersionDesc(dirs)
	want := []string{"/x/16/bin", "/x/15/bin", "/x/10/bin", "/x/9.6/bin", "/x/9.5/bin", "/x/devel/bin"}
	if !reflect.DeepEqual(dirs, want) {
		t.Errorf("got %v, want %v", dirs, want)
	}
}

func TestParseVersion(t *testing.T) {
	for _, tt := range []struct {
		in    string
		full  string
		major int
	}{
		{"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n", "15.18", 15},
		{"postgres (PostgreSQL) 9.6.24\n", "9.6.24", 9},
		{"postgres (PostgreSQL) 17beta2\n", "17beta2", 17},
	} {
		full, major, err := parseVersion(tt.in)
		if err != nil || full != tt.full || major != tt.major {
			t.Errorf("parseVersion(%q) = %q, %d, %v; want %q, %d", tt.in, full, major, err, tt.full, tt.major)
		}
	}
	if _, _, err := parseVersion("something else"); err == nil {
		t.Error("parseVersion accepted garbage")
	}
}

// A source build's layout (<prefix>/bin, <prefix>/share/postgresql/extension,
// <prefix>/lib/postgresql) without pg_config: an extension is preloaded only
// when both its control file and its library are there.
func TestPreloadLibraries(t *testing.T) {
	prefix := t.TempDir()
	bin := fakeBin(t, filepath.Join(prefix, "bin"), "17.2", allPrograms...)
	b := Binaries{Dir: bin, Major: 17}
	if got := b.preloadLibraries(); len(got) != 0 {
		t.Fatalf("nothing installed: preload %v", got)
	}
	touch := func(parts ...string) {
		t.Helper()
		p := filepath.Join(append([]string{prefix}, parts...)...)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	touch("share", "postgresql", "extension", "pg_wait_sampling.control")
	if got := b.preloadLibraries(); len(got) != 0 {
		t.Errorf("control file without library: preload %v", got)
	}
	touch("lib", "postgresql", "pg_wait_sampling.so")
	touch("share", "postgresql", "extension", "pg_stat_statements.control")
	touch("lib", "postgresql", "pg_stat_statements.so")
	if got, want := b.preloadLibraries(), []string{"pg_stat_statements", "pg_wait_sampling"}; !reflect.DeepEqual(got, want) {
		t.Errorf("preload %v, want %v", got, want)
	}
	var line string
	for _, s := range defaultSettings(1<<30, 17, b.preloadLibraries()) {
		if s.name == "shared_preload_libraries" {
			line = s.value
		}
	}
	if line != "pg_stat_statements, pg_wait_sampling" {
		t.Errorf("shared_preload_libraries = %q", line)
	}
}
