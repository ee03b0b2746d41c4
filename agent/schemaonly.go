package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/loupeapp/loupe/agent/refs"
	"github.com/loupeapp/loupe/tools"
)

// At the schema privacy level (Config.SchemaOnly) no cell value of the
// user's data is put in a message to the model: the system prompt drops
// samples and ranges, and each tool result reaches the model only as its
// shape and reference (view). The model writes references
// ({{q2.total[0]}}, {{q2}}, {{c1}}) that the answer fills in locally
// (refs.Fill). What is kept from a tool's output is decided here, by the
// tool's Spec.SchemaLevel (structure only, sent as is; or described from
// the schema) and otherwise by the kind of result: a tool whose result is
// neither a table nor a chart sends nothing but the fact that it ran.

// withoutValues is s without samples, top values and ranges.
func withoutValues(s Schema) Schema {
	out := s
	out.Tables = make([]Table, len(s.Tables))
	for i, t := range s.Tables {
		cols := make([]Column, len(t.Columns))
		for j, c := range t.Columns {
			cols[j] = Column{Name: c.Name, Type: c.Type, Description: c.Description}
		}
		t.Columns = cols
		out.Tables[i] = t
	}
	return out
}

// schemaRules is the system prompt's addition at the schema level.
const schemaRules = `
## Privacy: you never see values
The user chose the schema privacy level: you see names, types, notes, row counts and the shape of each result, never a value. Tool results say how many rows and which columns a result has, not what is in them. Write every value in your answer as a reference that Loupe fills in for the user:
- {{q2.total[0]}} is column total of row 0 of result q2 (rows in the query's order, so ORDER BY what matters and put the row you need first);
- {{q2}} is the whole result q2 as a table; {{c1}} is chart c1.
Compute each number you need with SQL (one row, named columns) and refer to it; never guess or invent a value, and do not filter on values you have not been told by the user.
`

// view is what the model reads of res at the schema level.
func (r *run) view(ref string, call string, spec tools.Spec, args json.RawMessage, res tools.Result) string {
	switch {
	case res.Failed:
		return "The call failed: " + redactError(res.ForModel, r.in.Schema)
	case spec.SchemaLevel == tools.SchemaStructure:
		return res.ForModel
	case spec.SchemaLevel == tools.SchemaDescribe:
		return r.describe(args)
	case res.Display.Kind == tools.KindTable && res.Display.Table != nil:
		return resultShape(ref, res.Display.Table)
	case res.Display.Kind == tools.KindChart && res.Display.Chart != nil:
		return fmt.Sprintf("Chart %s was drawn for the user (%s, %d rows). Show it with {{%s}}.", ref, res.Display.Chart.Mark, res.Display.Chart.Rows, ref)
	}
	lines := strings.Count(strings.TrimSpace(res.ForModel), "\n") + 1
	if strings.TrimSpace(res.ForModel) == "" {
		lines = 0
	}
	return fmt.Sprintf("%s ran (%d lines of output, shown to the user only: its output may hold values, which the schema privacy level keeps from you). Compute what you need with %s and refer to it.", call, lines, r.reader.cat.queryTool().Name)
}

// resultShape is a result table's shape and how to refer to its values.
func resultShape(ref string, t *tools.Table) string {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = c.Name + " " + c.Type
	}
	s := fmt.Sprintf("%d columns (%s), %d rows.", len(cols), strings.Join(cols, ", "), t.Rows)
	if len(t.Columns) == 0 || t.Rows == 0 {
		return s + " The result is empty."
	}
	return s + fmt.Sprintf(" Values are not shown: refer to one as %s (column %s, row 0; rows 0 to %d can be referred to) or to the table as {{%s}}.",
		refs.Cell(ref, t.Columns[0].Name, 0), t.Columns[0].Name, max(len(t.Preview), 1)-1, ref)
}

// describe is describe_table's answer from the schema, without values.
func (r *run) describe(args json.RawMessage) string {
	var a map[string]any
	_ = json.Unmarshal(args, &a)
	want := ""
	for _, k := range []string{"table", "table_name", "name", "dataset"} {
		if s, ok := a[k].(string); ok {
			want = s
		}
	}
	for _, t := range withoutValues(r.in.Schema).Tables {
		if strings.EqualFold(t.Name, want) {
			var b strings.Builder
			writeTable(&b, t)
			return strings.TrimSpace(b.String()) + "\n(Statistics and sample values are not shown at the schema privacy level.)"
		}
	}
	return fmt.Sprintf("No table %q is described; the tables are listed in the system prompt.", want)
}

var (
	quotedValue = regexp.MustCompile(`'[^'\n]*'`)
	quotedName  = regexp.MustCompile(`"[^"\n]*"`)
	longNumber  = regexp.MustCompile(`(^|[^A-Za-z_\d])\d[\d.,:-]*`)
	sqlLine     = regexp.MustCompile(`^LINE \d+:`)
)

// redactError is a failure message with what may be a value taken out:
// single-quoted text, double-quoted text that is not a table or column
// name, and every number (the query's own line numbers are kept).
func redactError(msg string, s Schema) string {
	names := map[string]bool{}
	for _, t := range s.Tables {
		names[strings.ToLower(t.Name)] = true
		for _, c := range t.Columns {
			names[strings.ToLower(c.Name)] = true
		}
	}
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		head := ""
		if m := sqlLine.FindString(l); m != "" {
			head, l = m, l[len(m):]
		}
		l = quotedValue.ReplaceAllString(l, "'…'")
		var kept []string // names, set aside so their digits stay
		l = quotedName.ReplaceAllStringFunc(l, func(q string) string {
			if names[strings.ToLower(strings.Trim(q, `"`))] {
				kept = append(kept, q)
				return "\x00"
			}
			return `"…"`
		})
		l = longNumber.ReplaceAllString(l, "${1}#")
		for _, k := range kept {
			l = strings.Replace(l, "\x00", k, 1)
		}
		lines[i] = head + l
	}
	return strings.Join(lines, "\n") + "\n(Values in this message are hidden at the schema privacy level.)"
}

// results are the run's tables and charts, for refs.Fill.
func (r *run) results() refs.Results {
	rs := refs.Results{Tables: map[string]refs.Table{}, Charts: map[string]bool{}}
	for _, e := range r.evidence {
		switch {
		case e.Table != nil:
			t := refs.Table{Rows: e.Table.Preview, Total: e.Table.Rows}
			for _, c := range e.Table.Columns {
				t.Columns = append(t.Columns, c.Name)
			}
			rs.Tables[e.Ref] = t
		case e.Chart != nil:
			rs.Charts[e.Ref] = true
		}
	}
	return rs
}
