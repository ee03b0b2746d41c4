package catalog

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// topLimit is how many frequent values a low-cardinality column keeps, and
// lowCardinality the most distinct values a column may have to get them.
const (
	topLimit       = 5
	lowCardinality = 50
	sampleLimit    = 3
	sampleLen      = 60
)

// Profile computes the row count and per-column statistics of table (in
// schema main) on c, so it sees uncommitted work of c's transaction. It
// makes at most four passes: DuckDB's stored statistics, one aggregate,
// one GROUPING SETS for frequent values, and a few sample rows.
func Profile(ctx context.Context, c Conn, table string) (int64, []Column, error) {
	cols, err := describe(ctx, c, table)
	if err != nil {
		return 0, nil, err
	}
	if len(cols) == 0 {
		return 0, cols, nil
	}
	ident := quoteIdent(table)
	approx := storedDistinct(ctx, c, ident, cols)
	rows, err := aggregate(ctx, c, ident, cols, approx)
	if err != nil {
		return 0, nil, err
	}
	if err := topValues(ctx, c, ident, cols); err != nil {
		return 0, nil, err
	}
	if err := samples(ctx, c, ident, cols); err != nil {
		return 0, nil, err
	}
	return rows, cols, nil
}

func describe(ctx context.Context, c Conn, table string) ([]Column, error) {
	q := "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1 ORDER BY column_index"
	var cols []Column
	err := each(ctx, c, q, []any{table}, func(v []driver.Value) {
		cols = append(cols, Column{Name: str(v[0]), Type: str(v[1])})
	})
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", table, err)
	}
	return cols, nil
}

var approxUnique = regexp.MustCompile(`\[Approx Unique: (\d+)\]`)

// storedDistinct reads DuckDB's own distinct-count estimates, kept with a
// native table's storage, through the stats() function. It reports which
// columns got one; views over files have none and are counted instead.
func storedDistinct(ctx context.Context, c Conn, ident string, cols []Column) []bool {
	got := make([]bool, len(cols))
	parts := make([]string, len(cols))
	for i, col := range cols {
		parts[i] = "stats(" + quoteIdent(col.Name) + ")"
	}
	_ = each(ctx, c, "SELECT "+strings.Join(parts, ", ")+" FROM "+ident+" LIMIT 1", nil, func(v []driver.Value) {
		for i := range cols {
			if m := approxUnique.FindStringSubmatch(str(v[i])); m != nil {
				n, err := strconv.ParseInt(m[1], 10, 64)
				if err == nil {
					cols[i].Distinct, got[i] = n, true
				}
			}
		}
	})
	return got
}

func aggregate(ctx context.Context, c Conn, ident string, cols []Column, haveDistinct []bool) (int64, error) {
	parts := []string{"count(*)"}
	for i, col := range cols {
		q := quoteIdent(col.Name)
		parts = append(parts, "count("+q+")")
		if orderable(col.Type) {
			parts = append(parts, "min("+q+")::VARCHAR", "max("+q+")::VARCHAR")
		} else {
			parts = append(parts, "NULL", "NULL")
		}
		if haveDistinct[i] {
			parts = append(parts, "NULL")
		} else {
			parts = append(parts, "approx_count_distinct("+q+")")
		}
	}
	var total int64
	err := each(ctx, c, "SELECT "+strings.Join(parts, ", ")+" FROM "+ident, nil, func(v []driver.Value) {
		total = num(v[0])
		for i := range cols {
			base := 1 + i*4
			cols[i].Nulls = total - num(v[base])
			cols[i].Min = strPtr(v[base+1])
			cols[i].Max = strPtr(v[base+2])
			if !haveDistinct[i] {
				cols[i].Distinct = num(v[base+3])
			}
		}
	})
	if err != nil {
		return 0, fmt.Errorf("profile: %w", err)
	}
	for i := range cols {
		// The estimate can exceed the number of values; clamp it.
		if nonNull := total - cols[i].Nulls; cols[i].Distinct > nonNull {
			cols[i].Distinct = nonNull
		}
	}
	return total, nil
}

// topValues fills Top for columns with few distinct values, in one pass.
func topValues(ctx context.Context, c Conn, ident string, cols []Column) error {
	var pick []int
	for i, col := range cols {
		if col.Distinct > 0 && col.Distinct <= lowCardinality && groupable(col.Type) {
			pick = append(pick, i)
		}
	}
	if len(pick) == 0 {
		return nil
	}
	var sel, sets, flags []string
	for _, i := range pick {
		q := quoteIdent(cols[i].Name)
		sel = append(sel, q+"::VARCHAR")
		sets = append(sets, "("+q+")")
		flags = append(flags, "grouping("+q+")")
	}
	query := "SELECT " + strings.Join(sel, ", ") + ", " + strings.Join(flags, ", ") + ", count(*) FROM " + ident +
		" GROUP BY GROUPING SETS (" + strings.Join(sets, ", ") + ")"
	k := len(pick)
	err := each(ctx, c, query, nil, func(v []driver.Value) {
		for j, i := range pick {
			if num(v[k+j]) != 0 || v[j] == nil {
				continue // not this column's set, or its NULL group
			}
			cols[i].Top = append(cols[i].Top, Value{Value: str(v[j]), Count: num(v[2*k])})
		}
	})
	if err != nil {
		return fmt.Errorf("frequent values: %w", err)
	}
	for _, i := range pick {
		t := cols[i].Top
		sort.Slice(t, func(a, b int) bool {
			if t[a].Count != t[b].Count {
				return t[a].Count > t[b].Count
			}
			return t[a].Value < t[b].Value
		})
		if len(t) > topLimit {
			cols[i].Top = t[:topLimit]
		}
	}
	return nil
}

// samples fills Samples with a few distinct values from the first rows.
func samples(ctx context.Context, c Conn, ident string, cols []Column) error {
	sel := make([]string, len(cols))
	for i, col := range cols {
		sel[i] = quoteIdent(col.Name) + "::VARCHAR"
	}
	err := each(ctx, c, "SELECT "+strings.Join(sel, ", ")+" FROM "+ident+" LIMIT 50", nil, func(v []driver.Value) {
		for i := range cols {
			s, ok := v[i].(string)
			if !ok || s == "" || len(cols[i].Samples) >= sampleLimit {
				continue
			}
			s = clip(s)
			dup := false
			for _, have := range cols[i].Samples {
				dup = dup || have == s
			}
			if !dup {
				cols[i].Samples = append(cols[i].Samples, s)
			}
		}
	})
	if err != nil {
		return fmt.Errorf("sample values: %w", err)
	}
	return nil
}

func orderable(typ string) bool {
	return !(strings.HasSuffix(typ, "[]") || strings.HasPrefix(typ, "STRUCT") || strings.HasPrefix(typ, "MAP") ||
		strings.HasPrefix(typ, "UNION") || typ == "BLOB" || strings.Contains(typ, "[") || typ == "JSON")
}

func groupable(typ string) bool {
	return orderable(typ) && !strings.HasPrefix(typ, "DOUBLE") && !strings.HasPrefix(typ, "FLOAT")
}

// each runs query on c and calls fn for every row.
func each(ctx context.Context, c Conn, query string, args []any, fn func([]driver.Value)) error {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	rows, err := c.QueryContext(ctx, query, named)
	if err != nil {
		return err
	}
	defer rows.Close()
	dest := make([]driver.Value, len(rows.Columns()))
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		fn(dest)
	}
}

func str(v driver.Value) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

func strPtr(v driver.Value) *string {
	if v == nil {
		return nil
	}
	s := clip(str(v))
	return &s
}

func num(v driver.Value) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case uint64:
		return int64(x)
	case float64:
		return int64(x)
	}
	return 0
}

func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// clip shortens s to at most sampleLen runes.
func clip(s string) string {
	r := []rune(s)
	if len(r) <= sampleLen {
		return s
	}
	return string(r[:sampleLen]) + "…"
}
