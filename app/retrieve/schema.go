package retrieve

import (
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/data/catalog"
)

// Schema describes datasets for the agent's prompt: names, row counts,
// columns with types, a few top values of low-cardinality columns (else
// samples) and the range of numbers and dates.
func Schema(ds []catalog.Dataset) agent.Schema {
	s := agent.Schema{Dialect: "DuckDB"}
	for _, d := range ds {
		t := agent.Table{Name: d.Name, Rows: d.Rows, Source: filepath.Base(d.Source), Description: clipTo(d.Description(), tableNoteChars)}
		if d.Part != "" {
			t.Source += " (" + d.Part + ")"
		}
		for _, c := range d.Columns {
			t.Columns = append(t.Columns, column(c))
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

func column(c catalog.Column) agent.Column {
	out := agent.Column{Name: c.Name, Type: c.Type, Description: clipTo(c.Description(), columnNoteChars)}
	switch {
	case len(c.Top) > 0:
		for i, v := range c.Top {
			if i == 4 {
				out.Samples = append(out.Samples, "…")
				break
			}
			out.Samples = append(out.Samples, clip(v.Value))
		}
	case c.Min != nil && c.Max != nil && rangeType(c.Type):
		out.Range = clip(*c.Min) + " to " + clip(*c.Max)
	default:
		for i, v := range c.Samples {
			if i == 3 {
				break
			}
			out.Samples = append(out.Samples, clip(v))
		}
	}
	return out
}

func rangeType(typ string) bool {
	t := strings.ToUpper(typ)
	for _, p := range []string{"INT", "DOUBLE", "FLOAT", "DECIMAL", "REAL", "DATE", "TIME", "NUMERIC", "HUGEINT", "UBIGINT", "BIGINT", "SMALLINT", "TINYINT"} {
		if strings.HasPrefix(t, p) || strings.HasPrefix(t, "U"+p) {
			return true
		}
	}
	return false
}

// tableNoteChars and columnNoteChars bound how much of a note (or a
// source's comment) the prompt shows: notes may hold up to
// catalog.MaxNote characters, the prompt's data section has a budget.
const (
	tableNoteChars  = 400
	columnNoteChars = 160
)

// clip shortens a value for the prompt.
func clip(s string) string { return clipTo(s, 30) }

// clipTo shortens s to max characters, on one line.
func clipTo(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}
