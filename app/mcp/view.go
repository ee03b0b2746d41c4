package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/tools"
)

// view is what the client reads of a tool's result: its text for the
// model, except at the schema level, where no value of the data may be
// sent. There, as Loupe's agent does (agent/schemaonly.go), a result is
// sent as its structure: a table's shape, a chart's mark and size, a
// table's columns from the catalog; a tool whose output is neither sends
// only that it ran. The gate checks what is sent on top of this.
func (s *Server) view(ctx context.Context, spec tools.Spec, args json.RawMessage, res tools.Result) string {
	if s.cfg.Gate.Level() != privacy.Schema {
		return res.ForModel
	}
	switch {
	case res.Failed, spec.SchemaLevel == tools.SchemaStructure:
		return res.ForModel
	case spec.SchemaLevel == tools.SchemaDescribe:
		return s.describe(ctx, args)
	case res.Display.Kind == tools.KindTable && res.Display.Table != nil:
		return shape(res.Display.Table)
	case res.Display.Kind == tools.KindChart && res.Display.Chart != nil:
		ch := res.Display.Chart
		return fmt.Sprintf("A %s chart of %d rows was drawn in Loupe; at the schema privacy level its picture and data are not sent.", ch.Mark, ch.Rows)
	}
	return fmt.Sprintf("%s ran; at the schema privacy level its output (which may hold values) is not sent. Count or aggregate with run_sql to learn a result's shape.", spec.Name)
}

// shape is a result's columns and row count.
func shape(t *tools.Table) string {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = c.Name + " " + c.Type
	}
	return fmt.Sprintf("%d columns (%s), %d rows. At the schema privacy level the values are not sent.", len(cols), strings.Join(cols, ", "), t.Rows)
}

// describe is the schema of the table args name, from the catalog.
func (s *Server) describe(ctx context.Context, args json.RawMessage) string {
	var a struct {
		Table string `json:"table"`
	}
	_ = json.Unmarshal(args, &a)
	ds, err := s.cfg.Source.Catalog.Datasets(ctx)
	if err == nil {
		for _, d := range ds {
			if strings.EqualFold(d.Name, strings.Trim(a.Table, `"`)) {
				return schemaText(d)
			}
		}
	}
	return fmt.Sprintf("No table %q: call list_tables for the names.", a.Table)
}
