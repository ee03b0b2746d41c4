package load

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/perm"
)

// MaxFolderFiles is the most files one folder may bring in one load (a
// dataset each, or one dataset together). The load of a file costs the
// same however many are in the workspace, but DuckDB's own metadata makes
// every open slower by a fraction of a millisecond per table; past this,
// a folder is better read as one dataset (LoadFolder) or a few.
const MaxFolderFiles = 20000

// Folder lists the data files directly inside dir (not in its
// subfolders), sorted by name: the files whose extension names a format
// Loupe reads. Hidden files and other files are left out and counted in
// skipped. The error is a *FileError when dir is not a folder, cannot be
// read, holds no data file, or holds more than MaxFolderFiles.
func Folder(dir string) (files []string, skipped int, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, 0, fileErr(dir, "the path is not valid", "check the folder name", err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		if info, serr := os.Stat(abs); serr == nil && !info.IsDir() {
			return nil, 0, fileErr(abs, "this is a file, not a folder", "give the folder that holds the files", nil)
		}
		return nil, 0, osErr(abs, err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !e.Type().IsRegular() || !dataExt(name) {
			skipped++
			continue
		}
		files = append(files, filepath.Join(abs, name))
	}
	sort.Strings(files)
	switch {
	case len(files) == 0:
		return nil, skipped, fileErr(abs, fmt.Sprintf("the folder holds no data file (%d other entries)", skipped), "give a folder of CSV, TSV, JSON, Parquet, Excel (.xlsx), DuckDB or SQLite files (subfolders are not read)", nil)
	case len(files) > MaxFolderFiles:
		return nil, skipped, fileErr(abs, fmt.Sprintf("the folder holds %d data files, more than the %d one load takes", len(files), MaxFolderFiles), "load it as one dataset if the files share columns (loupe load --as-one NAME DIR), or split it into smaller folders", nil)
	}
	return files, skipped, nil
}

// dataExt reports whether a file's name has an extension Loupe reads.
func dataExt(name string) bool {
	n := strings.ToLower(name)
	n = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, ".gz"), ".bz2"), ".zst")
	ext := filepath.Ext(n)
	return textFormat(ext, nil) != "" || binaryExt(ext) != ""
}

// LoadFolder loads the CSV (or TSV) files directly inside dir as one
// dataset called name (made a SQL name, and unique): DuckDB reads them
// together, matching columns by name (union_by_name), so a file that
// lacks a column gets NULLs there; a column source_file says which file
// each row came from. The files must all be CSV or all TSV, plain or
// gzip-compressed; other files in the folder are left out with a
// warning. Loading the same folder again replaces the dataset. Errors are
// as Load's.
func (l *Loader) LoadFolder(ctx context.Context, dir, name string, opt Options) ([]catalog.Dataset, error) {
	files, _, err := Folder(dir)
	if err != nil {
		return nil, err
	}
	skipped := 0 // data files that are not CSV or TSV; other entries are not data
	abs := filepath.Dir(files[0])
	info, err := os.Stat(abs)
	if err != nil {
		return nil, osErr(abs, err)
	}
	src := &source{path: abs, info: info, kind: kind{format: CSV}, opt: opt}
	var texts []string
	var size int64
	var format Format
	for _, f := range files {
		s, err := open(f)
		if err != nil {
			return nil, err
		}
		ok := (s.kind.format == CSV || s.kind.format == TSV) && (s.kind.comp == None || s.kind.comp == Gzip) && s.kind.encoding == ""
		if !ok {
			skipped++
			continue
		}
		if format == "" {
			format = s.kind.format
		}
		if s.kind.format != format {
			return nil, fileErr(f, "the folder mixes CSV and TSV files", "load them as one dataset per format: put the TSV files in a folder of their own", nil)
		}
		texts = append(texts, f)
		size += s.info.Size()
	}
	if len(texts) == 0 {
		return nil, fileErr(abs, "the folder holds no CSV or TSV file to read as one dataset", "load its files one by one (loupe load DIR), or convert them to CSV", nil)
	}
	src.kind.format = format
	out, err := l.loadFolder(ctx, src, texts, name)
	if err == nil {
		out[0].SizeBytes = size
		if skipped > 0 {
			out[0].Warnings = append(out[0].Warnings, fmt.Sprintf("%d file(s) of the folder were left out (not plain or gzip-compressed UTF-8 %s)", skipped, strings.ToUpper(string(format))))
		}
		err = l.publish(ctx, src, out)
	}
	if err != nil {
		l.discard(out)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, l.memErr(src, err)
	}
	src.report(Progress{Phase: "done", Percent: 100, Bytes: size, Total: size})
	return out, nil
}

// loadFolder makes the staging table of LoadFolder from files, linked
// into a folder of the import folder for the time of the load.
func (l *Loader) loadFolder(ctx context.Context, src *source, files []string, name string) ([]catalog.Dataset, error) {
	started := time.Now()
	var d catalog.Dataset
	err := l.commit(ctx, func(c *duckdb.Conn) error {
		n, err := newNamer(ctx, c, src.path)
		if err != nil {
			return err
		}
		stage, err := n.stage(ctx, sqlName(name), "")
		if err != nil {
			return err
		}
		d = catalog.Dataset{Name: stage, Kind: string(src.kind.format), Storage: "table"}
		parts := stagedPath(l.eng.ImportDir(), stage, src.path, ".parts")
		defer os.RemoveAll(parts)
		if err := os.MkdirAll(parts, perm.Dir); err != nil {
			return fmt.Errorf("stage %s: %w", src.path, err)
		}
		list := make([]string, len(files))
		staged := stagedNames(files)
		for i, f := range files {
			dst := filepath.Join(parts, staged[i])
			if err := link(ctx, f, dst); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return osErr(f, err)
			}
			list[i] = duck.QuoteString(dst)
		}
		args := []string{"[" + strings.Join(list, ", ") + "]", "union_by_name = true", "filename = 'source_file'", "null_padding = true", noHive}
		if src.kind.format == TSV {
			args = append(args, `delim = '\t'`)
		}
		if err := replaceObject(ctx, c, d.Name); err != nil {
			return err
		}
		q := "SELECT * REPLACE (" + ownNames(files, staged) + " AS source_file) FROM read_csv(" + strings.Join(args, ", ") + ")"
		if err := l.ctas(ctx, c, src, d.Name, q); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fileErr(src.path, "could not read its files as one table: "+firstLine(duckMsg(err)), "check that the files share a header and a delimiter, or load them one by one (loupe load DIR)", err)
		}
		return finish(ctx, c, src, &d, started)
	})
	if err != nil {
		return []catalog.Dataset{d}, err
	}
	d.Warnings = append(d.Warnings, fmt.Sprintf("%d files read as one table, columns matched by name; source_file names each row's file", len(files)))
	return []catalog.Dataset{d}, nil
}

// globChars are the characters DuckDB's file readers take for a pattern
// in a path, even in a list of paths.
const globChars = "*?["

// stagedNames are the names the files get in the load's folder: their
// own, except for a name holding a pattern character (a file called
// *.csv would make read_csv read every file of the folder again), which
// becomes loupe-file-N with its extensions.
func stagedNames(files []string) []string {
	taken := make(map[string]bool, len(files))
	for _, f := range files {
		taken[filepath.Base(f)] = true
	}
	out := make([]string, len(files))
	for i, f := range files {
		base := filepath.Base(f)
		if !strings.ContainsAny(base, globChars) {
			out[i] = base
			continue
		}
		ext := filepath.Ext(base)
		if e := strings.ToLower(ext); e == ".gz" || e == ".zst" {
			ext = filepath.Ext(strings.TrimSuffix(base, ext)) + ext
		}
		ext = strings.Map(func(r rune) rune {
			if strings.ContainsRune(globChars+"]", r) {
				return '_'
			}
			return r
		}, ext)
		name := fmt.Sprintf("loupe-file-%d%s", i+1, ext)
		for n := 2; taken[name]; n++ {
			name = fmt.Sprintf("loupe-file-%d-%d%s", i+1, n, ext)
		}
		taken[name] = true
		out[i] = name
	}
	return out
}

// ownNames is the SQL expression of source_file as the file's own name,
// for read_csv's filename column over the staged names.
func ownNames(files, staged []string) string {
	expr := "parse_filename(source_file)"
	var b strings.Builder
	for i, f := range files {
		if base := filepath.Base(f); base != staged[i] {
			b.WriteString(" WHEN " + duck.QuoteString(staged[i]) + " THEN " + duck.QuoteString(base))
		}
	}
	if b.Len() == 0 {
		return expr
	}
	return "CASE " + expr + b.String() + " ELSE " + expr + " END"
}
