package k8s

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/pgtrial/pgtrial/internal/results"
)

// Extract writes the segment's run directory into dir, which must not
// exist yet (it is made as results.MakeDirs makes run directories). Only
// regular files and directories are taken from the tar, with names local
// to dir: an absolute name, a "..", a symbolic or hard link or a device is
// refused, and every file is opened inside dir through os.Root, which
// refuses a path that leaves it. Files are results.FileMode, directories
// results.DirMode. The sizes are bounded by MaxExtracted and MaxEntries.
func Extract(seg Segment, dir string) error {
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("extract segment %d into %s: it exists already; give a new output directory", seg.Index, dir)
	}
	if err := results.MakeDirs("segment directory", dir); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	fail := func(err error) error {
		return fmt.Errorf("extract segment %d/%d (from %s) into %s: %w", seg.Index, seg.Count, seg.Source, dir, err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(seg.Payload))
	if err != nil {
		return fail(err)
	}
	tr := tar.NewReader(gz)
	var total int64
	for n := 0; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		if n >= MaxEntries {
			return fail(fmt.Errorf("more than %d entries", MaxEntries))
		}
		name, err := localName(h.Name)
		if err != nil {
			return fail(err)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := mkdirAll(root, name); err != nil {
				return fail(err)
			}
		case tar.TypeReg:
			total += h.Size
			if h.Size < 0 || total > MaxExtracted {
				return fail(fmt.Errorf("the files are larger than %d bytes", int64(MaxExtracted)))
			}
			if d := path.Dir(name); d != "." {
				if err := mkdirAll(root, d); err != nil {
					return fail(err)
				}
			}
			f, err := root.OpenFile(filepath.FromSlash(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, results.FileMode)
			if err != nil {
				return fail(err)
			}
			_, err = io.CopyN(f, tr, h.Size)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fail(fmt.Errorf("%s: %w", name, err))
			}
		default:
			return fail(fmt.Errorf("%s is not a regular file or a directory (tar type %q): a run directory has only those", h.Name, h.Typeflag))
		}
	}
	return nil
}

// localName is a tar name as a slash-separated path inside the directory,
// or an error when it is absolute or leaves it.
func localName(name string) (string, error) {
	clean := strings.TrimSuffix(name, "/")
	if clean == "" || strings.Contains(clean, `\`) || !filepath.IsLocal(filepath.FromSlash(clean)) || path.Clean(clean) != clean {
		return "", fmt.Errorf("the name %q is not a plain path inside the run directory (absolute, \"..\" or unclean): refused", name)
	}
	return clean, nil
}

// mkdirAll makes the directories of the local path name inside root.
func mkdirAll(root *os.Root, name string) error {
	p := ""
	for _, part := range strings.Split(name, "/") {
		p = path.Join(p, part)
		err := root.Mkdir(filepath.FromSlash(p), results.DirMode)
		if err == nil || errors.Is(err, os.ErrExist) {
			fi, lerr := root.Lstat(filepath.FromSlash(p))
			if lerr != nil {
				return lerr
			}
			if !fi.IsDir() {
				return fmt.Errorf("%s is not a directory", p)
			}
			continue
		}
		return err
	}
	return nil
}
