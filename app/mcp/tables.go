package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/tools/search"
)

var listTablesTool = &mcp.Tool{
	Name: "list_tables",
	Description: "List the user's tables with their row and column counts and the user's notes. " +
		"With a query (a few words: \"refunds by store\"), rank the tables that match it instead, with their matching columns.",
	InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"query": map[string]any{"type": "string", "description": "what the data should be about; omit to list every table"},
			"k":     map[string]any{"type": "integer", "minimum": 1, "maximum": 50, "description": "how many tables to rank (default 10)"},
		},
		"additionalProperties": false,
	},
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
}

// maxListed bounds the tables list_tables names without a query.
const maxListed = 200

func (s *Server) listTables(ctx context.Context, _ *mcp.CallToolRequest, raw json.RawMessage) (*reply, error) {
	var a struct {
		Query string `json:"query"`
		K     int    `json:"k"`
	}
	if len(raw) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return failure(`list_tables takes {"query": "a few words", "k": 10}, both optional: ` + err.Error()), nil
		}
	}
	if a.K < 0 || a.K > 50 {
		return failure("k must be between 1 and 50."), nil
	}
	if a.K == 0 {
		a.K = 10
	}
	ds, err := s.cfg.Source.Catalog.Datasets(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the tables: %w", err)
	}
	if strings.TrimSpace(a.Query) == "" {
		return &reply{texts: []string{listText(ds)}}, nil
	}
	matches, err := search.Tables(ctx, s.cfg.Source.Catalog, s.cfg.Source.Index, a.Query, a.K)
	if err != nil {
		return nil, fmt.Errorf("search the tables: %w", err)
	}
	return &reply{texts: []string{matchText(a.Query, matches, byName(ds))}}, nil
}

func byName(ds []catalog.Dataset) map[string]catalog.Dataset {
	m := make(map[string]catalog.Dataset, len(ds))
	for _, d := range ds {
		m[d.Name] = d
	}
	return m
}

// listText names every table (up to maxListed) with its note.
func listText(ds []catalog.Dataset) string {
	if len(ds) == 0 {
		return "No tables are loaded. The user loads files in Loupe (or with `loupe load FILE`)."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d tables:\n", len(ds))
	for i, d := range ds {
		if i == maxListed {
			fmt.Fprintf(&b, "… and %d more: call list_tables with a query to find the ones a question needs.\n", len(ds)-maxListed)
			break
		}
		fmt.Fprintf(&b, "- %s: %d rows, %d columns", d.Name, d.Rows, len(d.Columns))
		if n := oneLine(d.Description()); n != "" {
			fmt.Fprintf(&b, " — %s", n)
		}
		b.WriteString("\n")
	}
	b.WriteString("describe_table gives a table's columns; the resource loupe://tables/NAME its schema and notes.")
	return b.String()
}

// matchText is the ranked tables with their notes and matching columns.
func matchText(query string, ms []search.TableMatch, ds map[string]catalog.Dataset) string {
	if len(ms) == 0 {
		return fmt.Sprintf("No table matches %q. Try other words, or list_tables without a query.", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Tables matching %q, best first:\n", query)
	for i, m := range ms {
		fmt.Fprintf(&b, "%d. %s (%d rows)", i+1, m.Table, m.Rows)
		if n := oneLine(ds[m.Table].Description()); n != "" {
			fmt.Fprintf(&b, " — %s", n)
		}
		b.WriteString("\n")
		for _, c := range m.Columns {
			fmt.Fprintf(&b, "   %s %s\n", c.Name, c.Type)
		}
	}
	return b.String()
}

// schemaText is a table's schema and notes: names, types and notes only,
// never a value (the resource loupe://tables/NAME).
func schemaText(d catalog.Dataset) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%d rows, %d columns", d.Name, d.Rows, len(d.Columns))
	if d.Kind != "" {
		fmt.Fprintf(&b, " (from a %s file)", d.Kind)
	}
	b.WriteString("\n")
	if n := strings.TrimSpace(d.Description()); n != "" {
		fmt.Fprintf(&b, "\nNote: %s\n", n)
	}
	b.WriteString("\n| column | type | note |\n|---|---|---|\n")
	for _, c := range d.Columns {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Name, c.Type, strings.ReplaceAll(oneLine(c.Description()), "|", "\\|"))
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
