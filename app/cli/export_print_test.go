package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/report/pdf/pdftest"
)

// loupe export writes a stored report as report.pdf or report.xlsx with no
// model and no window; a folder it cannot write is a clear error that
// leaves nothing behind.
func TestExportReportAsPDFAndXLSX(t *testing.T) {
	ws := askWorkspace(t)
	srv := fake.New(t, askTurns()...)
	chat, _ := askJSON(t, "--workspace", ws, "--base-url", srv.OllamaURL(), "--report", filepath.Join(t.TempDir(), "first"), "Which region sells most?")
	srv.Close() // no model from here on

	dir := t.TempDir()
	code, out, errs := run(t, "", "export", "--workspace", ws, "--chat", chat, "--format", "pdf", "--out", dir)
	if code != ExitOK || strings.TrimSpace(out) != filepath.Join(dir, "report.pdf") {
		t.Fatalf("export pdf: %d %q %s", code, out, errs)
	}
	pages := pdftest.Pages(t, filepath.Join(dir, "report.pdf"))
	if all := strings.Join(pages, ""); len(pages) < 2 || !strings.Contains(all, "north") || !strings.Contains(all, "Appendix: queries") {
		t.Errorf("%d pages:\n%s", len(pages), all)
	}
	code, out, errs = run(t, "", "export", "--workspace", ws, "--chat", chat, "--format", "xlsx", "--out", dir)
	if code != ExitOK || strings.TrimSpace(out) != filepath.Join(dir, "report.xlsx") {
		t.Fatalf("export xlsx: %d %q %s", code, out, errs)
	}
	f, err := excelize.OpenFile(filepath.Join(dir, "report.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if sheets := f.GetSheetList(); len(sheets) < 2 || sheets[0] != "Report" {
		t.Errorf("sheets %q", sheets)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the folder holds %d entries, want the two files", len(entries))
	}

	blocked := filepath.Join(dir, "report.pdf", "sub") // under a file: cannot be made
	code, _, errs = run(t, "", "export", "--workspace", ws, "--chat", chat, "--format", "pdf", "--out", blocked)
	if code != ExitError || !strings.Contains(errs, "cannot write the PDF") || !strings.Contains(errs, blocked) {
		t.Errorf("export into %s: %d %s", blocked, code, errs)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("a failed export left %d entries", len(entries))
	}
}
