package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// A small, plain CSV or TSV (a day's export of one store: a header and a
// few hundred rows of unquoted values) is loaded straight as a view over
// a private copy (see SmallText), without the table the other files are
// read into. Most of the cost of loading such a file was DuckDB's
// sniffer, run three times (the table's read, the view's sniff_csv and
// every later query of a view without explicit options): 9 to 15 ms each
// for 200 rows, against about 1 ms with the dialect given and under 1 ms
// to read the file with every option given. Loupe reads the file itself,
// and when it is plain (see plainText) it knows the dialect for certain
// and gives it to DuckDB's sniffer once, which still detects the header
// and the column types; the view reads the copy with the options the
// sniffer returns, so no query of it sniffs again.

// errNotPlain rolls back a direct view that turned out not to fit (see
// loadPlainView): the file is then read as a table like any other.
var errNotPlain = errors.New("not a plain small text file")

// plainText reports whether text, the whole of a delimited file, is plain
// for delim: valid UTF-8; no quote, apostrophe, backslash, other candidate
// delimiter or control character anywhere; no line starting with '#' (a
// comment to DuckDB's sniffer); a header line and at least one more; and
// every line with the same number of fields, two or more (line ends "\n"
// or "\r\n", the last one optional). For such a file the dialect {delim,
// quote '"', escape '"'} reads exactly what DuckDB's sniffer would pick:
// there is nothing to quote or escape and only one delimiter. It returns
// the header's fields.
func plainText(text []byte, delim byte) ([]string, bool) {
	if len(text) == 0 || !utf8.Valid(text) {
		return nil, false
	}
	others := strings.ReplaceAll("\"'\\,;|\t", string(delim), "")
	var header []string
	want := -1
	lines := 0
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 || line[0] == '#' {
			return nil, false // a blank line or a comment
		}
		fields := 1
		for _, b := range line {
			switch {
			case b == delim:
				fields++
			case b < 0x20 || b == 0x7f || strings.IndexByte(others, b) >= 0:
				return nil, false
			}
		}
		if want < 0 {
			want = fields
			header = strings.Split(string(line), string(delim))
		} else if fields != want {
			return nil, false
		}
		lines++
	}
	return header, want >= 2 && lines >= 2
}

// plainCandidate reports whether src may be loaded by loadPlainView: a
// small, uncompressed UTF-8 CSV or TSV, found where its name says, loaded
// without import options.
func plainCandidate(src *source) bool {
	return src.info.Size() <= SmallText && src.kind.comp == None && src.kind.encoding == "" && src.kind.warning == "" &&
		(src.kind.format == CSV || src.kind.format == TSV) && src.opt.Text.IsZero()
}

// loadPlainView loads src, a plainCandidate, as a view over a private
// copy in the import folder, in one transaction: the view is made under
// the dataset's name, replacing what held it, checked, profiled (a view
// over a file has no statistics that need committed data, the reason
// other loads commit staging objects first; see Loader.Load) and
// recorded. It reports false, leaving nothing behind, when the file is
// not plain (see plainText) or when what DuckDB makes of it would need
// the table path's repairs or warnings: a header DuckDB did not take as
// it is written (no header found, empty, duplicate or odd names), more
// than ViewColumns columns, a value the sniffed types cannot hold (the
// sniffer samples; the profile reads every value), a text column of
// numbers written with separators (see readNumbers), or a column the
// profile could not compute. Errors are as Load's; a failure or a cancel
// rolls everything back and removes the copy.
func (l *Loader) loadPlainView(ctx context.Context, src *source) ([]catalog.Dataset, bool, error) {
	started := time.Now()
	var d catalog.Dataset
	var copyPath string
	var replaced []catalog.Dataset
	err := l.commit(ctx, func(c *duckdb.Conn) error {
		n, err := newNamer(ctx, c, src.path)
		if err != nil {
			return err
		}
		// The namer looked the name up: a dataset of this source (a
		// reload) or none holds it.
		name, err := n.pick(ctx, sqlName(baseNoExt(src.path)), "")
		if err != nil {
			return err
		}
		old, found := n.existing[name]
		if d, copyPath, err = l.plainStage(ctx, c, src, name, found); err != nil {
			return err
		}
		src.report(Progress{Table: d.Name, Phase: "profiling", Percent: -1})
		r, err := catalog.ProfileView(ctx, c, d.Name, d.Columns, src.opt.ProfileBudget)
		switch {
		case err != nil:
			return fmt.Errorf("profile %s: %w", d.Name, err)
		case len(r.Skipped) > 0:
			// A value the sniffed types cannot hold, or a failed query,
			// which aborts the transaction: the table path profiles
			// committed data, a column at a time.
			return fmt.Errorf("%w: %s", errNotPlain, r.Warning())
		case r.Rows == 0:
			return fmt.Errorf("%w: no rows", errNotPlain)
		}
		profiled(&d, r)
		stamp(src, &d, started)
		store := catalog.Insert
		if found {
			store = catalog.Put
			catalog.CarryNotes(old, &d) // a reload keeps the user's notes
			if old.Staged != d.Staged {
				replaced = append(replaced, old)
			}
		}
		return store(ctx, c, d)
	})
	if err != nil {
		if copyPath != "" {
			_ = os.Remove(copyPath)
		}
		if ctx.Err() != nil {
			return nil, true, ctx.Err() // an interrupted statement is no reason to try a table
		}
		if errors.Is(err, errNotPlain) {
			l.log.Debug("loading a small text file as a table", "file", src.path, "why", err)
			return nil, false, nil
		}
		return nil, true, err
	}
	if len(replaced) > 0 {
		_ = l.eng.Write(context.Background(), func(c *duckdb.Conn) error {
			l.forget(c, replaced)
			return nil
		})
	}
	return []catalog.Dataset{d}, true, nil
}

// plainStage copies src into the import folder and makes the view name
// over the copy in c's transaction, replacing the dataset that held the
// name (found), and checks it (see loadPlainView). It returns the copy's
// path whenever it made one, for the caller to remove on failure.
func (l *Loader) plainStage(ctx context.Context, c *duckdb.Conn, src *source, name string, found bool) (catalog.Dataset, string, error) {
	delim := byte(',')
	ext := ".csv"
	if src.kind.format == TSV {
		delim, ext = '\t', ".tsv"
	}
	// A name of its own per load: the view a reload replaces still reads
	// its file until the reload is in place.
	copyPath := stagedPath(l.eng.ImportDir(), name+"-"+strconv.FormatInt(time.Now().UnixNano(), 36), src.path, ext)
	text, err := copyText(ctx, src.path, copyPath)
	if err != nil {
		return catalog.Dataset{}, copyPath, err
	}
	header, ok := plainText(text, delim)
	if !ok {
		return catalog.Dataset{}, copyPath, fmt.Errorf("%w: quotes, other delimiters, control characters, blank or ragged lines", errNotPlain)
	}
	d := catalog.Dataset{Name: name, Kind: string(src.kind.format), Storage: "view", Staged: copyPath}
	if found {
		if err := replaceObject(ctx, c, d.Name); err != nil {
			return d, copyPath, err
		}
	}
	if d.Reader, err = plainView(ctx, c, d.Name, copyPath, delim); err != nil {
		return d, copyPath, err
	}
	cols, err := catalog.Describe(ctx, c, d.Name)
	if err != nil {
		return d, copyPath, err
	}
	if !sameNames(cols, header) {
		return d, copyPath, fmt.Errorf("%w: DuckDB named the columns otherwise than the header", errNotPlain)
	}
	if len(cols) > ViewColumns {
		return d, copyPath, fmt.Errorf("%w: %d columns", errNotPlain, len(cols))
	}
	if styles := numberSuspects(text, delim, cols); len(styles) > 0 {
		if err := measureStyles(ctx, c, duck.QuoteIdent(d.Name), styles); err != nil {
			return d, copyPath, fmt.Errorf("%w: %s", errNotPlain, firstLine(duckMsg(err)))
		}
		for _, s := range styles {
			if s.isEU() || s.isUS() {
				// The table path reads them as numbers, or warns.
				return d, copyPath, fmt.Errorf("%w: text column %s of numbers written with separators", errNotPlain, s.name)
			}
		}
	}
	d.Columns = cols
	return d, copyPath, nil
}

// numberSuspects returns the text columns of the plain file text (whose
// columns are cols, named as its header) that may hold numbers written
// with separators (see readNumbers): those whose every value, trimmed of
// spaces, is made of digits, signs, points and commas, one at least with
// a point or a comma. It reads the text, not DuckDB, so that a file with
// none pays nothing; DuckDB measures the suspects (see measureStyles).
func numberSuspects(text []byte, delim byte, cols []catalog.Column) []numberStyle {
	maybe := make([]bool, len(cols))
	sep := make([]bool, len(cols))
	some := false
	for i, col := range cols {
		maybe[i] = strings.HasPrefix(strings.ToUpper(col.Type), "VARCHAR")
		some = some || maybe[i]
	}
	if !some {
		return nil
	}
	lines := bytes.Split(bytes.TrimRight(text, "\r\n"), []byte("\n"))
	for _, line := range lines[1:] {
		for i, f := range bytes.Split(bytes.TrimSuffix(line, []byte("\r")), []byte{delim}) {
			if i >= len(cols) || !maybe[i] {
				continue
			}
			f = bytes.Trim(f, " ")
			for _, b := range f {
				switch {
				case b == '.' || b == ',':
					sep[i] = true
				case (b < '0' || b > '9') && b != '+' && b != '-':
					maybe[i] = false
				}
			}
		}
	}
	var out []numberStyle
	for i, col := range cols {
		if maybe[i] && sep[i] {
			out = append(out, numberStyle{name: col.Name})
		}
	}
	return out
}

// copyText copies the file at src to dst (see copyFile) and returns its
// bytes, which are at most SmallText.
func copyText(ctx context.Context, src, dst string) ([]byte, error) {
	var text []byte
	err := copyFile(ctx, src, dst, func(r io.Reader, w io.Writer) (int, error) {
		b, err := io.ReadAll(io.LimitReader(r, SmallText+1))
		if err != nil {
			return 0, err
		}
		text = b
		_, err = w.Write(b)
		return 0, err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, osErr(src, err)
	}
	if len(text) > SmallText {
		return nil, errNotPlain // it grew since it was looked at
	}
	return text, nil
}

// plainView creates view over the plain file at path (see plainText),
// in c's transaction: DuckDB's sniffer, given the dialect, detects the
// header and the types once, and the view reads the file with every
// option it found, so that no query of the view sniffs again. It returns
// the view's reader (see viewOver).
func plainView(ctx context.Context, c *duckdb.Conn, view, path string, delim byte) (string, error) {
	d := "','"
	if delim == '\t' {
		d = `'\t'`
	}
	found, err := sniff(ctx, c, "sniff_csv("+duck.QuoteString(path)+", delim = "+d+`, quote = '"', escape = '"', `+noHive+")")
	if err != nil {
		return "", fmt.Errorf("%w: sniff: %v", errNotPlain, firstLine(duckMsg(err)))
	}
	if !found.header {
		return "", fmt.Errorf("%w: no header row found", errNotPlain)
	}
	// An object no record names (none is expected) fails this, and the
	// table path, which replaces whatever holds the name, takes over.
	macro, err := viewOver(ctx, c, view, path, found.options(noHive))
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNotPlain, firstLine(duckMsg(err)))
	}
	return macro, nil
}

// sameNames reports whether cols are named exactly as header, in order,
// with names a statement can hold (see cleanNames).
func sameNames(cols []catalog.Column, header []string) bool {
	if len(cols) != len(header) {
		return false
	}
	for i, col := range cols {
		if col.Name != header[i] {
			return false
		}
	}
	_, renamed := cleanNames(cols)
	return len(renamed) == 0
}
