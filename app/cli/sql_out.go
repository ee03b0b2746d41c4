package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
)

// writeResult writes res's rows to path as CSV, XLSX or Parquet, by its
// extension, whole or not at all.
func writeResult(ctx context.Context, path string, res *query.Result) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".parquet" {
		return results.WriteParquet(ctx, path, res.Columns, res.Rows)
	}
	if ext != ".csv" && ext != ".xlsx" {
		return fmt.Errorf("loupe sql: --out %s: write to a .csv, .xlsx or .parquet file", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("loupe sql: --out %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	if ext == ".csv" {
		err = results.WriteCSV(w, res.Columns, res.Rows)
	} else {
		err = results.WriteXLSX(w, res.Columns, res.Rows)
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("loupe sql: --out %s: %w", path, err)
	}
	return nil
}
