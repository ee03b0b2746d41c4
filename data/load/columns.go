package load

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// cleanColumns renames, in c's transaction, the columns of d's new table
// whose names hold NUL or other control characters (a fuzzed header, a
// stray byte): such a name cannot be written in a statement (a NUL cuts
// it) and garbles a terminal. It returns a warning naming each column
// renamed, or "" when none was, and the table's columns as they are
// after. The table is rewritten with positional references, the only way
// to reach a column whose name holds a NUL; a clean table costs one
// catalog lookup. Views keep their names.
func cleanColumns(ctx context.Context, c *duckdb.Conn, d *catalog.Dataset) (string, []catalog.Column, error) {
	cols, err := catalog.Describe(ctx, c, d.Name)
	if err != nil {
		return "", nil, err
	}
	if d.Storage == "view" {
		return "", cols, nil
	}
	names, renamed := cleanNames(cols)
	if len(renamed) == 0 {
		return "", cols, nil
	}
	sel := make([]string, len(names))
	for i, n := range names {
		sel[i] = "#" + strconv.Itoa(i+1) + " AS " + duck.QuoteIdent(n)
	}
	tmp := d.Name + "_clean"
	for _, q := range []string{
		"CREATE TABLE " + duck.QuoteIdent(tmp) + " AS SELECT " + strings.Join(sel, ", ") + " FROM " + duck.QuoteIdent(d.Name),
		"DROP TABLE " + duck.QuoteIdent(d.Name),
		"ALTER TABLE " + duck.QuoteIdent(tmp) + " RENAME TO " + duck.QuoteIdent(d.Name),
	} {
		if err := duck.ExecOne(ctx, c, q); err != nil { // names from the file
			return "", nil, fmt.Errorf("rename the columns of %s: %w", finalName(d.Name), err)
		}
	}
	for i := range cols {
		cols[i].Name = names[i]
	}
	return "columns renamed (control characters removed from their names): " + strings.Join(renamed, ", "), cols, nil
}

// columnNames returns the names of table's columns, in order.
func columnNames(ctx context.Context, c *duckdb.Conn, table string) ([]string, error) {
	cols, err := catalog.Describe(ctx, c, table)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = col.Name
	}
	return names, nil
}

// cleanNames returns the columns' names with control characters removed
// (see duck.CleanName), unique without regard to case as DuckDB requires,
// and a "old → new" note for each name changed.
func cleanNames(cols []catalog.Column) (names, renamed []string) {
	taken := make(map[string]bool, len(cols))
	dirty := make([]bool, len(cols))
	some := false
	for i, col := range cols {
		_, dirty[i] = duck.CleanName(col.Name)
		some = some || dirty[i]
		if !dirty[i] {
			taken[strings.ToLower(col.Name)] = true
		}
	}
	if !some {
		return nil, nil
	}
	names = make([]string, len(cols))
	for i, col := range cols {
		if !dirty[i] {
			names[i] = col.Name
			continue
		}
		base, _ := duck.CleanName(col.Name)
		if strings.TrimSpace(base) == "" {
			base = "column" + strconv.Itoa(i)
		}
		name := base
		for k := 2; taken[strings.ToLower(name)]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		taken[strings.ToLower(name)] = true
		names[i] = name
		renamed = append(renamed, quoteName(col.Name)+" → "+name)
	}
	return names, renamed
}

// quoteName shows a column name in a message: Go-quoted (control
// characters escaped) and shortened.
func quoteName(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return strconv.Quote(s)
}
