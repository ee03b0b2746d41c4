// Package schema holds the tools that show the model what data exists:
// list_datasets (every dataset in one compact line each), describe_table
// (a dataset's columns with the catalog's statistics) and sample_rows (a
// few rows, through the guarded runner).
package schema

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/sqltool"
)

// Catalog lists the loaded datasets (data/workspace's *Workspace).
type Catalog interface {
	Datasets(ctx context.Context) ([]catalog.Dataset, error)
}

// Executor runs a query the way run_sql does (sqltool's *Tool).
type Executor interface {
	Execute(ctx context.Context, sql, purpose string, keepRows int) (tools.Result, error)
}

// Tools returns list_datasets, describe_table and sample_rows.
func Tools(cat Catalog, exec Executor) []tools.Tool {
	return []tools.Tool{NewListDatasets(cat), NewDescribeTable(cat), NewSampleRows(cat, exec)}
}

// find returns the dataset called name, ignoring case, surrounding double
// quotes and a "main." prefix. When there is none it returns a Failed
// result naming the closest datasets.
func find(ctx context.Context, cat Catalog, name string) (catalog.Dataset, *tools.Result, error) {
	ds, err := cat.Datasets(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return catalog.Dataset{}, nil, ctx.Err()
		}
		return catalog.Dataset{}, nil, fmt.Errorf("list datasets: %w", err)
	}
	want := strings.TrimSpace(name)
	want = strings.TrimPrefix(strings.TrimPrefix(want, "main."), `"main".`)
	want = strings.Trim(want, `"`)
	for _, d := range ds {
		if strings.EqualFold(d.Name, want) {
			return d, nil, nil
		}
	}
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.Name
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Table %q does not exist.", want)
	if s := sqltool.Suggest(want, names, 3); len(s) > 0 {
		fmt.Fprintf(&b, " Did you mean %s?", quoteJoin(s, " or "))
	}
	switch {
	case len(names) == 0:
		b.WriteString(" No datasets are loaded: ask the user to load a file.")
	case len(names) <= 30:
		b.WriteString(" Datasets: " + strings.Join(names, ", ") + ".")
	default:
		b.WriteString(" Call list_datasets to see every dataset.")
	}
	msg := b.String()
	return catalog.Dataset{}, &tools.Result{
		ForModel: msg,
		Summary:  fmt.Sprintf("unknown table %q", want),
		Failed:   true,
		Display:  tools.Display{Kind: tools.KindError, Text: msg},
	}, nil
}

func quoteJoin(names []string, sep string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, sep)
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// source describes where a dataset came from: "csv", "xlsx sheet Q3".
func source(d catalog.Dataset) string {
	if d.Part == "" {
		return d.Kind
	}
	part := "table"
	if d.Kind == "xlsx" {
		part = "sheet"
	}
	return fmt.Sprintf("%s %s %s", d.Kind, part, d.Part)
}
