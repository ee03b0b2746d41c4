package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/report/pdf/pdftest"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/store"
)

const productDateSQL = "SELECT product, sum(quantity) AS units, min(order_date) AS first_order FROM orders GROUP BY product ORDER BY units DESC"

// threeQuestionReport asks three questions through the fake model (the
// real tools on real DuckDB: two charts, three queries) and writes the
// report of the conversation, whose text is reportText.
func threeQuestionReport(t *testing.T, reportText string) (*world, string, *session.StoredReport) {
	t.Helper()
	w := newWorld(t,
		fake.Calls(call(t, "run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		fake.Calls(chartCall(t, "Orders by region", regionSQL, "region", "orders")),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1, c1]"),
		fake.Calls(call(t, "run_sql", map[string]any{"sql": productDateSQL, "purpose": "units by product"})),
		fake.Text("Widgets sell most.\n\nFindings:\n- Widgets lead on units [q2]"),
		fake.Calls(call(t, "run_sql", map[string]any{"sql": statusSQL, "purpose": "orders by status"})),
		fake.Calls(chartCall(t, "Orders by status", statusSQL, "status", "orders")),
		fake.Text("Most orders shipped.\n\nFindings:\n- Shipped leads [q3, c2]"),
		fake.Text(reportText),
	)
	ctx := context.Background()
	first, out, _ := w.ask(t, "", "Where do orders come from?")
	chat := first.User.ConversationID
	_, out2, _ := w.ask(t, chat, "Which product sells most?")
	last, out3, _ := w.ask(t, chat, "And by status?")
	for i, o := range []*agent.Outcome{out, out2, out3} {
		if o.Status != agent.Done {
			t.Fatalf("answer %d: %s %s", i+1, o.Status, o.Reason)
		}
	}
	m, err := w.st.MessageByRun(ctx, "run_"+last.Assistant.ID)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := session.WriteConversationReport(ctx, session.ConversationReportRequest{Store: w.st, ChatID: chat,
		MessageID: m.ID, Provider: w.p, Model: "qwen3:8b"})
	if err != nil {
		t.Fatal(err)
	}
	return w, chat, rep
}

const printedReport = "# Orders at a glance — café edition\n\n## Summary\n\nWest leads on **orders** [q1, c1]; the *résumé* in Greek: Ελληνικά, and 東京 for Tokyo.\n\n" +
	"- Widgets lead on units [q2]\n- Shipped leads [q3, c2]\n\n" +
	"## Regions\n\n{{chart:c1}}\n\n## Products\n\n{{table:q2}}\n\n## Status\n\nShipped leads [q3] and [q9].\n\n{{chart:c2}}\n\n## Method\n\nThree queries."

// A three-question conversation's report exports to a PDF a reader would
// print: every section, chart, table and query, accents intact, sections
// on their own pages, charts as vector text; poppler draws every page.
func TestAConversationsReportExportsToPDF(t *testing.T) {
	w, chat, rep := threeQuestionReport(t, printedReport)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "out", "orders.pdf")
	files, err := session.Export(ctx, w.st, rep, session.ExportPDF, path)
	if err != nil || files.PDF != path {
		t.Fatalf("export: %+v %v", files, err)
	}
	pages := pdftest.Pages(t, path)
	all := strings.Join(pages, "\n")
	for _, want := range []string{
		"Orders at a glance — café edition", "West leads on orders", "résumé", "Ελληνικά",
		"Figure 1. Orders by region (data: q1)", "Figure 2. Orders by status (data: q3)", // both charts, captioned
		"West", "shipped", // the charts' own labels, as text
		"Table 1. units by product (q2)", "Widget", "first_order", // the table
		"Appendix: queries", "q1 — orders by region", "q2 — units by product", "q3 — orders by status", // every query
		"Notes on this report", "q9", // what was removed, listed
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the PDF lacks %q", want)
		}
	}
	for _, sql := range []string{regionSQL, productDateSQL, statusSQL} {
		if !strings.Contains(strings.Join(strings.Fields(all), " "), sql[:40]) {
			t.Errorf("the PDF lacks the SQL %q", sql)
		}
	}
	if !regexp.MustCompile(`product\s+units\s+first_order`).MatchString(all) {
		t.Errorf("the table's header row is not as the columns are named:\n%s", all)
	}
	if strings.Contains(all, "{{") || strings.Contains(all, "[q1") {
		t.Errorf("a placeholder or raw citation is left:\n%s", all)
	}
	// Summary, Regions, Products, Status, Method, Notes, Appendix: a page each at least.
	if len(pages) < 7 {
		t.Errorf("%d pages, want a page per section", len(pages))
	}
	for _, section := range []string{"Regions", "Products", "Status", "Method", "Appendix: queries"} {
		if !slices.ContainsFunc(pages, func(p string) bool { return strings.HasPrefix(strings.TrimSpace(p), section) }) {
			t.Errorf("no page opens with the section %q", section)
		}
	}
	if files := pdftest.Render(t, path, pdftest.Keep(t, "conversation"), 60); len(files) != len(pages) {
		t.Errorf("pdftoppm drew %d of %d pages", len(files), len(pages))
	}
	reps, err := w.st.Reports(ctx, chat)
	if err != nil || len(reps) == 0 || !slices.ContainsFunc(reps[0].Exports, func(e store.Export) bool { return e.Format == session.ExportPDF && e.Path == path }) {
		t.Errorf("the export is not recorded: %+v %v", reps, err)
	}
}

// The same report exports to a workbook: the text on a first sheet, one
// sheet per table (the body's and each chart's data) with typed cells,
// and Loupe opens it again with the same columns and types.
func TestAConversationsReportExportsToXLSX(t *testing.T) {
	w, _, rep := threeQuestionReport(t, printedReport)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "orders.xlsx")
	if _, err := session.Export(ctx, w.st, rep, session.ExportXLSX, path); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wantSheets := []string{"Report", "Figure 1 data (q1)", "Table 1 (q2)", "Figure 2 data (q3)"}
	if got := f.GetSheetList(); !slices.Equal(got, wantSheets) {
		t.Fatalf("sheets %q, want %q", got, wantSheets)
	}
	text, _ := f.GetCols("Report")
	report := strings.Join(text[0], "\n")
	for _, want := range []string{"Orders at a glance — café edition", "West leads on orders", "[Table 1 (q2) — on the sheet “Table 1 (q2)”]",
		"its data is on the sheet “Figure 1 data (q1)”", "SQL: " + productDateSQL, "Notes on this report"} {
		if !strings.Contains(report, want) {
			t.Errorf("the Report sheet lacks %q:\n%s", want, report)
		}
	}
	if h, _ := f.GetRows("Table 1 (q2)"); len(h) < 2 || !slices.Equal(h[0], []string{"product", "units", "first_order"}) {
		t.Fatalf("table sheet rows %q", h)
	}
	if typ, _ := f.GetCellType("Table 1 (q2)", "B2"); typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset {
		t.Errorf("units is a %v cell, want a number", typ)
	}
	if raw, _ := f.GetCellValue("Table 1 (q2)", "C2", excelize.Options{RawCellValue: true}); !isNumber(raw) {
		t.Errorf("first_order is %q, want a date serial", raw)
	}

	// Loupe reads its own workbook back: a dataset per sheet, typed.
	ds, err := w.ws.Loader.Load(ctx, path, load.Options{})
	if err != nil || len(ds) != 4 {
		t.Fatalf("load the workbook: %d datasets, %v", len(ds), err)
	}
	var table string
	for _, d := range ds {
		if d.Part == "Table 1 (q2)" {
			table = d.Name
		}
	}
	types := columnTypes(t, w, table)
	if types["units"] != "BIGINT" && types["units"] != "DOUBLE" || types["first_order"] != "DATE" || types["product"] != "VARCHAR" {
		t.Errorf("types read back: %v", types)
	}
	var product string
	var units float64
	if err := w.ws.Engine.DB().QueryRowContext(ctx, `SELECT product, units FROM "`+table+`" ORDER BY units DESC LIMIT 1`).Scan(&product, &units); err != nil {
		t.Fatal(err)
	}
	var wantProduct string
	var wantUnits float64
	if err := w.ws.Engine.DB().QueryRowContext(ctx, "SELECT product, sum(quantity) FROM orders GROUP BY product ORDER BY 2 DESC LIMIT 1").Scan(&wantProduct, &wantUnits); err != nil {
		t.Fatal(err)
	}
	if product != wantProduct || units != wantUnits {
		t.Errorf("read back %s %v, want %s %v", product, units, wantProduct, wantUnits)
	}
}

// An export to a place that cannot be written says where and what to do,
// and leaves nothing behind: no partial file, no temporary one, and a
// file already at the path as it was.
func TestReportFileExportFailures(t *testing.T) {
	w, _, rep := threeQuestionReport(t, printedReport)
	ctx := context.Background()
	dir := t.TempDir()
	blocker := filepath.Join(dir, "not-a-folder")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{session.ExportPDF, session.ExportXLSX} {
		bad := filepath.Join(blocker, "report."+format)
		_, err := session.Export(ctx, w.st, rep, format, bad)
		var se *session.Error
		if !errors.As(err, &se) || se.Code != session.CodeFile || !strings.Contains(se.Message, bad) || se.Hint == "" {
			t.Errorf("%s to %s: %v", format, bad, err)
		}
	}
	// A cancelled export leaves the file it would replace untouched.
	old := filepath.Join(dir, "report.pdf")
	if err := os.WriteFile(old, []byte("the user's file"), 0o644); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := session.Export(cancelled, w.st, rep, session.ExportPDF, old); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled export: %v", err)
	}
	if b, _ := os.ReadFile(old); string(b) != "the user's file" {
		t.Errorf("the file was replaced by %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func columnTypes(t *testing.T, w *world, table string) map[string]string {
	t.Helper()
	rows, err := w.ws.Engine.DB().QueryContext(context.Background(),
		"SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ?", table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var n, typ string
		if err := rows.Scan(&n, &typ); err != nil {
			t.Fatal(err)
		}
		out[n] = typ
	}
	return out
}
