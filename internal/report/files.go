package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pgtrial/pgtrial/internal/report/svg"
)

// Report file names, in the directory the report is of.
const (
	HTMLFile     = "report.html"
	MarkdownFile = "report.md"
	ChartsDir    = "charts"
)

// Written is what WriteFiles wrote.
type Written struct {
	HTML     string // path of report.html
	Markdown string // path of report.md
	Charts   int    // SVG files in charts/
}

// WriteFiles writes d into dir as report.html and report.md with the SVG
// file of every chart in charts/ (ChartPath). Files are 0600 and the charts
// directory 0700, as the run directory's own; a file is written whole to a
// temporary name and renamed, so a report is never half there.
func WriteFiles(dir string, d *Doc) (Written, error) {
	var out Written
	charts := filepath.Join(dir, ChartsDir)
	var n int
	for _, b := range d.Blocks {
		f, ok := b.(*Figure)
		if !ok {
			continue
		}
		for _, c := range f.Charts {
			if n == 0 {
				if err := os.MkdirAll(charts, 0o700); err != nil {
					return out, fmt.Errorf("report: %w", err)
				}
			}
			var buf bytes.Buffer
			if err := svg.Render(&buf, c); err != nil {
				return out, fmt.Errorf("report: chart %s: %w", c.ID, err)
			}
			if err := writeAtomic(filepath.Join(dir, ChartPath(c)), buf.Bytes()); err != nil {
				return out, err
			}
			n++
		}
	}
	out.Charts = n
	var md bytes.Buffer
	if err := WriteMarkdown(&md, d); err != nil {
		return out, fmt.Errorf("report: %w", err)
	}
	out.Markdown = filepath.Join(dir, MarkdownFile)
	if err := writeAtomic(out.Markdown, md.Bytes()); err != nil {
		return out, err
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, d); err != nil {
		return out, fmt.Errorf("report: %w", err)
	}
	out.HTML = filepath.Join(dir, HTMLFile)
	if err := writeAtomic(out.HTML, page.Bytes()); err != nil {
		return out, err
	}
	return out, nil
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
