package python

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/guard"
)

// Engine is the workspace database (data/duck's *Engine): the only
// folder its locked connections may write is the import folder, so the
// inputs are exported below it.
type Engine interface {
	Raw(ctx context.Context, fn func(c *duckdb.Conn) error) error
	ImportDir() string
}

// Catalog lists the loaded datasets (data/workspace's *Workspace).
type Catalog interface {
	Datasets(ctx context.Context) ([]catalog.Dataset, error)
}

// input is one thing a run asked for: a loaded table, or a SELECT.
type input struct {
	Name string // the name load() takes
	SQL  string // for a query
}

// exported is one input written for the sandbox; it is also the
// manifest entry (inputs.json) the runner's load() reads.
type exported struct {
	Name    string   `json:"-"`
	File    string   `json:"file"`
	Format  string   `json:"format"`
	Rows    int64    `json:"rows"`
	Columns []column `json:"columns"`
	SQL     string   `json:"-"`
}

type column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// inputError is an input the model can fix: an unknown table, a refused
// or broken query.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// manifestName is the file load() reads to find the inputs.
const manifestName = "inputs.json"

// exportTimeout bounds exporting one input.
const exportTimeout = 60 * time.Second

// exports remembers the tables already exported into an inputs folder,
// by table version, so that a later run needing the same unchanged table
// reuses its file instead of exporting it again.
type exports map[string]exported

// exportKey identifies a table's version: reloading it changes LoadedAt.
func exportKey(d catalog.Dataset, format string) string {
	return format + "\x00" + d.Name + "\x00" + d.LoadedAt.Format(time.RFC3339Nano)
}

// exportInputs writes ins into dir in format ("parquet" or "csv"), with
// the manifest, reusing the files of unchanged tables in cache (which it
// updates); every other file in dir is removed. Errors the model can fix
// are *inputError.
func exportInputs(ctx context.Context, eng Engine, cat Catalog, dir string, ins []input, format string, cache exports) ([]exported, error) {
	var tables map[string]catalog.Dataset
	keys := make([]string, len(ins))
	keep := map[string]bool{manifestName: true}
	for i, in := range ins {
		if in.SQL != "" {
			continue
		}
		if tables == nil {
			ds, err := cat.Datasets(ctx)
			if err != nil {
				return nil, fmt.Errorf("run_python: list datasets: %w", err)
			}
			tables = map[string]catalog.Dataset{}
			for _, d := range ds {
				tables[strings.ToLower(d.Name)] = d
			}
		}
		d, ok := tables[strings.ToLower(in.Name)]
		if !ok {
			return nil, &inputError{unknownTable(in.Name, tables)}
		}
		ins[i].Name = d.Name
		keys[i] = exportKey(d, format)
		if e, ok := cache[keys[i]]; ok {
			keep[e.File] = true
		}
	}
	for k, e := range cache {
		if !keep[e.File] {
			delete(cache, k)
		}
	}
	if err := emptyDir(dir, keep); err != nil {
		return nil, fmt.Errorf("run_python: clear the inputs folder: %w", err)
	}
	out := make([]exported, 0, len(ins))
	used := maps.Clone(keep)
	for i, in := range ins {
		if e, ok := cache[keys[i]]; ok && keys[i] != "" {
			out = append(out, e)
			continue
		}
		query := in.SQL
		if query == "" {
			query = "SELECT * FROM " + duck.QuoteIdent(in.Name)
		}
		file := fileName(in.Name, format, used)
		ex, err := exportOne(ctx, eng, query, filepath.Join(dir, file), format)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if in.SQL != "" {
				return nil, queryError(in, err)
			}
			return nil, fmt.Errorf("run_python: export table %q: %w", in.Name, err)
		}
		ex.Name, ex.File, ex.SQL = in.Name, file, in.SQL
		if keys[i] != "" {
			cache[keys[i]] = ex
		}
		out = append(out, ex)
	}
	manifest := map[string]exported{}
	for _, e := range out {
		manifest[e.Name] = e
	}
	b, err := json.Marshal(manifest)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, manifestName), b, 0o644); err != nil {
		return nil, fmt.Errorf("run_python: write the inputs manifest: %w", err)
	}
	return out, nil
}

// exportOne checks query with the read-only guard and copies its result
// into path, inside a read-only transaction on the locked database.
func exportOne(ctx context.Context, eng Engine, query, path, format string) (exported, error) {
	ctx, cancel := context.WithTimeout(ctx, exportTimeout)
	defer cancel()
	var ex exported
	err := eng.Raw(ctx, func(c *duckdb.Conn) error {
		if err := duck.Exec(ctx, c, "BEGIN TRANSACTION READ ONLY"); err != nil {
			return fmt.Errorf("begin read-only transaction: %w", err)
		}
		defer func() { _ = duck.Exec(context.Background(), c, "ROLLBACK") }()
		chk, err := guard.Check(c, query, eng.ImportDir())
		if err != nil {
			return err
		}
		if chk.Stmt != nil {
			_ = chk.Stmt.Close()
		}
		if chk.Expanded || chk.Kind != guard.Select {
			return &guard.RefusedError{Reason: "only a plain SELECT can be an input; write the PIVOT or EXPLAIN as a SELECT"}
		}
		cols, err := describe(ctx, c, chk.Text)
		if err != nil {
			return guard.Classify(err)
		}
		opts := "FORMAT parquet"
		if format == "csv" {
			opts = "FORMAT csv, HEADER true"
		}
		copySQL := "COPY (" + chk.Text + "\n) TO " + duck.QuoteString(path) + " (" + opts + ")"
		// The check above saw one SELECT; make sure DuckDB sees exactly
		// one COPY once it is wrapped.
		types, err := duck.StatementTypes(c, copySQL)
		if err != nil {
			return guard.Classify(err)
		}
		if len(types) != 1 || types[0] != duckdb.STATEMENT_TYPE_COPY {
			return &guard.RefusedError{Reason: "the query does not stand alone as one SELECT"}
		}
		res, err := c.ExecContext(ctx, copySQL, nil)
		if err != nil {
			return guard.Classify(err)
		}
		n, _ := res.RowsAffected()
		ex = exported{Format: format, Rows: n, Columns: cols}
		return nil
	})
	return ex, err
}

// describe returns the columns of a SELECT's result.
func describe(ctx context.Context, c *duckdb.Conn, text string) ([]column, error) {
	rows, err := c.QueryContext(ctx, "DESCRIBE SELECT * FROM (\n"+text+"\n) AS loupe_q", nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []column
	dest := make([]driver.Value, len(rows.Columns()))
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return cols, nil
			}
			return nil, err
		}
		name, _ := dest[0].(string)
		typ, _ := dest[1].(string)
		cols = append(cols, column{Name: name, Type: typ})
	}
}

// queryError turns a failed query input into an *inputError.
func queryError(in input, err error) error {
	var refused *guard.RefusedError
	switch {
	case errors.As(err, &refused):
		return &inputError{fmt.Sprintf("The input query %q was refused: %s. An input query must be one read-only SELECT.", in.Name, refused.Reason)}
	case errors.Is(err, guard.ErrEmpty):
		return &inputError{fmt.Sprintf("The input query %q is empty.", in.Name)}
	case errors.Is(err, context.DeadlineExceeded):
		return &inputError{fmt.Sprintf("The input query %q ran past the %s limit; aggregate or filter it in SQL.", in.Name, exportTimeout)}
	}
	var de *duckdb.Error
	if errors.As(err, &de) {
		first, _, _ := strings.Cut(err.Error(), "\n")
		return &inputError{fmt.Sprintf("The input query %q failed: %s. Fix the SQL (DuckDB dialect; run_sql can test it first).", in.Name, first)}
	}
	return fmt.Errorf("run_python: export query %q: %w", in.Name, err)
}

// unknownTable says which names exist.
func unknownTable(name string, tables map[string]catalog.Dataset) string {
	names := make([]string, 0, len(tables))
	for _, d := range tables {
		names = append(names, d.Name)
	}
	if len(names) == 0 {
		return fmt.Sprintf("There is no table %q: no datasets are loaded.", name)
	}
	sort.Strings(names)
	if len(names) > 40 {
		names = append(names[:40], "…")
	}
	return fmt.Sprintf("There is no table %q. Inputs are loaded tables (%s) or a SELECT query.", name, strings.Join(names, ", "))
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// fileName picks a file name for input name, unique among used.
func fileName(name, format string, used map[string]bool) string {
	base := strings.Trim(unsafeName.ReplaceAllString(name, "_"), "._-")
	if base == "" || len(base) > 80 {
		base = "input"
	}
	f := base + "." + format
	for i := 2; used[f] || f == manifestName; i++ {
		f = fmt.Sprintf("%s_%d.%s", base, i, format)
	}
	used[f] = true
	return f
}

// emptyDir removes everything inside dir but the names in keep, keeping
// dir itself (it is bind-mounted into the container).
func emptyDir(dir string, keep map[string]bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if keep[e.Name()] {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
