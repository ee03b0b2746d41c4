package app

import (
	"context"
	"fmt"

	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/store"
)

// EventReportDelta carries a ReportDelta while a report is written.
const EventReportDelta = "report:delta"

// ReportDelta is a piece of a report's text as the model writes it. Reset
// says the model's stream restarted: the text so far is to be discarded.
type ReportDelta struct {
	RunID string `json:"runId"`
	Text  string `json:"text"`
	Reset bool   `json:"reset,omitempty"`
}

// ReportChart is a chart of a report, drawn.
type ReportChart struct {
	Ref string `json:"ref"`
	SVG string `json:"svg"` // the SVG document; empty when it could not be drawn
}

// Report is a written report for the report view: its markdown (as
// exported), the same as an HTML fragment with the charts inlined as
// images, each chart's SVG, the conversation's questions it covers
// (numbered from 1; empty for a report of one answer written before
// reports covered several) and what Loupe removed or placed in the
// model's text (also listed at the end of the markdown).
type Report struct {
	Title    string         `json:"title"`
	Markdown string         `json:"markdown"`
	HTML     string         `json:"html"`
	Charts   []ReportChart  `json:"charts"`
	Turns    []int          `json:"turns"`
	Notices  []ReportNotice `json:"notices"`
	// Questions are the conversation's questions in the order asked
	// (question n is questions[n-1]), for choosing what a report covers.
	Questions []string `json:"questions"`
}

// ReportNotice is one thing Loupe corrected in a report: its kind
// (report.Notice kinds, or "question_left_out"), the ref it concerns and
// what was done, in words.
type ReportNotice struct {
	Kind string `json:"kind"`
	Ref  string `json:"ref"`
	Text string `json:"text"`
}

// WriteReport writes a report from the conversation's answers (stage two,
// one model call without tools) and keeps it with the answer of runID,
// streaming report:delta events, and returns it. turns picks the
// questions it covers (numbers from 1, in the order asked); empty covers
// every question with a finished answer. Cancel(runID) stops it.
func (a *App) WriteReport(chatID, runID string, turns []int) (*Report, error) {
	written, st, err := a.s.WriteRunReport(a.life, session.RunReport{ChatID: chatID, RunID: runID, Turns: turns,
		OpenModel: func() (*config.Model, error) {
			m, _, err := a.openModel()
			return m, err
		},
		OnDelta: func(s string) { a.publish(EventReportDelta, ReportDelta{RunID: runID, Text: s}) },
		OnReset: func() { a.publish(EventReportDelta, ReportDelta{RunID: runID, Reset: true}) },
	})
	if err != nil {
		return nil, err
	}
	view, err := reportView(a.life, st, chatID, written.Report)
	if err != nil {
		return nil, wrap(err)
	}
	return view, nil
}

// reportView renders rep, a report of conversation chatID, for the
// report view (session.Render).
func reportView(ctx context.Context, st *store.Store, chatID string, rep *report.Report) (*Report, error) {
	v, err := session.Render(ctx, rep)
	if err != nil {
		return nil, err
	}
	questions, err := session.Questions(ctx, st, chatID)
	if err != nil {
		return nil, err
	}
	out := &Report{Title: v.Title, Markdown: v.Markdown, HTML: v.HTML, Charts: make([]ReportChart, len(v.Charts)),
		Turns: append([]int{}, rep.Exploration.Turns...), Notices: make([]ReportNotice, len(rep.Notices)), Questions: questions}
	for i, c := range v.Charts {
		out.Charts[i] = ReportChart(c)
	}
	for i, n := range rep.Notices {
		out.Notices[i] = ReportNotice{Kind: n.Kind, Ref: n.Ref, Text: n.Listed()}
	}
	return out, nil
}

// GetReport returns the report last written from the run's answer, as
// the report view shows it, or nil when none was written. Reports are
// read from the conversation store, so a conversation reopened after a
// restart shows its report.
func (a *App) GetReport(chatID, runID string) (*Report, error) {
	s, st, err := a.s.ReportOfTurn(a.life, chatID, runID)
	if err != nil || s == nil {
		return nil, err
	}
	view, err := reportView(a.life, st, chatID, s.Report)
	return view, wrap(err)
}

// ExportReport exports the report last written for a run, read from the
// conversation store (so it works after a restart), through the native
// save dialog: "folder" writes report.md with its charts and report.html
// into the chosen folder; "html" writes the self-contained page alone;
// "pdf" printable pages with the charts as vectors; "xlsx" a workbook of
// the report's text and one sheet per table. It returns the path
// written, or nil when the dialog was canceled. The export is recorded
// with the report.
func (a *App) ExportReport(runID, format string) (*string, error) {
	kind, ok := reportExportKinds[format]
	if !ok {
		return nil, newError(CodeInvalid, fmt.Sprintf("Unknown export format %q.", format), `Use "folder", "html", "pdf" or "xlsx".`)
	}
	s, st, err := a.s.ReportToExport(a.life, runID)
	if err != nil {
		return nil, err
	}
	path, err := a.opts.Dialogs.SaveFile(reportDialog(format, session.Slug(s.Report.Title)))
	if err != nil || path == "" {
		return nil, wrap(err)
	}
	out, err := a.s.ExportTo(a.life, st, runID, s, kind, path)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// reportExportKinds maps ExportReport's formats to the session's.
var reportExportKinds = map[string]string{
	"folder": session.ExportFolder, "html": session.ExportHTML,
	"pdf": session.ExportPDF, "xlsx": session.ExportXLSX,
}

// reportDialog is the save dialog of a report export as format.
func reportDialog(format, name string) DialogOptions {
	switch format {
	case "folder":
		return DialogOptions{Title: "Export the report into a new folder", DefaultName: name}
	case "pdf":
		return DialogOptions{Title: "Export the report as PDF", DefaultName: name + ".pdf",
			Filters: []FileFilter{{Name: "PDF documents", Pattern: "*.pdf"}}}
	case "xlsx":
		return DialogOptions{Title: "Export the report as an Excel workbook", DefaultName: name + ".xlsx",
			Filters: []FileFilter{{Name: "Excel workbooks", Pattern: "*.xlsx"}}}
	}
	return DialogOptions{Title: "Export the report as HTML", DefaultName: name + ".html",
		Filters: []FileFilter{{Name: "HTML files", Pattern: "*.html"}}}
}
