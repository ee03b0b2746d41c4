package session

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/buildinfo"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/store"
)

// The store is the one home of a written report: it is saved with the
// answer it was written from (its source, report.Report as JSON, beside
// its markdown), read back from there to be shown or exported again, and
// every export is recorded with it. Nothing here keeps a report in memory.

// StoredReport is a report read back from the store with its id there.
type StoredReport struct {
	ID     string
	Report *report.Report
	// MessageID is the answer it is kept with (empty for a report just
	// written and not yet read back).
	MessageID string
}

// ReportRequest is what writing a report needs: the answer it is written
// from (its message, question and outcome), the model, the privacy level
// in force and where its text streams.
type ReportRequest struct {
	Store     *store.Store
	MessageID string // the answer the report is written from
	Question  string
	Outcome   *agent.Outcome
	Provider  llm.Provider
	Model     string
	Level     privacy.Level
	// Stream receives the text as the model writes it and is told of a
	// restarted stream (report.Options); the zero value streams nowhere.
	// Its Version is set here, to buildinfo's.
	Stream report.Options
}

// WriteReport writes the report of a finished answer (one model call
// without tools) and saves it in the store with the answer. The report is
// returned even when saving it failed (with the error), so that what the
// user waited for is not lost. ctx bounds the model call and the save.
func WriteReport(ctx context.Context, r ReportRequest) (*StoredReport, error) {
	if r.Outcome == nil || r.Outcome.Status != agent.Done {
		return nil, NewError(CodeInvalid, "Only a finished answer can become a report.", "Ask again, then write the report.")
	}
	opts := r.Stream
	opts.Version = buildinfo.Version()
	rep, err := report.WriteWith(ctx, r.Provider, r.Model, assemble.ExplorationAt(r.Question, r.Outcome, r.Level), opts)
	if err != nil {
		return nil, fmt.Errorf("write the report: %w", err)
	}
	id, err := SaveReport(ctx, r.Store, r.MessageID, rep)
	return &StoredReport{ID: id, Report: rep}, err
}

// SaveReport stores rep as written from the answer messageID and returns
// its id in the store.
func SaveReport(ctx context.Context, st *store.Store, messageID string, rep *report.Report) (string, error) {
	src, err := json.Marshal(rep)
	if err != nil {
		return "", fmt.Errorf("encode the report: %w", err)
	}
	r, err := st.SaveReport(ctx, messageID, rep.Title, rep.Markdown(), src)
	if err != nil {
		return "", fmt.Errorf("save the report of %s: %w", messageID, err)
	}
	return r.ID, nil
}

// LatestReport is the newest report of the conversation chatID, or nil
// when it has none. An unknown conversation is store.ErrNotFound.
func LatestReport(ctx context.Context, st *store.Store, chatID string) (*StoredReport, error) {
	if _, err := st.Conversation(ctx, chatID); err != nil {
		return nil, err
	}
	reps, err := st.Reports(ctx, chatID)
	if err != nil || len(reps) == 0 {
		return nil, err
	}
	return DecodeReport(reps[0])
}

// ReportOfRun is the newest report written from the answer of runID, or
// nil when none was. An unknown run is store.ErrNotFound.
func ReportOfRun(ctx context.Context, st *store.Store, runID string) (*StoredReport, error) {
	m, err := st.MessageByRun(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("find the answer of run %s: %w", runID, err)
	}
	reps, err := st.Reports(ctx, m.ConversationID)
	if err != nil {
		return nil, err
	}
	for _, r := range reps { // newest first
		if r.MessageID == m.ID {
			return DecodeReport(r)
		}
	}
	return nil, nil
}

// DecodeReport reads a report back from its stored source.
func DecodeReport(r store.Report) (*StoredReport, error) {
	var rep report.Report
	if err := json.Unmarshal(r.Source, &rep); err != nil {
		return nil, fmt.Errorf("the stored report %s cannot be read: %w", r.ID, err)
	}
	return &StoredReport{ID: r.ID, Report: &rep, MessageID: r.MessageID}, nil
}

// Export formats: a folder (report.md, its charts and report.html), the
// self-contained page alone, printable pages (PDF) or a workbook
// (ExportXLSX: the report's text and one sheet per table).
const (
	ExportFolder = "md"
	ExportHTML   = "html"
	ExportPDF    = "pdf"
)

// Export writes s in format (ExportFolder, ExportHTML, ExportPDF or
// ExportXLSX) at path and records the export in the store. For
// ExportFolder path is the folder to create (or an empty one of Loupe's)
// and every file written is returned; for the others path is the one
// file, written whole or not at all (a failure leaves whatever was at
// path as it was, and no temporary file), and only Files.HTML, .PDF or
// .XLSX is set. When the files were written but the export not
// recorded, both the files and the error are returned.
func Export(ctx context.Context, st *store.Store, s *StoredReport, format, path string) (report.Files, error) {
	var files report.Files
	switch format {
	case ExportFolder:
		f, err := report.Export(ctx, s.Report, path)
		if err != nil {
			return files, fmt.Errorf("export the report to %s: %w", path, err)
		}
		files, path = f, f.Dir
	case ExportHTML:
		if err := exportPage(ctx, s.Report, path); err != nil {
			return files, err
		}
		files.HTML = path
	case ExportPDF:
		if err := writeReportFile(ctx, path, "PDF", func(w io.Writer) error { return report.WritePDF(ctx, s.Report, w) }); err != nil {
			return files, err
		}
		files.PDF = path
	case ExportXLSX:
		if err := writeReportFile(ctx, path, "workbook", func(w io.Writer) error { return writeReportXLSX(s.Report, w) }); err != nil {
			return files, err
		}
		files.XLSX = path
	default:
		return files, NewError(CodeInvalid, fmt.Sprintf("Unknown export format %q.", format), `Use "md" (a folder), "html", "pdf" or "xlsx".`)
	}
	if err := st.RecordExport(ctx, s.ID, format, path); err != nil {
		return files, fmt.Errorf("record the export of %s: %w", s.ID, err)
	}
	return files, nil
}

// writeReportFile writes one file of a report export atomically; what
// is the file's kind, in words, for the error.
func writeReportFile(ctx context.Context, path, what string, write func(w io.Writer) error) error {
	err := WriteFileAtomic(path, 0o644, func(w *bufio.Writer) error { return write(w) })
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return FileError(path, "cannot write the "+what, err)
}

// writeReportXLSX writes the report's sheets (report.Sheets) as a workbook.
func writeReportXLSX(rep *report.Report, w io.Writer) error {
	sheets := rep.Sheets()
	out := make([]results.XLSXSheet, len(sheets))
	for i, sh := range sheets {
		cols := make([]query.Column, len(sh.Columns))
		for j, c := range sh.Columns {
			cols[j] = query.Column{Name: c.Name, Type: c.Type}
		}
		out[i] = results.XLSXSheet{Name: sh.Name, Columns: cols, Rows: sh.Rows}
	}
	return results.WriteXLSXSheets(w, out)
}

// exportPage exports into a temporary folder beside path and moves the
// page into place.
func exportPage(ctx context.Context, rep *report.Report, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return FileError(path, "cannot create the folder", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".loupe-export-")
	if err != nil {
		return FileError(path, "cannot write beside the file", err)
	}
	defer os.RemoveAll(tmp)
	files, err := report.Export(ctx, rep, filepath.Join(tmp, "report"))
	if err != nil {
		return fmt.Errorf("export the report: %w", err)
	}
	if err := os.Rename(files.HTML, path); err != nil {
		return FileError(path, "cannot write the report", err)
	}
	return nil
}

// Slug makes a file name from a title ("report" when nothing is left).
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return "report"
	}
	return s
}
