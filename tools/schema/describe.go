package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/args"
)

// valueRunes is how much of a top or sample value is shown.
const valueRunes = 40

// DescribeTable is describe_table.
type DescribeTable struct{ cat Catalog }

var _ tools.Tool = (*DescribeTable)(nil)

// NewDescribeTable returns describe_table over cat.
func NewDescribeTable(cat Catalog) *DescribeTable { return &DescribeTable{cat: cat} }

var describeParams = args.Params{Tool: "describe_table", List: []args.Param{
	{Name: "table", Type: args.String, Required: true, Doc: "dataset name", Aliases: []string{"table_name", "name", "dataset"}},
}}

// Spec describes describe_table to the model.
func (t *DescribeTable) Spec() tools.Spec {
	return tools.Spec{
		Name: "describe_table",
		Description: "Show a dataset's columns with type, nulls, distinct count, range, frequent values and examples. " +
			"Use it before writing SQL on a table you have not seen.",
		Parameters:  describeParams.Schema(),
		Guidance:    tools.Guidance{Stage: tools.StageExplore, Text: "When unsure of a table's columns or values, call describe_table before writing SQL."},
		Aliases:     []string{"describe", "getschema", "tableschema", "gettableschema", "getdetailedschema", "schema", "describetables"},
		Example:     json.RawMessage(`{"table": "orders"}`),
		Evidence:    tools.EvidenceNone,
		SchemaLevel: tools.SchemaDescribe,
		View:        tools.View{Icon: "eye", Doing: "Looking at table[ {table}]", Did: "Looked at table[ {table}]"},
	}
}

// Run describes the table in args ({"table": …}).
func (t *DescribeTable) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Table string `json:"table"`
	}
	if err := describeParams.Decode(raw, &a); err != nil {
		return describeParams.Failure(err), nil
	}
	d, fail, err := find(ctx, t.cat, a.Table)
	if err != nil {
		return tools.Result{}, fmt.Errorf("describe_table: %w", err)
	}
	if fail != nil {
		return *fail, nil
	}
	text := describe(d)
	data, err := json.Marshal(d)
	if err != nil {
		return tools.Result{}, fmt.Errorf("describe_table: encode: %w", err)
	}
	return tools.Result{
		ForModel: text,
		Summary:  fmt.Sprintf("%s: %s", d.Name, plural(int64(len(d.Columns)), "column", "columns")),
		Display:  tools.Display{Kind: tools.KindText, Text: text, Data: data},
	}, nil
}

// describe renders a dataset: its note, if any, then one line per column
// (with the column's note after a dash):
//
//   - region VARCHAR: 4 distinct; top: "South" (12), "North" (10)
//   - order_date DATE: 2 nulls (5%), 38 distinct, 2024-01-02 … 2024-06-29
func describe(d catalog.Dataset) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s, from %s (%s). Distinct counts are approximate.\n",
		d.Name, plural(d.Rows, "row", "rows"), plural(int64(len(d.Columns)), "column", "columns"), filepath.Base(d.Source), source(d))
	if note := d.Description(); note != "" {
		b.WriteString("Note: " + oneLine(note) + "\n")
	}
	for _, c := range d.Columns {
		b.WriteString("- " + c.Name + " " + c.Type + ": " + stats(c, d.Rows))
		if note := c.Description(); note != "" {
			b.WriteString(" — " + oneLine(note))
		}
		b.WriteString("\n")
	}
	for _, w := range d.Warnings {
		b.WriteString("Warning: " + w + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func stats(c catalog.Column, rows int64) string {
	var parts []string
	if c.Nulls > 0 {
		p := fmt.Sprintf("%d nulls", c.Nulls)
		if rows > 0 {
			p += fmt.Sprintf(" (%.3g%%)", 100*float64(c.Nulls)/float64(rows))
		}
		parts = append(parts, p)
	}
	if c.Nulls == rows && rows > 0 {
		return "all null"
	}
	parts = append(parts, fmt.Sprintf("%d distinct", c.Distinct))
	text := isText(c.Type)
	if c.Min != nil && c.Max != nil && !text {
		parts = append(parts, *c.Min+" … "+*c.Max)
	}
	out := strings.Join(parts, ", ")
	switch {
	case len(c.Top) > 0 && c.Top[0].Count > 1: // all-unique "top" values say nothing
		vals := make([]string, len(c.Top))
		for i, v := range c.Top {
			vals[i] = fmt.Sprintf("%s (%d)", show(v.Value, text), v.Count)
		}
		out += "; top: " + strings.Join(vals, ", ")
	case len(c.Samples) > 0:
		vals := make([]string, len(c.Samples))
		for i, v := range c.Samples {
			vals[i] = show(v, text)
		}
		out += "; e.g. " + strings.Join(vals, ", ")
	}
	return out
}

// oneLine puts a note (the user's, else the source's comment) on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func isText(typ string) bool {
	return typ == "VARCHAR" || strings.HasPrefix(typ, "VARCHAR(") || typ == "TEXT" || typ == "STRING"
}

// show prints a value, quoted when it is text, cut to valueRunes.
func show(v string, text bool) string {
	if utf8.RuneCountInString(v) > valueRunes {
		v = string([]rune(v)[:valueRunes-1]) + "…"
	}
	if text {
		return fmt.Sprintf("%q", v)
	}
	return v
}
