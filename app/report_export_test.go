package app_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/report/pdf/pdftest"
	"github.com/loupeapp/loupe/app"
)

// The window exports a report as PDF and as a workbook through the save
// dialog, suggesting a name from its title; Loupe opens the workbook
// again, a dataset per sheet.
func TestExportReportAsPDFAndXLSX(t *testing.T) {
	spec := map[string]any{"mark": "bar", "encoding": map[string]any{
		"x": map[string]any{"field": "region", "type": "nominal"},
		"y": map[string]any{"field": "orders", "type": "quantitative"},
	}}
	e := newEnv(t, setup{turns: []fake.Turn{
		fake.Calls(call("run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		fake.Calls(call("create_chart", map[string]any{"title": "Orders by region", "sql": regionSQL, "spec": spec})),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1, c1]"),
		fake.Text("# Where the orders come from\n\n## Summary\n\nWest leads.\n\n{{chart:c1}}\n\n{{table:q1}}\n\n## Caveats\n\nForty orders only."),
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
	if _, err := e.app.WriteReport(chat, res.RunID, nil); err != nil {
		t.Fatal(err)
	}
	path, err := e.app.ExportReport(res.RunID, "pdf")
	if err != nil || path == nil || filepath.Base(*path) != "where-the-orders-come-from.pdf" {
		t.Fatalf("export pdf: %v %v", path, err)
	}
	pages := pdftest.Pages(t, *path)
	// Summary, Caveats and the appendix: a page each.
	if all := strings.Join(pages, ""); len(pages) != 3 || !strings.Contains(all, "Where the orders come from") ||
		!strings.Contains(all, "Figure 1. Orders by region") || !strings.HasPrefix(strings.TrimSpace(pages[1]), "Caveats") ||
		!strings.HasPrefix(strings.TrimSpace(pages[2]), "Appendix: queries") {
		t.Errorf("%d pages:\n%s", len(pages), all)
	}
	book, err := e.app.ExportReport(res.RunID, "xlsx")
	if err != nil || book == nil || filepath.Ext(*book) != ".xlsx" {
		t.Fatalf("export xlsx: %v %v", book, err)
	}
	reps, err := e.app.OpenFiles([]string{*book})
	if err != nil || len(reps) != 1 || reps[0].Error != nil || len(reps[0].Datasets) != 2 {
		t.Fatalf("open the workbook: %+v %v", reps, err)
	}
	var table string
	for _, d := range reps[0].Datasets {
		if d.Part == "Table 1 (q1)" { // the chart's data is the table's: one sheet
			table = d.Name
		}
	}
	back, err := e.app.RunSQL(fmt.Sprintf(`SELECT region, orders FROM "%s" ORDER BY orders DESC, region`, table))
	if err != nil {
		t.Fatal(err)
	}
	want, err := e.app.RunSQL("SELECT region, count(*) AS orders FROM orders GROUP BY region ORDER BY orders DESC, region")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(back.Page.Rows) != fmt.Sprint(want.Page.Rows) || back.Columns[1].Type != want.Columns[1].Type {
		t.Errorf("read back %v %v, want %v %v", back.Page.Rows, back.Columns, want.Page.Rows, want.Columns)
	}
	if _, err := e.app.ExportReport(res.RunID, "docx"); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("unknown format: %v", err)
	}
}
