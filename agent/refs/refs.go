// Package refs fills the value references a model writes at the schema
// privacy level — {{q2.total[0]}} (column total, row 0 of result q2),
// {{q2}} (the whole result, as a capped markdown table) and {{c1}} (a
// chart) — with the real values, locally, before the user sees the text.
// A reference that does not resolve becomes a visible marker
// ("[unknown reference q9.total[0]]"), never a guess.
package refs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MaxTableRows caps the rows a {{qN}} reference fills in.
const MaxTableRows = 20

// Table is one result a reference can name: its column names and the rows
// held locally (the first rows of the result).
type Table struct {
	Columns []string
	Rows    [][]any
	Total   int64 // rows of the whole result (≥ len(Rows))
}

// Results are what a run produced, by ref: tables ("q2") and charts ("c1").
type Results struct {
	Tables map[string]Table
	Charts map[string]bool
}

// refRe matches {{q2}}, {{c1}}, {{q2.total[0]}} and {{ q2."Total Sales"[3] }};
// {{chart:c1}} and {{table:q2}} are the report's placeholders and are left
// to it.
var refRe = regexp.MustCompile(`\{\{\s*([qc]\d+)(?:\.(?:"([^"]+)"|([^\[\]{}\s"]+))\s*\[\s*(\d+)\s*\])?\s*\}\}`)

// Cell is the reference to column col, row row of result ref, quoting
// the column name when it needs it ({{q2."Total Sales"[0]}}).
func Cell(ref, col string, row int) string {
	if strings.ContainsAny(col, "[]{} \t\n\"") {
		col = `"` + strings.ReplaceAll(col, `"`, "") + `"`
	}
	return fmt.Sprintf("{{%s.%s[%d]}}", ref, col, row)
}

// Has reports whether text holds at least one value reference.
func Has(text string) bool { return refRe.MatchString(text) }

// Fill replaces every reference in text with what it names in rs.
func Fill(text string, rs Results) string { return fill(text, rs, true) }

// FillCells replaces only the cell references ({{q2.total[0]}}), leaving
// {{q2}} and {{c1}} to a caller that places whole tables and charts
// itself (the report).
func FillCells(text string, rs Results) string { return fill(text, rs, false) }

func fill(text string, rs Results, wholes bool) string {
	return refRe.ReplaceAllStringFunc(text, func(m string) string {
		p := refRe.FindStringSubmatch(m)
		ref, col, row := p[1], p[2]+p[3], p[4]
		if col == "" {
			if !wholes {
				return m
			}
			return whole(ref, rs)
		}
		label := fmt.Sprintf("%s.%s[%s]", ref, col, row)
		t, ok := rs.Tables[ref]
		i, err := strconv.Atoi(row)
		c := column(t.Columns, col)
		if !ok || err != nil || c < 0 || i >= len(t.Rows) || c >= len(t.Rows[i]) {
			return unknown(label)
		}
		return Format(t.Rows[i][c])
	})
}

func unknown(label string) string { return "[unknown reference " + label + "]" }

// whole fills {{qN}} with a markdown table and {{cN}} with a pointer to
// the chart the user sees beside the answer.
func whole(ref string, rs Results) string {
	if strings.HasPrefix(ref, "c") {
		if rs.Charts[ref] {
			return "(chart " + ref + ")"
		}
		return unknown(ref)
	}
	t, ok := rs.Tables[ref]
	if !ok {
		return unknown(ref)
	}
	return Markdown(t)
}

// column is the index of name in cols (case-insensitively), or -1.
func column(cols []string, name string) int {
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	for i, c := range cols {
		if strings.EqualFold(c, name) {
			return i
		}
	}
	return -1
}

// Markdown renders t as a markdown table of at most MaxTableRows rows,
// saying how many more there are.
func Markdown(t Table) string {
	var b strings.Builder
	b.WriteString("\n\n| " + strings.Join(escapeAll(t.Columns), " | ") + " |\n|")
	for range t.Columns {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	n := min(len(t.Rows), MaxTableRows)
	for _, row := range t.Rows[:n] {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = escape(Format(v))
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	if more := max(t.Total, int64(len(t.Rows))) - int64(n); more > 0 {
		fmt.Fprintf(&b, "\n(%d more rows)\n", more)
	}
	return b.String() + "\n"
}

func escapeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = escape(s)
	}
	return out
}

func escape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// Format writes a cell as the user reads it: whole numbers without a
// decimal point, others in their shortest form, NULL for nothing.
func Format(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	case string:
		return x
	}
	return fmt.Sprint(v)
}
