package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/args"
)

// MaxListed is how many datasets list_datasets names to the model; the UI
// gets them all. Large workspaces are searched, not listed.
const MaxListed = 100

// ListDatasets is list_datasets.
type ListDatasets struct{ cat Catalog }

var _ tools.Tool = (*ListDatasets)(nil)

// NewListDatasets returns list_datasets over cat.
func NewListDatasets(cat Catalog) *ListDatasets { return &ListDatasets{cat: cat} }

var listParams = args.Params{Tool: "list_datasets", IgnoreUnknown: true}

// Spec describes list_datasets to the model.
func (t *ListDatasets) Spec() tools.Spec {
	return tools.Spec{
		Name:        "list_datasets",
		Description: "List every loaded dataset (table): name, rows, columns, file type. Takes no arguments.",
		Parameters:  listParams.Schema(),
		Aliases:     []string{"listtables", "tables", "showtables", "listdatasets", "getdatasets"},
		Evidence:    tools.EvidenceNone,
		SchemaLevel: tools.SchemaStructure,
		View:        tools.View{Icon: "database", Doing: "Listing the datasets", Did: "Listed the datasets"},
	}
}

// Summary is one dataset in list_datasets' display data.
type Summary struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Source  string `json:"source"`
	Rows    int64  `json:"rows"`
	Columns int    `json:"columns"`
}

// Run lists the datasets; it accepts and ignores any arguments.
func (t *ListDatasets) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var none struct{}
	if err := listParams.Decode(raw, &none); err != nil {
		return listParams.Failure(err), nil
	}
	ds, err := t.cat.Datasets(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Result{}, fmt.Errorf("list_datasets: %w", err)
	}
	if len(ds) == 0 {
		msg := "No datasets are loaded. Ask the user to load a file (CSV, TSV, Parquet, JSON, Excel, DuckDB or SQLite)."
		return tools.Result{ForModel: msg, Summary: "no datasets", Display: tools.Display{Kind: tools.KindText, Text: msg}}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", plural(int64(len(ds)), "dataset", "datasets"))
	sums := make([]Summary, len(ds))
	for i, d := range ds {
		if i < MaxListed {
			fmt.Fprintf(&b, "- %s: %s, %s (%s)\n", d.Name, plural(d.Rows, "row", "rows"), plural(int64(len(d.Columns)), "column", "columns"), source(d))
		}
		sums[i] = Summary{Name: d.Name, Kind: d.Kind, Source: d.Source, Rows: d.Rows, Columns: len(d.Columns)}
	}
	if len(ds) > MaxListed {
		fmt.Fprintf(&b, "… and %d more not listed. Call search_schema with a few words to find the tables a question needs.\n", len(ds)-MaxListed)
	}
	b.WriteString("Call describe_table for a table's columns and statistics.")
	data, err := json.Marshal(sums)
	if err != nil {
		return tools.Result{}, fmt.Errorf("list_datasets: encode: %w", err)
	}
	return tools.Result{
		ForModel: b.String(),
		Summary:  plural(int64(len(ds)), "dataset", "datasets"),
		Display:  tools.Display{Kind: tools.KindText, Text: b.String(), Data: data},
	}, nil
}
