package pdf_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/report/pdf"
	"github.com/loupeapp/loupe/agent/report/pdf/pdftest"
	"github.com/loupeapp/loupe/agent/report/vega"
)

// chart draws one of vega's test specs with the real renderer.
func chart(t *testing.T, name string) []byte {
	t.Helper()
	spec, err := os.ReadFile(filepath.Join("..", "vega", "testdata", name+".vl.json"))
	if err != nil {
		t.Fatal(err)
	}
	svg, err := vega.Shared().SVG(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return svg
}

func write(t *testing.T, d pdf.Document) string {
	t.Helper()
	var buf bytes.Buffer
	if err := pdf.Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A document of sections, charts, a long table and text in several
// scripts lays out as a reader would print it, and poppler reads it back.
func TestWriteLaysOutPages(t *testing.T) {
	var md strings.Builder
	md.WriteString("# Revenue — café résumé\n\n*Written by Loupe · question: “Which region?”*\n\n")
	md.WriteString("## Summary\n\nEast led with **150,000 USD**, ahead of *North*; see `q2` and <https://example.com>.\n\n")
	md.WriteString("Scripts: Ελληνικά, Кириллица, Ångström, 東京の売上.\n\n- first point with **bold**\n- second point\n  - nested point\n\n1. one\n2. two\n\n")
	figures := map[string]pdf.Figure{}
	for i, name := range []string{"bar", "pie", "heatmap"} {
		key := fmt.Sprintf("FIGURE%d", i)
		figures[key] = pdf.Figure{SVG: chart(t, name), Caption: fmt.Sprintf("Figure %d. %s chart", i+1, name)}
		fmt.Fprintf(&md, "## Chart %s\n\nText before the %s chart.\n\n%s\n\n", name, name, key)
	}
	figures["BROKEN"] = pdf.Figure{Caption: "Figure 4. Broken", Missing: "the spec names no mark"}
	figures["HAND"] = pdf.Figure{SVG: []byte(handSVG), Caption: "Figure 5. Shapes"}
	md.WriteString("## Shapes\n\nHAND\n\n")
	md.WriteString("## Broken chart\n\nBROKEN\n\n")
	md.WriteString("## Long table\n\nA table longer than a page.\n\n| region | revenue |\n| --- | ---: |\n")
	for i := range 90 {
		fmt.Fprintf(&md, "| Region n°%d | %d.5 |\n", i+1, 1000+i)
	}
	md.WriteString("\n```sql\nSELECT region, sum(revenue) AS revenue FROM orders GROUP BY region\n```\n")
	path := write(t, pdf.Document{Title: "Revenue — café", Author: "Loupe test", Markdown: md.String(), Figures: figures})

	pages := pdftest.Pages(t, path)
	all := strings.Join(pages, "\n")
	// 1: title and summary; 2–4: a chart each; 5: the broken chart; 6–: the table.
	if len(pages) < 7 {
		t.Fatalf("%d pages, want every section on its own page and the table over two:\n%s", len(pages), all)
	}
	for _, want := range []string{"Revenue — café résumé", "150,000 USD", "Ελληνικά", "Кириллица", "Ångström", "• first point with bold",
		"1. one", "https://example.com", "Figure 1. bar chart", "Figure 2. pie chart", "Figure 3. heatmap chart",
		"the chart could not be drawn (the spec names no mark)", "Region n°90", "SELECT region, sum(revenue)"} {
		if !strings.Contains(all, want) {
			t.Errorf("the PDF lacks %q", want)
		}
	}
	// CJK has no glyph in the embedded font: drawn as □, never lost silently.
	if !strings.Contains(all, "□□□□") {
		t.Errorf("CJK text is not marked as missing:\n%s", pages[0])
	}
	// Sections start pages: each chart heading opens its page.
	for i, name := range []string{"bar", "pie", "heatmap"} {
		if p := pages[1+i]; !regexp.MustCompile(`^\s*Chart ` + name).MatchString(p) {
			t.Errorf("page %d does not open with its section:\n%s", 2+i, p)
		}
	}
	// The charts are vectors with real text: their axis labels are text
	// of the PDF, and the PDF holds no raster image.
	squeezed := strings.Join(strings.Fields(pdftest.Raw(t, path)), "") // diagonal text comes out a letter a line
	for _, label := range []string{"Revenue by region, 2024", "Region", "delivered", "Mon", "Région Ελλάδα", "tilted label"} {
		if !strings.Contains(all, label) && !strings.Contains(squeezed, strings.ReplaceAll(label, " ", "")) {
			t.Errorf("chart label %q is not text of the PDF", label)
		}
	}
	raw, _ := os.ReadFile(path)
	if bytes.Contains(raw, []byte("/Subtype /Image")) {
		t.Error("the PDF holds a raster image; charts should be vectors")
	}
	// The table goes on over pages, its header row on each.
	var tablePages int
	for _, p := range pages {
		if strings.Contains(p, "Region n°") {
			tablePages++
			if !regexp.MustCompile(`(?m)^\s*region\s+revenue\s*$`).MatchString(p) {
				t.Errorf("a page of the table lacks its header row:\n%s", p)
			}
		}
	}
	if tablePages < 2 {
		t.Errorf("the table spans %d page(s), want it split", tablePages)
	}
	// Every page has its footer.
	for i, p := range pages {
		if want := fmt.Sprintf("page %d of %d", i+1, len(pages)); !strings.Contains(p, want) {
			t.Errorf("page %d lacks %q", i+1, want)
		}
	}
	if files := pdftest.Render(t, path, pdftest.Keep(t, "layout"), 50); len(files) != len(pages) {
		t.Errorf("pdftoppm drew %d pages of %d", len(files), len(pages))
	}
}

// handSVG uses what Vega's SVG may hold beyond the test charts: arcs,
// circles, quadratic curves, dashes, a gradient, a hidden element, and
// labels in Greek and rotated.
const handSVG = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200" viewBox="0 0 300 200">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#fff"/><stop offset="100%" stop-color="rgb(0,0,128)"/></linearGradient></defs>
<g transform="translate(10,10)" fill="none">
<path d="M50,50L50,0A50,50,0,0,1,100,50Z" fill="#e45756"/>
<circle cx="150" cy="50" r="30" fill="steelblue" fill-opacity="0.5" stroke="#000"/>
<path d="M200,80Q230,0 260,80T290,80" stroke="#4c78a8" stroke-width="2" stroke-dasharray="4,2"/>
<rect x="0" y="120" width="200" height="20" fill="url(#g)"/>
<rect x="0" y="150" width="50" height="20" fill="red" display="none"/>
<text x="0" y="180" font-size="12px" fill="#000">Région Ελλάδα</text>
<text transform="translate(250,180) rotate(-45)" text-anchor="end" font-size="10" font-weight="bold" fill="#333">tilted label</text>
</g></svg>`

// Malformed input still gives a document: a chart whose SVG is not XML is
// named in its place; raw HTML in the text is not drawn.
func TestWriteBadInput(t *testing.T) {
	path := write(t, pdf.Document{Title: "", Markdown: "# T\n\nBAD\n\n<script>alert(1)</script>\n\nafter\x00nul",
		Figures: map[string]pdf.Figure{"BAD": {SVG: []byte("<svg width='10' height='10'><path d='M0,0 L10,Q zz'/></svg"), Caption: "Figure 1. X"}}})
	all := strings.Join(pdftest.Pages(t, path), "")
	if strings.Contains(all, "alert") || !strings.Contains(all, "after") {
		t.Errorf("text:\n%s", all)
	}
	if !strings.Contains(all, "Figure 1. X") {
		t.Errorf("the figure's caption is missing:\n%s", all)
	}
}
