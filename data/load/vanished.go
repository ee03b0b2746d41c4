package load

import (
	"context"
	"fmt"
	"sort"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
)

// dropVanished removes, in c's transaction, the datasets an earlier load of
// src made from parts (sheets or tables) that this load did not produce,
// and returns one warning per removal. A refresh must not leave a table
// for a sheet deleted from the workbook looking current. Only datasets of
// src's kind with a part are considered, so a file loaded whole and
// imports from elsewhere are never touched. noun names a part ("sheet",
// "table"); inFile reports whether a part is still in the file (then it
// was skipped this time: empty or unreadable).
func dropVanished(ctx context.Context, c *duckdb.Conn, src *source, existing map[string]catalog.Dataset, kept []catalog.Dataset, noun string, inFile func(part string) bool) ([]string, error) {
	keep := make(map[string]bool, len(kept))
	for _, d := range kept {
		keep[finalName(d.Name)] = true
	}
	var gone []catalog.Dataset
	for name, d := range existing {
		if d.Source == src.path && d.Kind == string(src.kind.format) && d.Part != "" && !keep[name] {
			gone = append(gone, d)
		}
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i].Name < gone[j].Name })
	var warnings []string
	for _, d := range gone {
		if err := replaceObject(ctx, c, d.Name); err != nil {
			return nil, err
		}
		if err := catalog.Delete(ctx, c, d.Name); err != nil {
			return nil, err
		}
		why := "is no longer in the file"
		if inFile(d.Part) {
			why = "was not loaded this time (empty or unreadable)"
		}
		storage := d.Storage
		if storage == "" {
			storage = "table"
		}
		warnings = append(warnings, fmt.Sprintf("%s '%s' %s: its %s %s was removed", noun, d.Part, why, storage, d.Name))
	}
	return warnings, nil
}

// noteVanished drops the vanished parts' datasets (see dropVanished) and
// adds the warnings to the first of out, which the load records.
func noteVanished(ctx context.Context, c *duckdb.Conn, src *source, n *namer, out []catalog.Dataset, noun string, inFile func(string) bool) error {
	warnings, err := dropVanished(ctx, c, src, n.existing, out, noun, inFile)
	if err != nil || len(warnings) == 0 || len(out) == 0 {
		return err
	}
	out[0].Warnings = append(out[0].Warnings, warnings...)
	return nil
}

// partSet returns a membership test over parts.
func partSet(parts []string) func(string) bool {
	m := make(map[string]bool, len(parts))
	for _, p := range parts {
		m[p] = true
	}
	return func(p string) bool { return m[p] }
}
