package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/store"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
)

func TestWriteAndExportReport(t *testing.T) {
	spec := map[string]any{"mark": "bar", "encoding": map[string]any{
		"x": map[string]any{"field": "region", "type": "nominal"},
		"y": map[string]any{"field": "orders", "type": "quantitative"},
	}}
	e := newEnv(t, setup{turns: []fake.Turn{
		fake.Calls(call("run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		fake.Calls(call("create_chart", map[string]any{"title": "Orders by region", "sql": regionSQL, "spec": spec})),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1, c1]"),
		{Content: "# Where the orders come from\n\n## Summary\n\nWest leads.\n\n{{chart:c1}}\n\n{{table:q1}}\n\n## Caveats\n\nForty orders only.",
			Chunks: 30, ChunkDelay: 2 * time.Millisecond},
	}})
	e.load(t)
	chat := e.chat(t)
	res, err := e.app.Ask(chat, "Where do orders come from?")
	if err != nil {
		t.Fatal(err)
	}
	if out := e.rec.waitFinished(t, res.RunID, 20*time.Second); out.Status != agent.Done {
		t.Fatalf("run: %s %s", out.Status, out.Reason)
	}
	if _, err := e.app.ExportReport(res.RunID, "html"); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("export before writing: %v", err)
	}
	rep, err := e.app.WriteReport(chat, res.RunID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Title != "Where the orders come from" || !strings.HasPrefix(rep.Markdown, "# Where the orders come from") {
		t.Errorf("title %q, markdown %.80q", rep.Title, rep.Markdown)
	}
	if len(rep.Charts) != 1 || rep.Charts[0].Ref != "c1" || !strings.Contains(rep.Charts[0].SVG, "<svg") {
		t.Fatalf("charts %+v", rep.Charts)
	}
	for _, want := range []string{"<h1", "West leads.", `src="data:image/svg+xml;base64,`, "<table>"} {
		if !strings.Contains(rep.HTML, want) {
			t.Errorf("html lacks %q", want)
		}
	}
	if strings.Contains(rep.HTML, `src="charts/`) {
		t.Error("html links chart files the view cannot load")
	}
	// The footer names the version About shows (and `loupe --version`).
	version, _ := e.app.Version()
	if footer := "*Written by Loupe " + version + ".*"; version == "" || !strings.HasSuffix(strings.TrimSpace(rep.Markdown), footer) {
		t.Errorf("the report does not end with %q:\n%s", footer, rep.Markdown)
	}
	var streamed strings.Builder
	deltas := e.rec.of(app.EventReportDelta)
	for _, d := range deltas {
		if rd := d.(app.ReportDelta); rd.RunID == res.RunID {
			streamed.WriteString(rd.Text)
		}
	}
	if len(deltas) == 0 || len(deltas) >= 30 || !strings.Contains(streamed.String(), "Forty orders only.") {
		t.Errorf("%d report:delta events for 30 chunks, text %q", len(deltas), streamed.String())
	}

	dir, err := e.app.ExportReport(res.RunID, "folder")
	if err != nil || dir == nil {
		t.Fatalf("export folder: %v %v", dir, err)
	}
	for _, f := range []string{"report.md", "report.html", "charts/c1.svg"} {
		if _, err := os.Stat(filepath.Join(*dir, f)); err != nil {
			t.Errorf("folder export lacks %s: %v", f, err)
		}
	}
	page, err := e.app.ExportReport(res.RunID, "html")
	if err != nil || page == nil {
		t.Fatalf("export html: %v %v", page, err)
	}
	b, err := os.ReadFile(*page)
	if err != nil || !strings.Contains(string(b), "Where the orders come from") || filepath.Ext(*page) != ".html" {
		t.Errorf("html export %s: %v", *page, err)
	}
	if want := `<meta name="generator" content="Loupe ` + version + `">`; !strings.Contains(string(b), want) || !strings.Contains(string(b), "Written by Loupe "+version+".") {
		t.Errorf("the exported page lacks %s and the footer", want)
	}
	left, _ := os.ReadDir(e.saveDir)
	if len(left) != 2 {
		var ns []string
		for _, l := range left {
			ns = append(ns, l.Name())
		}
		t.Errorf("the save folder holds %v, want the report folder and page only", ns)
	}
	// The report and its exports are kept in the conversation store.
	st, err := store.OpenDir(context.Background(), e.wsDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reps, err := st.Reports(context.Background(), chat)
	if err != nil || len(reps) != 1 || !strings.Contains(reps[0].Markdown, "Forty orders only.") || len(reps[0].Exports) != 2 {
		t.Errorf("stored reports %+v, %v: want one, with the folder and html exports", reps, err)
	}
	if _, err := e.app.ExportReport(res.RunID, "docx"); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := e.app.WriteReport(chat, "run_nope", nil); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("unknown run: %v", err)
	}
}

// A report written before a restart is shown and exported after it: the
// conversation store, not the process, keeps it.
func TestReportSurvivesARestart(t *testing.T) {
	spec := map[string]any{"mark": "bar", "encoding": map[string]any{
		"x": map[string]any{"field": "region", "type": "nominal"},
		"y": map[string]any{"field": "orders", "type": "quantitative"},
	}}
	srv := fake.Start(t, fake.Options{Turns: []fake.Turn{
		fake.Calls(call("run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		fake.Calls(call("create_chart", map[string]any{"title": "Orders by region", "sql": regionSQL, "spec": spec})),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1, c1]"),
		fake.Text("# Where the orders come from\n\n## Summary\n\nWest leads.\n\n{{chart:c1}}\n\n{{table:q1}}\n\n## Caveats\n\nForty orders only."),
	}})
	ws := t.TempDir()
	first := openApp(t, ws, srv)
	first.load(t)
	chat := first.chat(t)
	res, err := first.app.Ask(chat, "Where do orders come from?")
	if err != nil {
		t.Fatal(err)
	}
	if out := first.rec.waitFinished(t, res.RunID, 20*time.Second); out.Status != agent.Done {
		t.Fatalf("run: %s %s", out.Status, out.Reason)
	}
	if rep, err := first.app.GetReport(chat, res.RunID); err != nil || rep != nil {
		t.Fatalf("report before one was written: %+v %v", rep, err)
	}
	written, err := first.app.WriteReport(chat, res.RunID, nil)
	if err != nil {
		t.Fatal(err)
	}
	first.app.Shutdown(context.Background())

	second := openApp(t, ws, srv)
	if _, err := second.app.GetChat(chat); err != nil {
		t.Fatal(err)
	}
	shown, err := second.app.GetReport(chat, res.RunID)
	if err != nil || shown == nil {
		t.Fatalf("report after a restart: %+v %v", shown, err)
	}
	if shown.Title != written.Title || shown.Markdown != written.Markdown || shown.HTML != written.HTML ||
		len(shown.Charts) != 1 || shown.Charts[0].SVG != written.Charts[0].SVG {
		t.Errorf("the reopened report differs from the one written:\n%+v\nwant\n%+v", shown, written)
	}
	dir, err := second.app.ExportReport(res.RunID, "folder")
	if err != nil || dir == nil {
		t.Fatalf("export folder after a restart: %v %v", dir, err)
	}
	for _, f := range []string{"report.md", "report.html", "charts/c1.svg"} {
		if _, err := os.Stat(filepath.Join(*dir, f)); err != nil {
			t.Errorf("folder export lacks %s: %v", f, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(*dir, "report.md"))
	if err != nil || !strings.Contains(string(md), "Forty orders only.") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	page, err := second.app.ExportReport(res.RunID, "html")
	if err != nil || page == nil {
		t.Fatalf("export html after a restart: %v %v", page, err)
	}
	if b, err := os.ReadFile(*page); err != nil || !strings.Contains(string(b), "Where the orders come from") {
		t.Errorf("html export %s: %v", *page, err)
	}
	st, err := store.OpenDir(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reps, err := st.Reports(context.Background(), chat)
	if err != nil || len(reps) != 1 || len(reps[0].Exports) != 2 {
		t.Errorf("stored reports %+v, %v: want one, with the folder and html exports", reps, err)
	}
	if _, err := second.app.GetReport(chat, "run_nope"); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("report of an unknown run: %v", err)
	}
}
