package results

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// restore.json round-trips, is private (0600), is refused when it comes from
// a newer pgtrial, and removing it twice is not an error.
func TestRestoreFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadRestore(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no file: %v, want fs.ErrNotExist", err)
	}
	st := &RestoreState{
		Dir: dir, WrittenAt: time.Date(2026, 12, 1, 19, 0, 0, 0, time.UTC), Variant: "b",
		Target:   RestoreTarget{ConnString: "postgres://bench@127.0.0.1:5432/bench"},
		Settings: []RestoreSetting{{Name: "work_mem", Context: "user", Known: true}, {Name: "random_page_cost", Context: "user", Before: "3.25", Present: true, Known: true}},
		Marker:   true, Teardown: []string{"DROP TABLE t"},
	}
	if err := WriteRestore(dir, st); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, RestoreFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("restore.json: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	got, err := ReadRestore(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := *st
	want.Schema = RestoreSchema
	if !reflect.DeepEqual(got, &want) {
		t.Errorf("read back %+v, want %+v", got, &want)
	}
	newer := want
	newer.Schema = RestoreSchema + 1
	if err := writeJSONAtomic(dir, RestoreFile, nil, &newer); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRestore(dir); err == nil {
		t.Error("a restore.json of a newer schema was accepted")
	}
	for range 2 {
		if err := RemoveRestore(dir); err != nil {
			t.Errorf("remove: %v", err)
		}
	}
}
