package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/remote"
)

// connectImport runs a query on a connection and stores its result in the
// workspace as a table, so that it can be joined with local files.
//
//	loupe connect import NAME --as TABLE [--limit N] [--replace] [--workspace DIR] QUERY
func connectImport(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("connect import", e)
	table := fs.String("as", "", "name of the new workspace table (required)")
	limit := fs.Int("limit", 0, fmt.Sprintf("most rows to import (default %d)", remote.DefaultImportRows))
	replace := fs.Bool("replace", false, "replace a dataset of the same name")
	quiet := fs.Bool("quiet", false, "no progress display")
	pos, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) < 2 || *table == "" {
		fmt.Fprintln(e.stderr, `loupe connect import: give a connection, --as TABLE and a query, e.g. loupe connect import shop --as big_orders "SELECT * FROM orders WHERE total > 1000"`)
		return ExitUsage
	}
	r, err := openConnection(ctx, pos[0])
	if err != nil {
		return fail(e, err)
	}
	defer r.Close()
	w, err := openWorkspace(ctx, *ws)
	if err != nil {
		return fail(e, err)
	}
	defer w.Close()
	opt := remote.ImportOptions{Table: *table, Replace: *replace, MaxRows: *limit, Origin: remote.Label(pos[0])}
	if !*quiet && isTerminal(e.stderr) {
		opt.Progress = func(p remote.ImportProgress) {
			fmt.Fprintf(e.stderr, "\r%s: %s, %d rows", p.Table, p.Phase, p.Rows)
		}
	}
	d, err := remote.Import(ctx, w.Engine, r.Source, strings.Join(pos[1:], " "), opt)
	if opt.Progress != nil {
		fmt.Fprintln(e.stderr)
	}
	if err != nil {
		return fail(e, fmt.Errorf("import from %s: %w", pos[0], err))
	}
	line := loadLine{Table: d.Name, Source: d.Source, Kind: d.Kind, Rows: d.Rows, Warnings: d.Warnings, LoadMS: d.LoadMS}
	if line.Warnings == nil {
		line.Warnings = []string{}
	}
	for _, c := range d.Columns {
		line.Columns = append(line.Columns, loadColumn{Name: c.Name, Type: c.Type})
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(line); err != nil {
		return fail(e, err)
	}
	return ExitOK
}
