// Package pdf lays out a report as printable A4 pages without a browser:
// its markdown (CommonMark with GitHub tables) as text with headings,
// lists, emphasis, code and tables, and its charts — SVG as Vega draws
// them — as vector paths and real text. It runs in the CLI as well as in
// the window, and draws the same bytes in both.
//
// Pages: the title opens the first page; each second-level section after
// the first starts a new page; a figure is never split (it moves to the
// next page, shrunk to fit if taller than a page); a table that does not
// fit continues on the next page under its header row, repeated; every
// page has a footer with the title and "page N of M".
//
// Text is drawn in DejaVu Sans, embedded (Latin, Greek, Cyrillic and
// their accents). Characters it has no glyph for — CJK among them — are
// drawn as □: the PDF never fails for them, but the reader needs the
// Markdown or HTML export to read them.
package pdf

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Document is what Write lays out.
type Document struct {
	Title   string
	Author  string // the PDF's author and creator field, e.g. "Loupe 1.4.0"
	Created time.Time
	// Markdown is the text. A paragraph consisting only of a key of
	// Figures is replaced by that figure.
	Markdown string
	Figures  map[string]Figure
}

// Figure is a chart: its SVG (nil when it could not be drawn, Missing
// then says why) and its caption.
type Figure struct {
	SVG     []byte
	Caption string
	Missing string
}

// Page geometry, in PDF points (1/72 in): A4 with 2 cm margins.
const (
	margin     = 56.0
	footerGap  = 30.0
	bodySize   = 10.5
	bodyLine   = 14.5
	tableSize  = 8.5
	tableLine  = 11.0
	cellPad    = 4.0
	codeSize   = 8.5
	codeLine   = 11.0
	listIndent = 16.0
	pxToPt     = 0.75 // a CSS pixel is 3/4 of a point
	// figureMaxPage is the share of a page's text height a figure may take.
	figureMaxPage = 0.72
)

// md parses like the report's HTML export does: CommonMark plus GitHub's
// tables, strikethrough, autolinks and task lists.
var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// Write lays d out and writes the PDF to w. An error means w holds no
// usable document.
func Write(w io.Writer, d Document) error {
	p := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", SizeStr: "A4", OrientationStr: "P"})
	p.SetMargins(margin, margin, margin)
	p.SetAutoPageBreak(true, margin)
	p.SetTitle(d.Title, true)
	p.SetAuthor(d.Author, true)
	p.SetCreator(d.Author, true)
	if !d.Created.IsZero() {
		p.SetCreationDate(d.Created)
		p.SetModificationDate(d.Created)
	}
	l := &layout{p: p, fonts: newFontSet(p), src: []byte(d.Markdown), figures: d.Figures}
	p.AliasNbPages("{nb}")
	p.SetFooterFunc(l.footer(d.Title))
	p.AddPage()
	pw, _ := p.GetPageSize()
	l.width = pw - 2*margin
	doc := md.Parser().Parse(text.NewReader(l.src))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		l.block(n, 0)
	}
	if err := p.Error(); err != nil {
		return fmt.Errorf("lay out the PDF: %w", err)
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		return fmt.Errorf("write the PDF: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// layout is the state of one document being laid out.
type layout struct {
	p        *fpdf.Fpdf
	fonts    *fontSet
	src      []byte
	figures  map[string]Figure
	width    float64 // the text width
	sections int     // second-level headings seen
}

func (l *layout) footer(title string) func() {
	return func() {
		l.p.SetY(-margin + footerGap/2)
		l.p.SetFont(sans, "", 8)
		l.p.SetTextColor(120, 120, 120)
		pageNo := fmt.Sprintf("page %d of {nb}", l.p.PageNo())
		nw := l.p.GetStringWidth(pageNo) + 4
		l.p.CellFormat(l.width-nw, 10, l.fit(l.fonts.clean(title), l.width-nw-8), "", 0, "L", false, 0, "")
		l.p.CellFormat(nw, 10, pageNo, "", 0, "R", false, 0, "")
		l.p.SetTextColor(0, 0, 0)
	}
}

// fit shortens s with an ellipsis to fit width in the current font.
func (l *layout) fit(s string, width float64) string {
	if l.p.GetStringWidth(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && l.p.GetStringWidth(string(r)+"…") > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// bottom is the lowest y text may reach on a page.
func (l *layout) bottom() float64 {
	_, h := l.p.GetPageSize()
	return h - margin
}

// ensure starts a new page unless h points fit below the current position.
func (l *layout) ensure(h float64) {
	if l.p.GetY()+h > l.bottom() {
		l.p.AddPage()
	}
}

func (l *layout) atTop() bool { return l.p.GetY() <= margin+1 }

// block lays out one block node at list depth depth.
func (l *layout) block(n ast.Node, depth int) {
	switch n := n.(type) {
	case *ast.Heading:
		l.heading(n)
	case *ast.Paragraph:
		if f, ok := l.figureOf(n); ok {
			l.figure(f)
			return
		}
		l.paragraph(n, 0)
	case *ast.TextBlock:
		l.paragraph(n, 0)
	case *ast.List:
		l.list(n, depth)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		l.code(n)
	case *ast.Blockquote:
		left, _, _, _ := l.p.GetMargins()
		l.p.SetLeftMargin(left + listIndent)
		l.p.SetTextColor(90, 90, 90)
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			l.block(c, depth)
		}
		l.p.SetTextColor(0, 0, 0)
		l.p.SetLeftMargin(left)
		l.p.SetX(left)
	case *ast.ThematicBreak:
		l.ensure(12)
		y := l.p.GetY() + 4
		l.p.SetDrawColor(200, 200, 200)
		l.p.SetLineWidth(0.5)
		l.p.Line(margin, y, margin+l.width, y)
		l.p.SetY(y + 8)
	case *ast.HTMLBlock:
		// raw HTML in the model's text is not rendered (as in the HTML export)
	default:
		if t, ok := asTable(n); ok {
			l.table(t)
			return
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			l.block(c, depth)
		}
	}
}

func (l *layout) heading(n *ast.Heading) {
	size := map[int]float64{1: 20, 2: 15, 3: 12.5}[n.Level]
	if size == 0 {
		size = 11
	}
	if n.Level == 2 {
		l.sections++
		if l.sections > 1 && !l.atTop() {
			l.p.AddPage()
		}
	}
	// keep a heading with the start of what follows it
	l.ensure(size*1.4 + 3*bodyLine)
	if !l.atTop() {
		l.p.Ln(size * 0.6)
	}
	title := l.fonts.clean(plainText(n, l.src))
	if n.Level <= 3 {
		l.p.Bookmark(title, n.Level-1, -1)
	}
	l.p.SetFont(sans, "B", size)
	l.p.SetX(margin)
	l.p.MultiCell(l.width, size*1.3, title, "", "L", false)
	l.p.Ln(size * 0.3)
}

// paragraph writes an inline container's text, wrapped, from the current
// left margin; first is an extra indent of its first line (list markers).
func (l *layout) paragraph(n ast.Node, first float64) {
	left, _, _, _ := l.p.GetMargins()
	l.ensure(bodyLine)
	l.p.SetX(left + first)
	l.inline(n, inlineStyle{})
	l.p.Ln(bodyLine)
	if _, inList := n.Parent().(*ast.ListItem); !inList || n.NextSibling() != nil {
		l.p.Ln(bodyLine * 0.4)
	}
}

func (l *layout) list(n *ast.List, depth int) {
	left, _, _, _ := l.p.GetMargins()
	indent := left + listIndent
	l.p.SetLeftMargin(indent)
	i := n.Start
	if i == 0 {
		i = 1
	}
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "•"
		if depth%2 == 1 {
			marker = "◦"
		}
		if n.IsOrdered() {
			marker = fmt.Sprintf("%d.", i)
			i++
		}
		l.ensure(bodyLine)
		l.p.SetFont(sans, "", bodySize)
		mw := l.p.GetStringWidth(marker)
		y := l.p.GetY()
		l.p.Text(indent-mw-4, y+bodyLine*0.72, marker)
		l.p.SetXY(indent, y)
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Paragraph, *ast.TextBlock:
				l.paragraph(c, 0)
			case *ast.List:
				l.list(c, depth+1)
			default:
				l.block(c, depth+1)
			}
		}
	}
	l.p.SetLeftMargin(left)
	l.p.SetX(left)
	if depth == 0 {
		l.p.Ln(bodyLine * 0.4)
	}
}

// code writes a code block in a monospaced font on a grey background.
func (l *layout) code(n ast.Node) {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(l.src))
	}
	s := l.fonts.clean(strings.TrimRight(strings.ReplaceAll(b.String(), "\t", "    "), "\n"))
	left, _, _, _ := l.p.GetMargins()
	l.ensure(codeLine * min(4, float64(strings.Count(s, "\n")+1)))
	l.p.SetFont(mono, "", codeSize)
	l.p.SetFillColor(244, 244, 246)
	l.p.SetX(left)
	l.p.SetCellMargin(6)
	l.p.MultiCell(l.width-(left-margin), codeLine, s, "", "L", true)
	l.p.SetCellMargin(2)
	l.p.Ln(bodyLine * 0.5)
}

// figureOf reports whether a paragraph is a figure's key alone.
func (l *layout) figureOf(n *ast.Paragraph) (Figure, bool) {
	if len(l.figures) == 0 {
		return Figure{}, false
	}
	f, ok := l.figures[strings.TrimSpace(plainText(n, l.src))]
	return f, ok
}

// figure draws a chart centred, scaled to fit the text width and at most
// figureMaxPage of a page's height, on one page, with its caption.
func (l *layout) figure(f Figure) {
	var root *svgNode
	var err error
	if f.SVG != nil {
		root, err = parseSVG(f.SVG)
	}
	if f.SVG == nil || err != nil {
		why := f.Missing
		if err != nil {
			why = err.Error()
		}
		l.caption(f.Caption + " — the chart could not be drawn (" + why + "); its query is in the appendix.")
		return
	}
	w, h := svgSize(root)
	if w <= 0 || h <= 0 {
		l.caption(f.Caption + " — the chart has no size.")
		return
	}
	_, ph := l.p.GetPageSize()
	maxH := (ph - 2*margin) * figureMaxPage
	k := pxToPt
	if w*k < l.width/2 { // a small chart (a heat map of a few cells) is drawn larger, up to 2×
		k = min(l.width/2/w, 2*pxToPt)
	}
	k = min(k, l.width/w, maxH/h)
	l.ensure(h*k + 2*bodyLine)
	x, y := margin+(l.width-w*k)/2, l.p.GetY()+4
	drawSVG(l.p, l.fonts, root, x, y, k)
	l.p.SetY(y + h*k + 4)
	l.caption(f.Caption)
}

func (l *layout) caption(s string) {
	l.p.SetFont(sans, "I", 9)
	l.p.SetTextColor(80, 80, 80)
	l.p.SetX(margin)
	l.p.MultiCell(l.width, 12, l.fonts.clean(s), "", "C", false)
	l.p.SetTextColor(0, 0, 0)
	l.p.Ln(bodyLine * 0.6)
}

// plainText is the text of n's inline descendants.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.WriteString(textOf(c, src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if tx, ok := t.(*ast.Text); ok {
					b.Write(tx.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
