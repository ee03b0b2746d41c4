package load

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// A small text file kept as a view reads its private copy through a
// reader: a table macro in schema _loupe holding DuckDB's reading
// instructions for files of one shape (the dialect and the columns'
// names and types that sniff_csv found), called with the copy's path.
// DuckDB decodes every view's definition at each open of the workspace
// and frees it at close, and a read_csv call with its columns spelt out
// is most of a small file's entry: 10,000 such views took 273 ms to
// open and 137 ms to close (15 MB of catalog), against 102 ms and 47 ms
// (3 MB) for views calling one macro. A folder of exports of one shape
// shares one reader. The record names its reader (catalog.Dataset's
// Reader), so that the reader is dropped with the last dataset reading
// through it (see catalog.DropReader).

// viewOver creates view over the file at path, read with options (the
// read_csv options after the path, as sniffed.options writes them), in
// c's transaction, through the reader for those options (made if it is
// not there yet), and returns that reader's name. Each statement runs
// alone (duck.ExecOne): the options hold the file's column names.
func viewOver(ctx context.Context, c *duckdb.Conn, view, path, options string) (string, error) {
	sum := sha256.Sum256([]byte(options))
	name := "csv_" + hex.EncodeToString(sum[:10])
	macro := catalog.ReaderSchema + "." + name
	if err := duck.ExecOne(ctx, c, "CREATE MACRO IF NOT EXISTS "+macro+"(path) AS TABLE SELECT * FROM read_csv(path, "+options+")"); err != nil {
		return "", fmt.Errorf("make the reader for %s: %w", view, err)
	}
	if err := duck.ExecOne(ctx, c, "CREATE VIEW "+duck.QuoteIdent(view)+" AS SELECT * FROM "+macro+"("+duck.QuoteString(path)+")"); err != nil {
		return "", err
	}
	return name, nil
}

// dropReaderOn drops d's reader on c if nothing reads through it any
// more (d's record gone or replaced, after the commit). A failure is
// logged: the reader is an orphan the next open sweeps (see Sweep).
func (l *Loader) dropReaderOn(c *duckdb.Conn, d catalog.Dataset) {
	if err := catalog.DropReader(context.Background(), c, d); err != nil {
		l.log.Error("drop an unused reader", "dataset", finalName(d.Name), "err", err)
	}
}
