package load

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// loadParquet makes a view over the (linked) file: Parquet is already
// columnar and compressed, so copying it in would only cost time and disk.
func (l *Loader) loadParquet(ctx context.Context, src *source) ([]catalog.Dataset, error) {
	started := time.Now()
	var d catalog.Dataset
	err := l.commit(ctx, func(c *duckdb.Conn) error {
		n, err := newNamer(ctx, c, src.path)
		if err != nil {
			return err
		}
		name, err := n.stage(ctx, sqlName(baseNoExt(src.path)), "")
		if err != nil {
			return err
		}
		d = catalog.Dataset{Name: name, Kind: string(Parquet), Storage: "view"}
		d.Staged = stagedPath(l.eng.ImportDir(), finalName(d.Name), src.path, ".parquet")
		if err := link(ctx, src.path, d.Staged); err != nil {
			return osErr(src.path, err)
		}
		if err := replaceObject(ctx, c, d.Name); err != nil {
			return err
		}
		q := "CREATE VIEW " + duck.QuoteIdent(d.Name) + " AS SELECT * FROM read_parquet(" + duck.QuoteString(d.Staged) + ", " + noHive + ")"
		if err := duck.Exec(ctx, c, q); err != nil {
			return fileErr(src.path, "not a valid Parquet file: "+firstLine(duckMsg(err)), "re-export it from its source; if it was downloaded, download it again", err)
		}
		if err := finish(ctx, c, src, &d, started); err != nil {
			return fileErr(src.path, "the Parquet file is damaged: "+firstLine(duckMsg(err)), "re-export it from its source", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return []catalog.Dataset{d}, nil
}

// loadDuckDB attaches a DuckDB file read-only and makes a view per table
// and view in it; the data stays in the user's file.
func (l *Loader) loadDuckDB(ctx context.Context, src *source) ([]catalog.Dataset, error) {
	alias := "src_" + sqlName(baseNoExt(src.path))
	staged := stagedPath(l.eng.ImportDir(), alias, src.path, ".duckdb")
	var out []catalog.Dataset
	err := l.eng.Write(ctx, func(c *duckdb.Conn) error {
		_ = duck.Exec(ctx, c, "DETACH DATABASE IF EXISTS "+duck.QuoteIdent(alias))
		if err := link(ctx, src.path, staged); err != nil {
			return osErr(src.path, err)
		}
		if err := duck.Exec(ctx, c, "ATTACH "+duck.QuoteString(staged)+" AS "+duck.QuoteIdent(alias)+" (READ_ONLY)"); err != nil {
			return fileErr(src.path, "cannot open the DuckDB file: "+firstLine(duckMsg(err)), "it may be from a newer DuckDB version or damaged; export its tables as Parquet and open those", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	started := time.Now()
	err = l.commit(ctx, func(c *duckdb.Conn) error {
		all, err := fileObjects(ctx, c, alias)
		if err != nil {
			return fmt.Errorf("list tables of %s: %w", src.path, err)
		}
		objs, refused, err := containedObjects(ctx, c, alias, all)
		if err != nil {
			return fmt.Errorf("check the views of %s: %w", src.path, err)
		}
		comments, err := columnComments(ctx, c, alias)
		if err != nil {
			return fmt.Errorf("read the column comments of %s: %w", src.path, err)
		}
		if len(objs) == 0 && len(refused) > 0 {
			return fileErr(src.path, "none of the DuckDB file's views can be loaded: "+refused[0], "open a database whose tables hold the data", nil)
		}
		if len(objs) == 0 {
			if pendingWAL(src.path) != "" {
				return fileErr(src.path, "the DuckDB file has no tables yet: its changes are still in "+filepath.Base(src.path)+".wal",
					"close the program writing the database (or run CHECKPOINT in it), then load it again", nil)
			}
			return fileErr(src.path, "the DuckDB file has no tables", "open a database that holds data", nil)
		}
		n, err := newNamer(ctx, c, src.path)
		if err != nil {
			return err
		}
		keys, err := fileKeys(ctx, c, alias)
		if err != nil {
			return fmt.Errorf("read the keys of %s: %w", src.path, err)
		}
		staging := make([]string, len(objs))
		names := make(map[string]string, len(objs)) // table key() → dataset name
		for i, o := range objs {
			if staging[i], err = n.stage(ctx, sqlName(strings.ReplaceAll(o.part(), ".", "_")), o.part()); err != nil {
				return err
			}
			names[o.key()] = finalName(staging[i])
		}
		for i, o := range objs {
			part, name := o.part(), staging[i]
			d := catalog.Dataset{Name: name, Kind: string(DuckDB), Part: part, Storage: "view", Staged: staged, Attach: alias}
			keys[o.key()].set(&d, names)
			d.Comment = strings.TrimSpace(o.comment)
			d.Columns = comments[o.schema+"."+o.name]
			if err := replaceObject(ctx, c, d.Name); err != nil {
				return err
			}
			q := "CREATE VIEW " + duck.QuoteIdent(d.Name) + " AS SELECT * FROM " + duck.QuoteIdent(alias) + "." + duck.QuoteIdent(o.schema) + "." + duck.QuoteIdent(o.name)
			if err := duck.ExecOne(ctx, c, q); err != nil { // names from the file
				return fmt.Errorf("view over %s: %w", part, err)
			}
			if err := finish(ctx, c, src, &d, started); err != nil {
				return err
			}
			out = append(out, d)
		}
		out[0].Warnings = append(out[0].Warnings, refused...)
		if w := pendingWAL(src.path); w != "" {
			out[0].Warnings = append(out[0].Warnings, w)
		}
		parts := make([]string, len(all))
		for i, o := range all {
			parts[i] = o.part()
		}
		return noteVanished(ctx, c, src, n, out, "table", partSet(parts))
	})
	if err != nil {
		_ = l.eng.Write(context.Background(), func(c *duckdb.Conn) error {
			return duck.Exec(context.Background(), c, "DETACH DATABASE IF EXISTS "+duck.QuoteIdent(alias))
		})
		return nil, err
	}
	return out, nil
}

// columnComments returns the comments (COMMENT ON COLUMN) of the attached
// database alias, as columns keyed by "schema.table".
func columnComments(ctx context.Context, c *duckdb.Conn, alias string) (map[string][]catalog.Column, error) {
	out := map[string][]catalog.Column{}
	q := "SELECT schema_name, table_name, column_name, comment FROM duckdb_columns() WHERE database_name = " + duck.QuoteString(alias) +
		" AND coalesce(trim(comment), '') <> ''"
	err := each(ctx, c, q, func(v []any) {
		key := fmt.Sprint(v[0]) + "." + fmt.Sprint(v[1])
		out[key] = append(out[key], catalog.Column{Name: fmt.Sprint(v[2]), Comment: strings.TrimSpace(fmt.Sprint(v[3]))})
	})
	return out, err
}

// pendingWAL says, when the DuckDB file at path has a write-ahead log
// beside it, that the changes it holds were not loaded: the load reads the
// file alone (a link to it), as replaying a log that its writer may still
// be appending to, or checkpoint into the file later, could read a
// database that never was.
func pendingWAL(path string) string {
	fi, err := os.Stat(path + ".wal")
	if err != nil || fi.Size() == 0 {
		return ""
	}
	return fmt.Sprintf("%s.wal holds changes not yet written into the file (%d bytes), which were not loaded: close the program writing the database (or run CHECKPOINT in it) and reload", filepath.Base(path), fi.Size())
}
