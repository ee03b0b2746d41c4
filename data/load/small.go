package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// SmallText is the largest CSV or TSV file kept as a view over a private
// copy instead of a table. DuckDB gives every table at least one storage
// block of its own (64 KiB, duck.BlockSize) whatever its size, and reads
// each table's metadata at every open: a 7 KB file of 200 rows took 78 KB
// as a table. As a view over its copy it takes its own size and about
// 1 KB of catalog, and a query reads it again (about a millisecond at
// this size).
const SmallText = 256 << 10

// ViewColumns is the most columns a small text file kept as a view may
// have. Every query of the view parses the whole file, all its columns: a
// 150 KB file of 10,000 columns took minutes to profile (157 batches of 64
// columns, each a full parse) where the table answers in seconds.
const ViewColumns = 64

// keepAsView replaces d's new table, profiled and committed, by a view
// over a private copy of the source in the import folder, in c's
// transaction (the one that puts it in place), when the file is a small,
// plain CSV or TSV that loaded without retries, warnings or renamed
// columns and the view reads exactly the table's rows and types (DuckDB's own
// reading instructions from sniff_csv, checked with EXCEPT ALL both
// ways). Otherwise the table stays. The copy, not a link, keeps the
// dataset a snapshot like a table: a later change to the user's file does
// not show until it is loaded again.
func (l *Loader) keepAsView(ctx context.Context, c *duckdb.Conn, src *source, d *catalog.Dataset) error {
	if src.info.Size() > SmallText || src.kind.comp != None || src.kind.encoding != "" || src.kind.warning != "" ||
		(src.kind.format != CSV && src.kind.format != TSV) || d.Rows == 0 {
		return nil
	}
	cols, err := catalog.Describe(ctx, c, d.Name)
	if err != nil || len(cols) == 0 || len(cols) > ViewColumns {
		return err
	}
	if _, renamed := cleanNames(cols); len(renamed) > 0 {
		return nil
	}
	ext := ".csv"
	if src.kind.format == TSV {
		ext = ".tsv"
	}
	// A name of its own per load: the view a reload replaces still reads
	// its file until the reload is in place.
	copyPath := stagedPath(l.eng.ImportDir(), finalName(d.Name)+"-"+strconv.FormatInt(time.Now().UnixNano(), 36), src.path, ext)
	if err := copyFile(ctx, src.path, copyPath, func(r io.Reader, w io.Writer) (int, error) {
		_, err := io.Copy(w, r)
		return 0, err
	}); err != nil {
		_ = os.Remove(copyPath)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil // the table stays
	}
	kept := false
	defer func() {
		if !kept {
			_ = os.Remove(copyPath)
		}
	}()
	// One thread: at this size DuckDB's parallel reader only adds the cost
	// of starting its tasks, at every query of the view.
	o := csvOpts{tsv: src.kind.format == TSV, serial: true}
	found, err := sniff(ctx, c, "sniff_"+strings.TrimPrefix(o.sql(copyPath), "read_"))
	if err != nil {
		return nil //nolint:nilerr // DuckDB cannot read it so: the table stays
	}
	view := d.Name + "_view"
	macro, err := viewOver(ctx, c, view, copyPath, found.options("null_padding = true", "parallel = false", noHive))
	if err != nil {
		return nil //nolint:nilerr // DuckDB cannot read it so: the table stays
	}
	same := l.sameRows(ctx, c, d.Name, view, cols)
	if !same {
		if err := duck.Exec(ctx, c, "DROP VIEW "+duck.QuoteIdent(view)); err != nil {
			return err
		}
		return catalog.DropReader(ctx, c, catalog.Dataset{Name: d.Name, Reader: macro})
	}
	for _, q := range []string{
		"DROP TABLE " + duck.QuoteIdent(d.Name),
		"ALTER VIEW " + duck.QuoteIdent(view) + " RENAME TO " + duck.QuoteIdent(d.Name),
	} {
		if err := duck.Exec(ctx, c, q); err != nil {
			return fmt.Errorf("keep %s as a view: %w", finalName(d.Name), err)
		}
	}
	kept = true
	d.Storage, d.Staged, d.Reader = "view", copyPath, macro
	return nil
}

// sameRows reports whether view has table's columns, types and rows.
func (l *Loader) sameRows(ctx context.Context, c *duckdb.Conn, table, view string, cols []catalog.Column) bool {
	vcols, err := catalog.Describe(ctx, c, view)
	if err != nil || !reflect.DeepEqual(vcols, cols) {
		return false
	}
	// One pass over each: the same row count and the same sum of row
	// hashes (order does not matter) mean the same rows.
	t, v := duck.QuoteIdent(table), duck.QuoteIdent(view)
	digest := func(rel string) string {
		return "(SELECT count(*)::VARCHAR || ':' || coalesce(sum(hash(x)::HUGEINT), 0)::VARCHAR FROM " + rel + " AS x)"
	}
	var tn, vn string
	q := "SELECT " + digest(t) + ", " + digest(v)
	if err := each(ctx, c, q, func(r []any) { tn, vn = fmt.Sprint(r[0]), fmt.Sprint(r[1]) }); err != nil {
		return false
	}
	return tn != "" && tn == vn
}

// dropCopy removes the private copy the view of a small text dataset
// reads (see keepAsView), once nothing reads it; other datasets' staged
// files are left alone.
func dropCopy(importDir string, d catalog.Dataset) {
	if d.Storage != "view" || (d.Kind != string(CSV) && d.Kind != string(TSV)) || d.Staged == "" || filepath.Dir(d.Staged) != importDir {
		return
	}
	_ = os.Remove(d.Staged)
}

// copyName matches the file names keepAsView gives private copies:
// NAME-STAMP-HASH.csv or .tsv (a dataset's name has no dash).
var copyName = regexp.MustCompile(`^[^-]+-[0-9a-z]+-[0-9a-f]{8}\.(csv|tsv)$`)

// SweepCopies removes the private copies of small text files (see
// keepAsView) in importDir that no dataset reads: those of a dataset
// replaced by an import from a database, or removed, when the process
// stopped before it could remove them. The workspace calls it at open, on
// its loading connection, before any load can run; it reads only the
// records' staged paths, not whole records, and returns how many files it
// removed.
func SweepCopies(ctx context.Context, c *duckdb.Conn, importDir string) (int, error) {
	entries, err := os.ReadDir(importDir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("list the import folder: %w", err)
	}
	var copies []string
	for _, e := range entries {
		if e.Type().IsRegular() && copyName.MatchString(e.Name()) {
			copies = append(copies, filepath.Join(importDir, e.Name()))
		}
	}
	if len(copies) == 0 {
		return 0, nil
	}
	used := map[string]bool{}
	q := `SELECT staged FROM _loupe.datasets WHERE staged <> ''`
	if err := each(ctx, c, q, func(v []any) { used[fmt.Sprint(v[0])] = true }); err != nil {
		return 0, fmt.Errorf("find the files the datasets read: %w", err)
	}
	removed := 0
	for _, p := range copies {
		if used[p] {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove the unused copy %s: %w", filepath.Base(p), err)
		}
		removed++
	}
	return removed, nil
}
