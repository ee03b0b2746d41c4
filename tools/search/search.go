// Package search holds the tools that reach past the tables in the
// prompt: search_schema (the schema index, for a workspace with more
// tables than the prompt can hold) and find_prior_query (the query memory,
// so that a follow-up adapts an earlier query instead of starting over).
package search

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/args"
)

// Catalog lists the loaded datasets (data/workspace's *Workspace).
type Catalog interface {
	Datasets(ctx context.Context) ([]catalog.Dataset, error)
}

// Index is the schema index (data/index's *Index).
type Index interface {
	Sync(ctx context.Context, origin string, tables []index.Table) (index.SyncStats, error)
	Search(ctx context.Context, question string, o index.Options) ([]index.Hit, error)
}

var _ Index = (*index.Index)(nil)

// Schema is search_schema.
type Schema struct {
	cat Catalog
	idx Index
}

var _ tools.Tool = (*Schema)(nil)

// NewSchema returns search_schema over the workspace's datasets.
func NewSchema(cat Catalog, idx Index) *Schema { return &Schema{cat: cat, idx: idx} }

var schemaParams = args.Params{Tool: "search_schema", List: []args.Param{
	{Name: "query", Type: args.String, Required: true, Doc: "what the data should be about, in words (e.g. \"refunds by store\")", Aliases: []string{"question", "q", "text", "keywords"}},
	{Name: "k", Type: args.Integer, Doc: "how many tables, 1–20 (default 5)", Aliases: []string{"limit", "top_k", "n"}},
}}

// Spec describes search_schema to the model.
func (t *Schema) Spec() tools.Spec {
	return tools.Spec{
		Name:        "search_schema",
		Description: "Find the tables that best match a description, among all loaded datasets (not only those in the prompt): ranked tables with their matching columns. Use it when the tables you were given do not hold what the question needs.",
		Parameters:  schemaParams.Schema(),
		Aliases:     []string{"search", "findtables", "searchtables", "searchschema", "searchcolumns"},
		Evidence:    tools.EvidenceNone,
		View:        tools.View{Icon: "search", Doing: "Searching the tables", Did: "Searched the tables"},
	}
}

// TableMatch is one table in search_schema's display data (and in
// `loupe search --json`).
type TableMatch struct {
	Table   string            `json:"table"`
	Score   float64           `json:"score"`
	Rows    int64             `json:"rows"`
	Columns []index.ColumnHit `json:"columns"`
}

// Run searches the schema index, brought up to date with the catalog
// first.
func (t *Schema) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Query string `json:"query"`
		K     int    `json:"k"`
	}
	if err := schemaParams.Decode(raw, &a); err != nil {
		return schemaParams.Failure(err), nil
	}
	if strings.TrimSpace(a.Query) == "" {
		return schemaParams.Failure(&args.Error{Problem: "query is empty", Usage: schemaParams.Usage()}), nil
	}
	a.K = min(max(a.K, 0), 20)
	if a.K == 0 {
		a.K = 5
	}
	matches, err := Tables(ctx, t.cat, t.idx, a.Query, a.K)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Result{}, fmt.Errorf("search_schema: %w", err)
	}
	text := Describe(a.Query, matches)
	data, err := json.Marshal(matches)
	if err != nil {
		return tools.Result{}, fmt.Errorf("search_schema: encode: %w", err)
	}
	summary := fmt.Sprintf("%d tables", len(matches))
	if len(matches) == 1 {
		summary = "1 table"
	}
	return tools.Result{ForModel: text, Summary: summary, Display: tools.Display{Kind: tools.KindText, Text: text, Data: data}}, nil
}

// Tables syncs idx with the catalog's datasets and returns the k tables
// that best match query; `loupe search` and search_schema share it.
func Tables(ctx context.Context, cat Catalog, idx Index, query string, k int) ([]TableMatch, error) {
	ds, err := cat.Datasets(ctx)
	if err != nil {
		return nil, fmt.Errorf("list datasets: %w", err)
	}
	if _, err := idx.Sync(ctx, index.Workspace, index.FromDatasets(ds)); err != nil {
		return nil, fmt.Errorf("update the schema index: %w", err)
	}
	hits, err := idx.Search(ctx, query, index.Options{K: k, Origin: index.Workspace})
	if err != nil {
		return nil, err
	}
	out := make([]TableMatch, len(hits))
	for i, h := range hits {
		cols := h.Columns
		if cols == nil {
			cols = []index.ColumnHit{}
		}
		out[i] = TableMatch{Table: h.Table.Name, Score: h.Score, Rows: h.Table.Rows, Columns: cols}
	}
	return out, nil
}

// Describe is the text the model (and the command line) reads for matches.
func Describe(query string, matches []TableMatch) string {
	if len(matches) == 0 {
		return fmt.Sprintf("No table matches %q. Try other words (a column or a value), or call list_datasets to see every dataset.", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Tables matching %q, best first:\n", query)
	for i, m := range matches {
		fmt.Fprintf(&b, "%d. %s (%d rows, score %.2f)", i+1, m.Table, m.Rows, m.Score)
		if len(m.Columns) > 0 {
			cols := make([]string, len(m.Columns))
			for j, c := range m.Columns {
				cols[j] = c.Name + " " + c.Type
			}
			b.WriteString(": " + strings.Join(cols, ", "))
		}
		b.WriteString("\n")
	}
	b.WriteString("Call describe_table for a table's columns and statistics.")
	return b.String()
}
