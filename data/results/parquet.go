package results

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" driver

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/query"
)

// WriteParquet writes cols and rows to a Parquet file at path, each column
// with its SQL type (DuckDB's COPY … (FORMAT parquet), in a private
// in-memory DuckDB that sees only a staging folder beside path). The file
// is written whole or not at all. ctx bounds the work.
func WriteParquet(ctx context.Context, path string, cols []query.Column, rows [][]any) error {
	if len(cols) == 0 {
		return fmt.Errorf("write Parquet: the result has no columns")
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".loupe-parquet-")
	if err != nil {
		return fmt.Errorf("write Parquet beside %s: %w", path, err)
	}
	defer os.RemoveAll(tmp)
	staged := filepath.Join(tmp, "rows.jsonl")
	if err := stageJSON(staged, len(cols), rows); err != nil {
		return err
	}
	out := filepath.Join(tmp, "out.parquet")
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return fmt.Errorf("write Parquet: %w", err)
	}
	defer db.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("write Parquet: %w", err)
	}
	defer c.Close()
	for _, s := range []string{
		"SET autoinstall_known_extensions = false",
		"SET autoload_known_extensions = false",
		"SET allowed_directories = [" + duck.QuoteString(tmp+string(filepath.Separator)) + "]",
		"SET enable_external_access = false",
		"SET lock_configuration = true",
		copyStatement(staged, out, cols),
	} {
		if _, err := c.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("write Parquet: %w", err)
		}
	}
	if err := os.Rename(out, path); err != nil {
		return fmt.Errorf("write Parquet to %s: %w", path, err)
	}
	return nil
}

// stageJSON writes rows as JSON lines {"c0": …, "c1": …}.
func stageJSON(path string, n int, rows [][]any) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write Parquet: stage the rows: %w", err)
	}
	w := bufio.NewWriter(f)
	rec := make(map[string]any, n)
	for i, row := range rows {
		for c := 0; c < n; c++ {
			var v any
			if c < len(row) {
				v = row[c]
			}
			rec["c"+strconv.Itoa(c)] = v
		}
		b, err := json.Marshal(rec)
		if err != nil {
			f.Close()
			return fmt.Errorf("write Parquet: row %d: %w", i+1, err)
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write Parquet: stage the rows: %w", err)
	}
	return f.Close()
}

// copyStatement reads the staged rows with each column's type and names
// them as the result did.
func copyStatement(staged, out string, cols []query.Column) string {
	types := make([]string, len(cols))
	sel := make([]string, len(cols))
	for i, c := range cols {
		types[i] = fmt.Sprintf("'c%d': %s", i, duck.QuoteString(parquetType(c.Type)))
		sel[i] = fmt.Sprintf(`c%d AS %s`, i, duck.QuoteIdent(c.Name))
	}
	return fmt.Sprintf("COPY (SELECT %s FROM read_json(%s, format = 'newline_delimited', columns = {%s})) TO %s (FORMAT parquet)",
		strings.Join(sel, ", "), duck.QuoteString(staged), strings.Join(types, ", "), duck.QuoteString(out))
}

// parquetType is the type a column is read back as: its own, except
// those held as text Loupe cannot parse back (INTERVAL, written in words;
// ENUM, which a result names without its values; an empty type).
func parquetType(t string) string {
	u := strings.ToUpper(strings.TrimSpace(t))
	if u == "" || strings.HasPrefix(u, "INTERVAL") || strings.HasPrefix(u, "ENUM") {
		return "VARCHAR"
	}
	return t
}
