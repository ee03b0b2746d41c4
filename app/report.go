package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/agent/report/vega"
	"github.com/loupeapp/loupe/app/assemble"
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
// images, and each chart's SVG.
type Report struct {
	Title    string        `json:"title"`
	Markdown string        `json:"markdown"`
	HTML     string        `json:"html"`
	Charts   []ReportChart `json:"charts"`
}

// reportStore keeps the reports written, by run, for export.
type reportStore struct {
	mu   sync.Mutex
	byID map[string]*report.Report
}

func newReportStore() *reportStore { return &reportStore{byID: map[string]*report.Report{}} }

func (s *reportStore) get(runID string) (*report.Report, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.byID[runID]
	return r, ok
}

func (s *reportStore) put(runID string, r *report.Report) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byID[runID] = r
}

// WriteReport writes the report of a finished run (stage two, one model
// call without tools), streaming report:delta events, and returns it.
// Cancel(runID) stops it.
func (a *App) WriteReport(chatID, runID string) (*Report, error) {
	a.chats.mu.Lock()
	_, t, err := a.chats.turn(chatID, runID)
	var (
		out      *agent.Outcome
		question string
	)
	if err == nil {
		out, question = t.Outcome, t.Question
	}
	a.chats.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, newError(CodeBusy, "The run is still going.", "Wait for the answer, then write the report.")
	}
	if out.Status != agent.Done {
		return nil, newError(CodeInvalid, "Only a finished answer can become a report.",
			"This run ended as "+string(out.Status)+"; ask again, then write the report.")
	}
	s, err := a.settings.get()
	if err != nil {
		return nil, wrap(err)
	}
	cfg := a.modelConfig(s)
	p, err := provider.Open(cfg)
	if err != nil {
		return nil, wrap(err)
	}
	ctx, err := a.reportOutbox(runID, cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ctx, p, release, err := a.guardReport(ctx, chatID, p)
	if err != nil {
		return nil, err
	}
	defer release()
	if !a.runs.add(reportKey(runID), cancel) {
		return nil, newError(CodeBusy, "This report is already being written.", "Wait for it, or press Stop.")
	}
	defer a.runs.remove(reportKey(runID))

	text := newTextThrottle(batchInterval, func(s string) {
		a.publish(EventReportDelta, ReportDelta{RunID: runID, Text: s})
	})
	rm, err := a.runModel()
	if err != nil {
		return nil, err
	}
	rep, err := report.WriteWith(ctx, p, cfg.Model, assemble.ExplorationAt(question, out, rm.opts.Privacy), report.Options{
		OnDelta: text.add,
		OnReset: func() {
			text.flush()
			a.publish(EventReportDelta, ReportDelta{RunID: runID, Reset: true})
		},
	})
	text.flush()
	if err != nil {
		return nil, wrap(err)
	}
	a.reports.put(runID, rep)
	a.saveReport(ctx, runID, rep)
	view, err := reportView(ctx, rep)
	if err != nil {
		return nil, wrap(err)
	}
	return view, nil
}

// md renders the report view: CommonMark with GitHub's extensions; raw HTML
// in the model's text is dropped (goldmark's default).
var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// chartSrc matches the image links Markdown() writes for charts.
var chartSrc = regexp.MustCompile(`src="charts/([A-Za-z][A-Za-z0-9_-]{0,31})\.svg"`)

// reportView renders rep for the report view.
func reportView(ctx context.Context, rep *report.Report) (*Report, error) {
	view := &Report{Title: rep.Title, Markdown: rep.Markdown(), Charts: []ReportChart{}}
	svgs := map[string]string{}
	for _, ch := range rep.Exploration.Charts {
		svg, err := vega.Shared().SVG(ctx, ch.Spec)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c := ReportChart{Ref: ch.Ref}
		if err == nil {
			c.SVG = string(svg)
			svgs[ch.Ref] = c.SVG
		}
		view.Charts = append(view.Charts, c)
	}
	var body bytes.Buffer
	if err := md.Convert([]byte(view.Markdown), &body); err != nil {
		return nil, fmt.Errorf("render the report: %w", err)
	}
	view.HTML = chartSrc.ReplaceAllStringFunc(body.String(), func(m string) string {
		ref := chartSrc.FindStringSubmatch(m)[1]
		svg, ok := svgs[ref]
		if !ok {
			return m
		}
		return `src="data:image/svg+xml;base64,` + base64.StdEncoding.EncodeToString([]byte(svg)) + `"`
	})
	return view, nil
}

// ExportReport exports a written report through the native save dialog:
// "folder" writes report.md with its charts and report.html into the
// chosen folder; "html" writes the self-contained page alone. It returns
// the path written, or nil when the dialog was canceled.
func (a *App) ExportReport(runID, format string) (*string, error) {
	rep, ok := a.reports.get(runID)
	if !ok {
		return nil, newError(CodeNotFound, "No report was written for this run.", "Write the report first.")
	}
	name := slug(rep.Title)
	var o DialogOptions
	switch format {
	case "folder":
		o = DialogOptions{Title: "Export the report into a new folder", DefaultName: name}
	case "html":
		o = DialogOptions{Title: "Export the report as HTML", DefaultName: name + ".html",
			Filters: []FileFilter{{Name: "HTML files", Pattern: "*.html"}}}
	default:
		return nil, newError(CodeInvalid, fmt.Sprintf("Unknown export format %q.", format), `Use "folder" or "html".`)
	}
	path, err := a.opts.Dialogs.SaveFile(o)
	if err != nil || path == "" {
		return nil, wrap(err)
	}
	if format == "folder" {
		files, err := report.Export(a.life, rep, path)
		if err != nil {
			return nil, wrap(err)
		}
		a.recordExport(runID, "md", files.Dir)
		return &files.Dir, nil
	}
	if err := exportHTML(a.life, rep, path); err != nil {
		return nil, wrap(err)
	}
	a.recordExport(runID, format, path)
	return &path, nil
}

// saveReport keeps a written report in the store with the answer it came
// from, so that it outlives the session. The report is in the user's
// hands already; a failure to store it is logged, not shown.
func (a *App) saveReport(ctx context.Context, runID string, rep *report.Report) {
	if err := a.storeReport(ctx, runID, rep); err != nil {
		a.log.Error("store a report", "run", runID, "err", err)
	}
}

func (a *App) storeReport(ctx context.Context, runID string, rep *report.Report) error {
	st, err := a.chatStore()
	if err != nil {
		return err
	}
	msg, err := st.MessageByRun(ctx, runID)
	if err != nil {
		return err
	}
	src, err := json.Marshal(rep)
	if err != nil {
		return fmt.Errorf("encode the report: %w", err)
	}
	r, err := st.SaveReport(ctx, msg.ID, rep.Title, rep.Markdown(), src)
	if err != nil {
		return err
	}
	a.reportIDs.Store(runID, r.ID)
	return nil
}

// recordExport adds an export to the stored report's history.
func (a *App) recordExport(runID, format, path string) {
	id, ok := a.reportIDs.Load(runID)
	if !ok {
		return
	}
	st, err := a.chatStore()
	if err == nil {
		err = st.RecordExport(a.life, id.(string), format, path)
	}
	if err != nil {
		a.log.Error("record a report export", "run", runID, "err", err)
	}
}

// exportHTML exports into a temporary folder beside path and moves the
// page into place.
func exportHTML(ctx context.Context, rep *report.Report, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fileError(path, "cannot create the folder", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".loupe-export-")
	if err != nil {
		return fileError(path, "cannot write beside the file", err)
	}
	defer os.RemoveAll(tmp)
	files, err := report.Export(ctx, rep, filepath.Join(tmp, "report"))
	if err != nil {
		return err
	}
	if err := os.Rename(files.HTML, path); err != nil {
		return fileError(path, "cannot write the report", err)
	}
	return nil
}

// slug makes a file name from a title.
func slug(title string) string {
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
