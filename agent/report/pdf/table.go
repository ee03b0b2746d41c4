package pdf

import (
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

func asTable(n ast.Node) (*east.Table, bool) {
	t, ok := n.(*east.Table)
	return t, ok
}

func asCheckBox(n ast.Node) (checked, ok bool) {
	c, ok := n.(*east.TaskCheckBox)
	if !ok {
		return false, false
	}
	return c.IsChecked, true
}

// grid is a table's text, cell by cell.
type grid struct {
	header []string
	rows   [][]string
	align  []east.Alignment
}

func (l *layout) gridOf(t *east.Table) grid {
	g := grid{align: t.Alignments}
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, l.fonts.clean(plainText(c, l.src)))
		}
		if _, ok := r.(*east.TableHeader); ok {
			g.header = cells
		} else {
			g.rows = append(g.rows, cells)
		}
	}
	return g
}

// table draws a table: a bold header row on grey, rows with thin rules,
// numbers aligned right as the markdown says, cells wrapped to their
// column. A row never splits; rows that do not fit go to the next page
// under the header row drawn again.
func (l *layout) table(t *east.Table) {
	g := l.gridOf(t)
	n := len(g.header)
	if n == 0 {
		return
	}
	widths := l.columnWidths(g)
	l.ensure(2 * (tableLine + 2*cellPad))
	l.row(g.header, widths, g.align, true)
	for i, r := range g.rows {
		h := l.rowHeight(r, widths, false)
		if l.p.GetY()+h > l.bottom() {
			l.p.AddPage()
			l.row(g.header, widths, g.align, true)
		}
		if i%2 == 1 {
			l.p.SetFillColor(248, 248, 250)
			l.p.Rect(margin, l.p.GetY(), sum(widths), h, "F")
		}
		l.row(r, widths, g.align, false)
	}
	l.p.Ln(bodyLine * 0.5)
}

// columnWidths gives each column its content's width when all fit, and
// otherwise shares the text width so that narrow columns keep theirs and
// wide ones wrap.
func (l *layout) columnWidths(g grid) []float64 {
	n := len(g.header)
	want := make([]float64, n)
	measure := func(cells []string, bold bool) {
		style := ""
		if bold {
			style = "B"
		}
		l.p.SetFont(sans, style, tableSize)
		for i := 0; i < n && i < len(cells); i++ {
			want[i] = max(want[i], l.p.GetStringWidth(cells[i])+2*cellPad+1)
		}
	}
	measure(g.header, true)
	for _, r := range g.rows {
		measure(r, false)
	}
	if sum(want) <= l.width {
		return want
	}
	out := make([]float64, n)
	left, open := l.width, n
	done := make([]bool, n)
	for changed := true; changed; { // columns narrower than a fair share keep their width
		changed = false
		for i := range want {
			if !done[i] && want[i] <= left/float64(open) {
				out[i], done[i] = want[i], true
				left -= want[i]
				open--
				changed = true
			}
		}
	}
	var rest float64
	for i := range want {
		if !done[i] {
			rest += want[i]
		}
	}
	for i := range want {
		if !done[i] {
			out[i] = left * want[i] / rest
		}
	}
	return out
}

func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

func (l *layout) cellLines(s string, w float64) []string {
	if s == "" {
		return []string{""}
	}
	lines := l.p.SplitText(s, w-2*cellPad+2*l.p.GetCellMargin()) // SplitText takes the cell margin off again
	if len(lines) == 0 {
		return []string{s}
	}
	return lines
}

func (l *layout) rowHeight(cells []string, widths []float64, header bool) float64 {
	style := ""
	if header {
		style = "B"
	}
	l.p.SetFont(sans, style, tableSize)
	lines := 1
	for i, w := range widths {
		if i < len(cells) {
			lines = max(lines, len(l.cellLines(cells[i], w)))
		}
	}
	return float64(lines)*tableLine + 2*cellPad
}

// row draws one row at the current position and moves below it.
func (l *layout) row(cells []string, widths []float64, align []east.Alignment, header bool) {
	h := l.rowHeight(cells, widths, header)
	y := l.p.GetY()
	total := sum(widths)
	if header {
		l.p.SetFillColor(236, 238, 242)
		l.p.Rect(margin, y, total, h, "F")
	}
	style := ""
	if header {
		style = "B"
	}
	l.p.SetFont(sans, style, tableSize)
	x := margin
	for i, w := range widths {
		var s string
		if i < len(cells) {
			s = cells[i]
		}
		right := i < len(align) && align[i] == east.AlignRight
		center := i < len(align) && align[i] == east.AlignCenter
		for j, line := range l.cellLines(s, w) {
			lw := l.p.GetStringWidth(line)
			tx := x + cellPad
			switch {
			case right:
				tx = x + w - cellPad - lw
			case center:
				tx = x + (w-lw)/2
			}
			l.p.Text(tx, y+cellPad+float64(j)*tableLine+tableSize*0.95, line)
		}
		x += w
	}
	l.p.SetDrawColor(210, 212, 218)
	l.p.SetLineWidth(0.5)
	if header {
		l.p.SetDrawColor(150, 150, 160)
	}
	l.p.Line(margin, y+h, margin+total, y+h)
	l.p.SetXY(margin, y+h)
}
