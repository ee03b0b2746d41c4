// Package pdftest reads PDFs back in tests with poppler's command-line
// tools (Debian's poppler-utils, installed by scripts/deps.sh --test):
// their text page by page, their page count, and their pages drawn as
// PNG images — what a reader's viewer would show.
package pdftest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// need fails the test when a poppler tool is missing, saying what to do.
func need(t testing.TB, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Fatalf("%s is needed to read the PDF back: apt-get install poppler-utils (or scripts/deps.sh --test)", tool)
	}
	return p
}

// Pages returns the text of each page of the PDF at path (pdftotext
// -layout), in order.
func Pages(t testing.TB, path string) []string {
	t.Helper()
	out, err := exec.Command(need(t, "pdftotext"), "-layout", "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", path, err)
	}
	pages := strings.Split(string(out), "\f")
	if n := len(pages); n > 0 && strings.TrimSpace(pages[n-1]) == "" {
		pages = pages[:n-1]
	}
	return pages
}

// Raw returns the PDF's text in content-stream order (pdftotext -raw):
// a rotated label comes out whole, if one letter a line.
func Raw(t testing.TB, path string) string {
	t.Helper()
	out, err := exec.Command(need(t, "pdftotext"), "-raw", "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", path, err)
	}
	return string(out)
}

// Render draws every page of the PDF at path at dpi into dir as
// page-N.png and returns the files, in page order. pdftoppm fails on a
// PDF it cannot draw.
func Render(t testing.TB, path, dir string, dpi int) []string {
	t.Helper()
	prefix := filepath.Join(dir, "page")
	if os.Getenv("LOUPE_PDF_PAGES") != "" { // kept to be looked at: the document too
		if b, err := os.ReadFile(path); err == nil {
			_ = os.WriteFile(filepath.Join(dir, filepath.Base(path)), b, 0o644)
		}
	}
	if out, err := exec.Command(need(t, "pdftoppm"), "-r", strconv.Itoa(dpi), "-png", path, prefix).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm %s: %v\n%s", path, err, out)
	}
	files, err := filepath.Glob(prefix + "-*.png")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() < 1000 {
			t.Errorf("page image %s: %v (%d bytes)", f, err, st.Size())
		}
	}
	return files // pdftoppm pads page numbers to the same width, so the glob's order is the pages'
}

// Keep returns the folder to draw pages into: $LOUPE_PDF_PAGES when set
// (to look at them after the test), else a temporary one.
func Keep(t testing.TB, name string) string {
	if d := os.Getenv("LOUPE_PDF_PAGES"); d != "" {
		dir := filepath.Join(d, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}
