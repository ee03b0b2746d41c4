package report

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/loupeapp/loupe/agent/report/pdf"
	"github.com/loupeapp/loupe/agent/report/vega"
)

// WritePDF writes the report to w as printable pages (package pdf): the
// same text as report.md, each chart drawn as vectors where the report
// places it, a chart that cannot be drawn said so in its place. It fails
// only when ctx ends or the PDF cannot be written.
func WritePDF(ctx context.Context, rep *Report, w io.Writer) error {
	return writePDF(ctx, rep, w, vega.Shared())
}

func writePDF(ctx context.Context, rep *Report, w io.Writer, r *vega.Renderer) error {
	images, _ := renderCharts(ctx, rep, r, "")
	if err := ctx.Err(); err != nil {
		return err
	}
	nonce := make([]byte, 8)
	if _, err := rand.Read(nonce); err != nil {
		return fmt.Errorf("report: pdf: %w", err)
	}
	marker := "LOUPEFIGURE" + hex.EncodeToString(nonce) + "X"
	figures := map[string]pdf.Figure{}
	text := rep.markdown(func(ch *Chart, fig int) string {
		key := fmt.Sprintf("%s%d", marker, fig)
		img := images[ch.Ref]
		figures[key] = pdf.Figure{SVG: img.SVG, Caption: figureCaption(ch, fig), Missing: img.Err}
		return key + "\n"
	})
	err := pdf.Write(w, pdf.Document{Title: rep.Title, Author: strings.TrimSpace("Loupe " + rep.Version),
		Created: rep.Created, Markdown: text, Figures: figures})
	if err != nil {
		return fmt.Errorf("report: pdf: %w", err)
	}
	return nil
}

func figureCaption(ch *Chart, fig int) string {
	caption := fmt.Sprintf("Figure %d. %s", fig, chartTitle(ch))
	if ch.QueryRef != "" {
		caption += " (data: " + ch.QueryRef + ")"
	}
	return caption
}

// Sheet is one sheet of the report as a workbook.
type Sheet struct {
	Name    string
	Columns []Column
	Rows    [][]any
}

// Sheets is the report as a workbook: first "Report", its text one
// paragraph or list item a row (each table and chart named where it
// stands) followed by the list of the sheets after it with their SQL;
// then one sheet per table the report shows ("Table N (qK)") and one per
// chart whose data query is not among them ("Figure N data (qK)"), in the
// order they appear, each query once. A sheet holds the rows the report holds of its query (its
// preview, up to about 50): the Report sheet says when a query had more.
func (r *Report) Sheets() []Sheet {
	type dataSheet struct {
		name string
		q    *Query
	}
	var data []dataSheet
	seen := map[string]bool{}
	var lines []string
	add := func(s string) { lines = append(lines, s) }
	add(r.Title)
	add(strings.Trim(r.provenance(), "*"))
	add("")
	body := strings.Split(strings.TrimRight(r.Body, "\n"), "\n")
	tableSheet := map[string]string{} // query ref → the sheet of the first table showing it
	tabs := 0
	for _, l := range body {
		if kind, ref, ok := parseBlock(l); ok && kind == kindTable && r.Exploration.query(ref) != nil {
			tabs++
			if q := r.Exploration.query(ref); tableRows(q) && tableSheet[q.Ref] == "" {
				tableSheet[q.Ref] = fmt.Sprintf("Table %d (%s)", tabs, q.Ref)
			}
		}
	}
	sheetOf := func(q *Query, name string) string { // the sheet holding q, added when new
		if !seen[q.Ref] {
			data = append(data, dataSheet{name, q})
			seen[q.Ref] = true
		}
		for _, d := range data {
			if d.q.Ref == q.Ref {
				return d.name
			}
		}
		return name
	}
	figs, tabs := 0, 0
	for _, l := range body {
		kind, ref, ok := parseBlock(l)
		switch {
		case ok && kind == kindChart && r.Exploration.chart(ref) != nil:
			figs++
			ch := r.Exploration.chart(ref)
			line := "[" + figureCaption(ch, figs)
			if q := r.Exploration.query(ch.QueryRef); q != nil && tableRows(q) {
				name := tableSheet[q.Ref]
				if name == "" {
					name = fmt.Sprintf("Figure %d data (%s)", figs, q.Ref)
				}
				line += " — its data is on the sheet “" + sheetOf(q, name) + "”"
			}
			add(line + "]")
		case ok && kind == kindTable && r.Exploration.query(ref) != nil:
			tabs++
			q := r.Exploration.query(ref)
			label := fmt.Sprintf("Table %d (%s)", tabs, q.Ref)
			if tableRows(q) {
				add("[" + label + " — on the sheet “" + sheetOf(q, tableSheet[q.Ref]) + "”]")
			} else {
				add("[" + label + ": the query returned no rows]")
			}
		default:
			if t := strings.TrimSpace(l); t != "" {
				add(plainLine(t))
			}
		}
	}
	if len(r.Notices) > 0 {
		add("")
		add("Notes on this report")
		for _, n := range r.Notices {
			add("- " + oneLine(n.Listed()))
		}
	}
	if len(data) > 0 {
		add("")
		add("Sheets")
		for _, d := range data {
			line := fmt.Sprintf("%s: %s", d.name, d.q.Ref)
			if d.q.Purpose != "" {
				line += " — " + oneLine(d.q.Purpose)
			}
			if int64(len(d.q.Preview)) < d.q.Rows {
				line += fmt.Sprintf(" (first %d of %s rows)", len(d.q.Preview), thousands(d.q.Rows))
			}
			add(line)
			add("SQL: " + oneLine(d.q.SQL))
		}
	}
	rows := make([][]any, len(lines))
	for i, l := range lines {
		rows[i] = []any{l}
	}
	out := []Sheet{{Name: "Report", Columns: []Column{{Name: "Report", Type: "VARCHAR"}}, Rows: rows}}
	for _, d := range data {
		out = append(out, Sheet{Name: d.name, Columns: d.q.Columns, Rows: d.q.Preview})
	}
	return out
}

func tableRows(q *Query) bool { return q.Error == "" && len(q.Columns) > 0 && len(q.Preview) > 0 }

// plainLine is a markdown line as a reader of a cell wants it: no heading
// marks, emphasis or placeholder braces.
func plainLine(s string) string {
	s = strings.TrimLeft(s, "#")
	s = strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)
	return strings.TrimSpace(s)
}
