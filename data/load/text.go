package load

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// csvOpts are the read_csv options of one attempt.
type csvOpts struct {
	tsv        bool
	latin1     bool
	serial     bool // parallel=false, for files DuckDB's parallel reader refuses
	fullSample bool // detect types over the whole file
	skipBad    bool // ignore_errors with rejects recorded
	comp       Compression
	plain      bool // a wide, plain file: the dialect is given (see plainWide)
	strict     bool // no null_padding: ragged rows are errors (see raggedWarning)
	user       TextOptions
}

func (o csvOpts) sql(path string) string {
	// null_padding pads ragged rows. On its own it turns DuckDB's parallel
	// reader off (the load then runs on one core), so parallel is asked for
	// explicitly; files the parallel reader cannot pad (quoted newlines)
	// fail with "parallel scanner does not support" and are read serially.
	args := []string{duck.QuoteString(path), "null_padding = " + strconv.FormatBool(!o.strict), noHive}
	if !o.serial {
		args = append(args, "parallel = true")
	}
	if o.tsv && o.user.Delimiter == "" {
		args = append(args, `delim = '\t'`)
	}
	args = append(args, textArgs(o.user)...)
	if o.plain {
		if !o.tsv {
			args = append(args, "delim = ','")
		}
		args = append(args, `quote = '"'`, `escape = '"'`)
	}
	if o.latin1 {
		args = append(args, "encoding = 'latin-1'")
	}
	if o.serial {
		args = append(args, "parallel = false")
	}
	if o.fullSample {
		args = append(args, "sample_size = -1")
	}
	if o.skipBad {
		args = append(args, "ignore_errors = true", "store_rejects = true")
	}
	if o.comp == Gzip {
		args = append(args, "compression = 'gzip'")
	} else if o.comp == Zstd {
		args = append(args, "compression = 'zstd'")
	}
	return "read_csv(" + strings.Join(args, ", ") + ")"
}

// loadText loads a CSV, TSV or JSON file into a native table.
func (l *Loader) loadText(ctx context.Context, src *source) ([]catalog.Dataset, error) {
	if delim, ok := wideLayout(src); ok {
		out, err := l.loadWide(ctx, src, delim)
		var fe *FileError
		if err == nil || ctx.Err() != nil || !errors.As(err, &fe) {
			return out, err
		}
		// DuckDB could not read a part as it is (bytes that are not
		// UTF-8, values it cannot convert): the table path retries
		// with the options DuckDB's errors ask for.
		l.log.Info("wide layout failed, loading as one table", "file", src.path, "err", err)
	}
	if plainCandidate(src) {
		if out, ok, err := l.loadPlainView(ctx, src); ok {
			src.published = err == nil
			return out, err
		}
	}
	started := time.Now()
	var d catalog.Dataset
	err := l.commit(ctx, func(c *duckdb.Conn) error {
		n, err := newNamer(ctx, c, src.path)
		if err != nil {
			return err
		}
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(baseNoExt(src.path), ".gz"), ".bz2"), ".zst")
		name, err := n.stage(ctx, sqlName(baseNoExt(base)), "")
		if err != nil {
			return err
		}
		d = catalog.Dataset{Name: name, Kind: string(src.kind.format), Storage: "table"}
		staged, cleanup, warn, err := l.stageText(ctx, src, d.Name)
		if err != nil {
			return err
		}
		defer cleanup()
		if warn != "" {
			d.Warnings = append(d.Warnings, warn)
		}
		if err := replaceObject(ctx, c, d.Name); err != nil {
			return err
		}
		if src.kind.format == JSON {
			err = l.createJSON(ctx, c, src, staged, &d)
		} else {
			err = l.createCSV(ctx, c, src, staged, &d)
		}
		if err != nil {
			return err
		}
		src.clean = len(d.Warnings) == 0 && src.opt.Text.IsZero()
		return finish(ctx, c, src, &d, started)
	})
	if err != nil {
		return nil, err
	}
	return []catalog.Dataset{d}, nil
}

// stageText puts the file where the locked database can read it, as UTF-8
// DuckDB can decompress. cleanup removes the staged file.
func (l *Loader) stageText(ctx context.Context, src *source, table string) (path string, cleanup func(), warning string, err error) {
	ext := ".csv"
	if src.kind.format == JSON {
		ext = ".json"
	}
	switch src.kind.comp {
	case Gzip:
		ext += ".gz"
	case Zstd:
		ext += ".zst"
	}
	path = stagedPath(l.eng.ImportDir(), table, src.path, ext)
	cleanup = func() { _ = os.Remove(path) }
	switch {
	case src.kind.encoding != "":
		err = copyFile(ctx, src.path, path, fromUTF16(src.kind.encoding == "utf-16be"))
		warning = "converted from " + strings.ToUpper(src.kind.encoding) + " to UTF-8"
	case src.kind.comp == Bzip2:
		err = copyFile(ctx, src.path, path, fromBzip2)
	default:
		err = link(ctx, src.path, path)
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", cleanup, "", ctx.Err()
		}
		return "", cleanup, "", osErr(src.path, err)
	}
	return path, cleanup, warning, nil
}

// createCSV creates the table from a CSV, retrying with more forgiving
// options as DuckDB's errors say which are needed, and records what each
// retry cost the user as a warning.
func (l *Loader) createCSV(ctx context.Context, c *duckdb.Conn, src *source, staged string, d *catalog.Dataset) error {
	o := csvOpts{tsv: src.kind.format == TSV, comp: src.kind.comp, user: src.opt.Text}
	if src.kind.encoding != "" {
		o.user.Encoding = "" // a byte-order mark said; the file is staged as UTF-8
	}
	if !src.opt.Text.IsZero() {
		d.Text = &src.opt.Text
	}
	if o.comp == None && o.user.IsZero() {
		delim := byte(',')
		if o.tsv {
			delim = '\t'
		}
		o.plain = plainWide(staged, delim)
	}
	var warnings []string
	for attempt := 0; attempt < 6; attempt++ {
		err := l.ctas(ctx, c, src, d.Name, "SELECT * FROM "+o.sql(staged))
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// A failed statement aborts the transaction; start it again.
		if rerr := restart(ctx, c, d.Name); rerr != nil {
			return rerr
		}
		msg := err.Error()
		switch {
		case o.plain:
			o.plain = false // whatever failed, let DuckDB's sniffer decide
		case strings.Contains(msg, "parallel scanner does not support") && !o.serial:
			o.serial = true
		case strings.Contains(msg, "Invalid unicode") && src.kind.encoding == "" && !o.latin1:
			fixed, rerr := l.repairEncoding(ctx, src, staged)
			if rerr != nil {
				return rerr
			}
			warnings = append(warnings, fmt.Sprintf("%d byte(s) were not valid UTF-8 and were read as Latin-1 (Windows-1252 files often look like this); check accented letters", fixed))
			o.latin1 = false
		case (strings.Contains(msg, "Could not convert") || strings.Contains(msg, "Conversion Error")) && !o.fullSample:
			o.fullSample = true
			warnings = append(warnings, "column types were detected from the whole file, because the first rows were not typical")
		case strings.Contains(msg, "CSV Error") || strings.Contains(msg, "Conversion Error") || strings.Contains(msg, "Could not convert"):
			if o.skipBad {
				return csvErr(src.path, err)
			}
			o.skipBad = true
		default:
			return csvErr(src.path, err)
		}
	}
	if o.skipBad {
		w, err := rejected(ctx, c)
		if err != nil {
			return err
		}
		if w != "" {
			warnings = append(warnings, w)
		}
	}
	names, err := columnNames(ctx, c, d.Name)
	if err != nil {
		return err
	}
	if err := checkCSVShape(ctx, c, src, d.Name, names); err != nil {
		return err
	}
	hw, err := headerWarnings(ctx, c, o, staged, d.Name, names)
	if err != nil {
		return err
	}
	warnings = append(warnings, hw...)
	sw, err := l.shapeAndNumbers(ctx, c, o, staged, d.Name)
	if err != nil {
		return err
	}
	warnings = append(warnings, sw...)
	d.Warnings = append(d.Warnings, warnings...)
	return nil
}

// shapeAndNumbers says which rows were ragged and reads numbers written
// with separators (see raggedWarning, readNumbers). A plain file (see
// plainWide) has neither: every line has the same fields, and no value
// holds a comma or a semicolon, so it is not read again.
func (l *Loader) shapeAndNumbers(ctx context.Context, c *duckdb.Conn, o csvOpts, staged, table string) ([]string, error) {
	if o.plain {
		return nil, nil
	}
	cols, err := catalog.Describe(ctx, c, table)
	if err != nil {
		return nil, err
	}
	var out []string
	if w := raggedWarning(ctx, l.eng, c, o, staged, table, cols); w != "" {
		out = append(out, w)
	}
	nw, err := readNumbers(ctx, c, table, cols, o.user.Decimal)
	if err != nil {
		return nil, err
	}
	return append(out, nw...), nil
}

// ctas replaces name with the result of query, reporting DuckDB's progress.
func (l *Loader) ctas(ctx context.Context, c *duckdb.Conn, src *source, name, query string) error {
	stop := duck.WatchProgress(c, 200*time.Millisecond, func(p duck.Progress) {
		src.report(Progress{Table: name, Phase: "reading", Percent: p.Percent, Rows: p.RowsProcessed,
			Bytes: int64(p.Percent / 100 * float64(src.info.Size()))})
	})
	defer stop()
	// One statement only (duck.ExecOne): query names the user's files.
	if err := duck.ExecOne(ctx, c, "CREATE OR REPLACE TABLE "+duck.QuoteIdent(name)+" AS "+query); err != nil {
		return err
	}
	return nil
}

// repairEncoding rewrites the staged file as UTF-8, reading invalid bytes
// as Latin-1, and reports how many bytes it changed.
func (l *Loader) repairEncoding(ctx context.Context, src *source, staged string) (int, error) {
	fixed := 0
	err := copyFile(ctx, src.path, staged, func(r ioReader, w ioWriter) (int, error) {
		n, err := repairUTF8(r, w)
		fixed = n
		return n, err
	})
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, osErr(src.path, err)
	}
	return fixed, nil
}

// rejected summarises the rows DuckDB skipped (store_rejects) as a warning.
func rejected(ctx context.Context, c *duckdb.Conn) (string, error) {
	var n int64
	var first string
	err := each(ctx, c, "SELECT count(DISTINCT line), min(line) FROM reject_errors", func(v []any) {
		n = toInt(v[0])
		if v[1] != nil {
			first = fmt.Sprint(v[1])
		}
	})
	if err != nil {
		return "", fmt.Errorf("count skipped rows: %w", err)
	}
	var detail string
	_ = each(ctx, c, "SELECT error_message FROM reject_errors ORDER BY line LIMIT 1", func(v []any) {
		detail = firstLine(fmt.Sprint(v[0]))
	})
	for _, t := range []string{"reject_errors", "reject_scans"} {
		_ = duck.Exec(ctx, c, "DROP TABLE IF EXISTS "+t)
	}
	if n == 0 {
		return "", nil
	}
	return fmt.Sprintf("%d malformed rows were skipped (first at line %s: %s)", n, first, detail), nil
}

// checkCSVShape refuses a "table" DuckDB made from a file with no data:
// a single unnamed column holding nothing but NULLs. cols are the
// table's column names.
func checkCSVShape(ctx context.Context, c *duckdb.Conn, src *source, name string, cols []string) error {
	if len(cols) != 1 || cols[0] != "column0" {
		return nil
	}
	var values int64
	_ = each(ctx, c, "SELECT count(column0) FROM "+duck.QuoteIdent(name), func(v []any) { values = toInt(v[0]) })
	if values == 0 {
		return fileErr(src.path, "the file holds no data (only blank lines)", "check that the right file was saved", nil)
	}
	return nil
}

// headerWarnings compares the header row as written with the column names
// DuckDB gave, and says which columns were renamed (empty or duplicate
// names) or that no header row was found. It reads the file again only
// when the names show signs of renaming (DuckDB's column<N> and <name>_<N>),
// so that a clean load pays nothing for it. names are the table's
// column names, in order.
func headerWarnings(ctx context.Context, c *duckdb.Conn, o csvOpts, staged, table string, names []string) ([]string, error) {
	generic, suspicious := len(names) > 0, false
	for _, n := range names {
		g := generatedName.MatchString(n)
		generic = generic && g
		suspicious = suspicious || g || dedupedName.MatchString(n)
	}
	if !suspicious || o.user.Header == "no" {
		return nil, nil
	}
	raw := o
	raw.fullSample, raw.skipBad, raw.user.Header = false, false, ""
	q := "SELECT * FROM " + strings.TrimSuffix(raw.sql(staged), ")") + ", header = false, all_varchar = true) LIMIT 1"
	var header []string
	if err := each(ctx, c, q, func(v []any) {
		for _, x := range v {
			if x == nil {
				header = append(header, "")
			} else {
				header = append(header, fmt.Sprint(x))
			}
		}
	}); err != nil || len(header) != len(names) {
		return nil, nil
	}
	if !(generic && allDiffer(header, names)) {
		if err := nameByPosition(ctx, c, table, header, names); err != nil {
			return nil, err
		}
	}
	var renamed []string
	for i, h := range header {
		if h != names[i] {
			if strings.TrimSpace(h) == "" {
				renamed = append(renamed, fmt.Sprintf("column %d had no name → %s", i+1, names[i]))
			} else {
				renamed = append(renamed, fmt.Sprintf("%q → %s", h, names[i]))
			}
		}
	}
	switch {
	case len(renamed) == 0:
		return nil, nil
	case generic && len(renamed) == len(names):
		// Every column got a generated name and none matches the first
		// line: DuckDB found no header.
		return []string{"no header row was found; columns were named " + names[0] + ", … — the first line is data (reload with the header option if it is not)"}, nil
	}
	return []string{"columns renamed (empty or duplicate names): " + strings.Join(renamed, ", ")}, nil
}

func allDiffer(a, b []string) bool {
	for i := range a {
		if a[i] == b[i] {
			return false
		}
	}
	return true
}

// nameByPosition renames, in c's transaction, the columns DuckDB named
// column<i> (counting from 0) for an empty header field to column<i+1>,
// so that "column 5 had no name" becomes column5, not column4. A name
// already taken is left as DuckDB gave it. names is updated in place.
func nameByPosition(ctx context.Context, c *duckdb.Conn, table string, header, names []string) error {
	taken := make(map[string]bool, len(names))
	for _, n := range names {
		taken[strings.ToLower(n)] = true
	}
	// From the last column back: column4 → column5 frees column4 for
	// column3 → column4.
	for i := len(names) - 1; i >= 0; i-- {
		if strings.TrimSpace(header[i]) != "" || names[i] != "column"+strconv.Itoa(i) {
			continue
		}
		want := "column" + strconv.Itoa(i+1)
		if taken[want] {
			continue
		}
		q := "ALTER TABLE " + duck.QuoteIdent(table) + " RENAME COLUMN " + duck.QuoteIdent(names[i]) + " TO " + duck.QuoteIdent(want)
		if err := duck.ExecOne(ctx, c, q); err != nil {
			return fmt.Errorf("name column %d of %s: %w", i+1, finalName(table), err)
		}
		delete(taken, strings.ToLower(names[i]))
		taken[want] = true
		names[i] = want
	}
	return nil
}

var (
	generatedName = regexp.MustCompile(`^column\d+$`)
	dedupedName   = regexp.MustCompile(`_\d+$`)
)

// createJSON creates the table from JSON (an array, an object, or one
// object per line).
func (l *Loader) createJSON(ctx context.Context, c *duckdb.Conn, src *source, staged string, d *catalog.Dataset) error {
	args := duck.QuoteString(staged) + ", " + noHive
	if src.kind.comp == Gzip {
		args += ", compression = 'gzip'"
	}
	err := l.ctas(ctx, c, src, d.Name, "SELECT * FROM read_json_auto("+args+")")
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if strings.Contains(err.Error(), "Invalid unicode") || strings.Contains(err.Error(), "UTF-8") {
		if rerr := restart(ctx, c, d.Name); rerr != nil {
			return rerr
		}
		if _, rerr := l.repairEncoding(ctx, src, staged); rerr != nil {
			return rerr
		}
		if err = l.ctas(ctx, c, src, d.Name, "SELECT * FROM read_json_auto("+args+")"); err == nil {
			d.Warnings = append(d.Warnings, "bytes that were not valid UTF-8 were read as Latin-1")
			return nil
		}
	}
	return fileErr(src.path, "not valid JSON: "+firstLine(duckMsg(err)), "Loupe reads an array of objects, one object, or one object per line (NDJSON); check the file in a JSON validator", err)
}

func csvErr(path string, err error) error {
	return fileErr(path, "could not read it as CSV: "+firstLine(duckMsg(err)), "check the delimiter and quoting (open it in a text editor), or re-export it as UTF-8 CSV", err)
}

// duckMsg strips DuckDB's error-type prefix.
func duckMsg(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "Error: "); i >= 0 && i < 40 {
		msg = msg[i+len("Error: "):]
	}
	return msg
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func baseNoExt(path string) string {
	b := path
	if i := strings.LastIndexAny(b, `/\`); i >= 0 {
		b = b[i+1:]
	}
	if i := strings.LastIndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	return b
}
