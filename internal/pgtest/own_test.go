package pgtest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOwnCluster: a cluster of the test's own has the settings asked for,
// the files written before its start (0600, the server's OS user's), and
// is gone after the test.
func TestOwnCluster(t *testing.T) {
	var dir string
	t.Run("own", func(t *testing.T) {
		c := OwnCluster(t, Own{Settings: map[string]string{"work_mem": "3MB"}, Files: map[string][]byte{"note.txt": []byte("hi")}})
		dir = c.Dir()
		var wm string
		QueryRow(t, c.URL(""), "SELECT current_setting('work_mem')", nil, &wm)
		if wm != "3MB" {
			t.Errorf("work_mem = %s", wm)
		}
		fi, err := os.Stat(filepath.Join(c.DataDir(), "note.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 || fi.Sys().(*syscall.Stat_t).Uid != c.OSUser().UID {
			t.Errorf("note.txt: mode %v, uid %d; want 0600, %d", fi.Mode(), fi.Sys().(*syscall.Stat_t).Uid, c.OSUser().UID)
		}
	})
	if dir == "" {
		return // skipped
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there after the test: %v", dir, err)
	}
}
