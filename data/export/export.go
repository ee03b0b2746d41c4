// Package export writes a whole workspace table to a CSV file the user
// chose, streamed by DuckDB's COPY, never through the capped results the
// UI pages through: an export holds every row.
package export

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// Table writes every row of the workspace table or view name to dest as
// CSV with a header, and returns the rows written. Cells a spreadsheet
// would run as formulas are written as text, as results.SafeCell does
// for held results; nested values are written as JSON. The locked
// database may only write into its import folder, so DuckDB writes
// there and the file is then moved to dest (copied when dest is on
// another disk), replacing it only once complete. Cancelling ctx
// interrupts DuckDB and leaves dest as it was.
func Table(ctx context.Context, eng *duck.Engine, name, dest string) (int64, error) {
	tmp := filepath.Join(eng.ImportDir(), "export-"+token()+".csv")
	defer os.Remove(tmp)
	var n int64
	err := eng.Raw(ctx, func(c *duckdb.Conn) error {
		cols, err := catalog.Describe(ctx, c, name)
		if err != nil {
			return err
		}
		if len(cols) == 0 {
			return fmt.Errorf("export %s: no such table", name)
		}
		q := "COPY (" + Select(name, cols) + ") TO " + duck.QuoteString(tmp) + " (FORMAT csv, HEADER true)"
		res, err := c.ExecContext(ctx, q, nil)
		if err != nil {
			return fmt.Errorf("export %s: %w", name, err)
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, err
	}
	if err := move(tmp, dest); err != nil {
		return 0, fmt.Errorf("export %s to %s: %w", name, dest, err)
	}
	return n, nil
}

// Select is the query whose CSV is the export of table: each column under
// its own name (neutralised), text and nested values made safe.
func Select(table string, cols []catalog.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		id := duck.QuoteIdent(c.Name)
		expr := id
		switch kind(c.Type) {
		case textual:
			expr = safe("CAST(" + id + " AS VARCHAR)")
		case nested:
			expr = safe("CAST(to_json(" + id + ") AS VARCHAR)")
		}
		parts[i] = expr + " AS " + duck.QuoteIdent(safeName(c.Name))
	}
	return "SELECT " + strings.Join(parts, ", ") + " FROM " + duck.QuoteIdent(table)
}

// The SQL twin of results.SafeCell: a cell starting with =, +, -, @, tab
// or carriage return gets a leading quote unless it is a plain number.
const (
	formulaStart = `^[=+\-@\t\r]`
	plainNumber  = `^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`
)

func safe(x string) string {
	return "CASE WHEN regexp_matches(" + x + ", " + duck.QuoteString(formulaStart) + ") AND NOT regexp_matches(" + x + ", " +
		duck.QuoteString(plainNumber) + ") THEN '''' || " + x + " ELSE " + x + " END"
}

func safeName(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

type typeKind int

const (
	plain typeKind = iota // numbers, booleans, dates and times: as DuckDB writes them
	textual
	nested
)

func kind(t string) typeKind {
	u := strings.ToUpper(t)
	switch {
	case strings.HasSuffix(u, "]") || strings.HasPrefix(u, "STRUCT") || strings.HasPrefix(u, "MAP") ||
		strings.HasPrefix(u, "UNION") || u == "JSON":
		return nested
	case strings.HasPrefix(u, "VARCHAR") || strings.HasPrefix(u, "ENUM") || u == "BIT":
		return textual
	}
	return plain
}

// move puts the finished file src at dest: a rename when they share a
// disk, else a copy into a temporary file beside dest renamed over it.
// The file is the user's: ordinary permissions.
func move(src, dest string) error {
	if err := os.Chmod(src, 0o644); err != nil {
		return err
	}
	if err := os.Rename(src, dest); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(out.Name())
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Chmod(0o644); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(out.Name(), dest)
}

func token() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
