package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/xuri/excelize/v2"

	"github.com/loupeapp/loupe/data/catalog"
)

// ISO number formats that replace a workbook's date and time formats while
// it is read, so that dates reach DuckDB's CSV sniffer as DATE, TIMESTAMP
// or TIME values whatever the author's locale or display format.
const (
	isoDate     = "yyyy-mm-dd"
	isoDateTime = "yyyy-mm-dd hh:mm:ss"
	isoTime     = "hh:mm:ss"
	isoElapsed  = "[h]:mm:ss"
)

// progressEvery is how many rows pass between two progress reports (and
// cancellation checks) while a sheet or a table is copied.
const progressEvery = 4096

// stagedSheet is one non-empty sheet converted to a CSV in the import folder.
type stagedSheet struct {
	sheet     string
	path      string
	rows      int64 // data rows, not counting the header
	errors    int64 // cells holding an Excel error (#N/A, #DIV/0!, …) left empty
	multiline bool  // some field holds a line break
}

// loadXLSX loads every non-empty sheet of an Excel workbook as a native
// table, all sheets in one transaction, so that either every sheet is
// loaded or none. Each sheet is streamed into a UTF-8 CSV in the import
// folder (removed afterwards) and read with the CSV path's read_csv
// options. Empty sheets are skipped with a warning on the first dataset;
// a workbook with no data at all, an encrypted one and a damaged one are
// *FileErrors.
func (l *Loader) loadXLSX(ctx context.Context, src *source) ([]catalog.Dataset, error) {
	f, err := openWorkbook(src.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := isoFormats(f); err != nil {
		return nil, fileErr(src.path, "the workbook's styles are damaged: "+err.Error(), "open it in Excel or LibreOffice and save it again as .xlsx", err)
	}
	sheets := f.GetSheetList()
	base := baseNoExt(src.path)
	var staged []string
	defer func() {
		for _, p := range staged {
			_ = os.Remove(p)
		}
	}()
	started := time.Now()
	var out []catalog.Dataset
	err = l.commit(ctx, func(c *duckdb.Conn) error {
		out = out[:0]
		n, err := newNamer(ctx, c)
		if err != nil {
			return err
		}
		var empty []string
		var written int64
		for _, sheet := range sheets {
			d := catalog.Dataset{Name: n.pick(sheetName(base, sheet, len(sheets)), src.path, sheet), Kind: string(XLSX), Part: sheet, Storage: "table"}
			dst := stagedPath(l.eng.ImportDir(), d.Name, src.path, ".csv")
			staged = append(staged, dst)
			s, err := stageSheet(ctx, f, sheet, dst, func(rows int64) {
				src.report(Progress{Table: d.Name, Phase: "reading", Percent: -1, Rows: uint64(written + rows)})
			})
			if err != nil {
				return sheetErr(ctx, src.path, sheet, err)
			}
			if s.path == "" {
				empty = append(empty, sheet)
				continue
			}
			written += s.rows
			d.Warnings = append(d.Warnings, s.warnings()...)
			if err := l.createSheet(ctx, c, src, s, &d); err != nil {
				return err
			}
			if err := finish(ctx, c, src, &d, started); err != nil {
				return err
			}
			out = append(out, d)
		}
		if len(out) == 0 {
			return fileErr(src.path, "the workbook has no data (every sheet is empty)", "check that the right file was saved, with the data in its sheets", nil)
		}
		if len(empty) > 0 {
			out[0].Warnings = append(out[0].Warnings, "empty sheets were skipped: "+quoteList(empty))
			if err := catalog.Put(ctx, c, out[0]); err != nil {
				return err
			}
		}
		// A cancellation that came too late to stop a statement still
		// stops the commit.
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sheetErr turns a failure to read a sheet into a FileError (or ctx's
// error when the load was cancelled).
func sheetErr(ctx context.Context, path, sheet string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var fe *FileError
	if errors.As(err, &fe) {
		return err
	}
	return fileErr(path, fmt.Sprintf("cannot read sheet %q: %v", sheet, err), "open it in Excel or LibreOffice and save it again as .xlsx", err)
}

// createSheet replaces d's table with a staged sheet. The CSV is Loupe's
// own, well formed and quoted, so one read_csv with types detected over the
// whole file (and the serial reader when fields hold line breaks) suffices:
// createCSV's retries would roll back the transaction, and with it the
// sheets made before this one.
func (l *Loader) createSheet(ctx context.Context, c *duckdb.Conn, src *source, s stagedSheet, d *catalog.Dataset) error {
	if err := replaceObject(ctx, c, d.Name); err != nil {
		return err
	}
	o := csvOpts{serial: s.multiline, fullSample: true}
	if err := l.ctas(ctx, c, src, d.Name, "SELECT * FROM "+o.sql(s.path)); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fileErr(src.path, fmt.Sprintf("cannot make a table of sheet %q: %s", s.sheet, firstLine(duckMsg(err))), "open it in Excel or LibreOffice, check that sheet and save it again", err)
	}
	d.Warnings = append(d.Warnings, headerWarnings(ctx, c, o, s.path, d.Name)...)
	return nil
}

// sheetName is the SQL name a sheet's table starts from: the file's name
// for a workbook of one sheet, else the file's and the sheet's together.
func sheetName(base, sheet string, sheetCount int) string {
	if sheetCount == 1 {
		return sqlName(base)
	}
	return sqlName(base + "_" + sheet)
}

func (s stagedSheet) warnings() []string {
	var w []string
	if s.errors > 0 {
		w = append(w, fmt.Sprintf("%d cells held Excel errors (#N/A, #DIV/0!, …) and were left empty", s.errors))
	}
	return w
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// openWorkbook opens an .xlsx file, turning excelize's errors into
// FileErrors: encrypted workbooks and damaged or fake ones.
func openWorkbook(path string) (*excelize.File, error) {
	f, err := excelize.OpenFile(path)
	if err == nil {
		return f, nil
	}
	if f != nil {
		_ = f.Close()
	}
	msg := err.Error()
	switch {
	case errors.Is(err, excelize.ErrWorkbookPassword), errors.Is(err, excelize.ErrWorkbookFileFormat),
		errors.Is(err, excelize.ErrUnsupportedEncryptMechanism), strings.Contains(strings.ToLower(msg), "password"):
		return nil, fileErr(path, "the workbook is encrypted (password-protected)", "open it in Excel, remove the password (File › Info › Protect Workbook) and save it again", err)
	case strings.Contains(msg, "zip:") || strings.Contains(msg, "not a valid zip"):
		return nil, fileErr(path, "the workbook is damaged (not a complete .xlsx archive)", "if it was downloaded or copied, do that again; otherwise open it in Excel or LibreOffice, which may repair it, and save it again", err)
	}
	return nil, fileErr(path, "cannot read the workbook: "+firstLine(msg), "open it in Excel or LibreOffice and save it again as .xlsx", err)
}

// fmtClass is what a number format shows.
type fmtClass int

const (
	fmtNumber   fmtClass = iota // digits: shown unformatted (General)
	fmtKeep                     // text or literal formats: shown as formatted
	fmtDate                     // a calendar date
	fmtDateTime                 // a date and a time of day
	fmtTime                     // a time of day
	fmtElapsed                  // a duration ([h]:mm:ss)
)

// isoFormats rewrites, in memory, every cell style's number format: date
// and time formats become ISO ones and number formats become General, so
// that cells read as "2024-03-01" or "1234.5" rather than as displayed
// ("3/1/24", "1,234.50"). Text and literal formats are left alone.
func isoFormats(f *excelize.File) error {
	if f.Styles == nil || f.Styles.CellXfs == nil {
		return nil
	}
	ids := map[fmtClass]int{fmtNumber: 0}
	for class, code := range map[fmtClass]string{fmtDate: isoDate, fmtDateTime: isoDateTime, fmtTime: isoTime, fmtElapsed: isoElapsed} {
		code := code
		style, err := f.NewStyle(&excelize.Style{CustomNumFmt: &code})
		if err != nil {
			return fmt.Errorf("add ISO format %s: %w", code, err)
		}
		xf := f.Styles.CellXfs.Xf[style]
		if xf.NumFmtID == nil {
			return fmt.Errorf("add ISO format %s: no format id", code)
		}
		ids[class] = *xf.NumFmtID
	}
	custom := map[int]string{}
	if f.Styles.NumFmts != nil {
		for _, nf := range f.Styles.NumFmts.NumFmt {
			if nf == nil {
				continue
			}
			code := nf.FormatCode
			if nf.FormatCode16 != "" {
				code = nf.FormatCode16
			}
			custom[nf.NumFmtID] = code
		}
	}
	for i := range f.Styles.CellXfs.Xf {
		xf := &f.Styles.CellXfs.Xf[i]
		if xf.NumFmtID == nil {
			continue
		}
		class := builtinClass(*xf.NumFmtID)
		if code, ok := custom[*xf.NumFmtID]; ok {
			class = formatClass(code)
		}
		if id, ok := ids[class]; ok {
			xf.NumFmtID = &id
		}
	}
	return nil
}

// builtinClass classifies Excel's built-in number formats (ECMA-376
// 18.8.30, including the East Asian date and time formats).
func builtinClass(id int) fmtClass {
	switch {
	case id >= 14 && id <= 17, id >= 27 && id <= 31, id == 36, id >= 50 && id <= 54, id == 57, id == 58:
		return fmtDate
	case id == 22:
		return fmtDateTime
	case id >= 18 && id <= 21, id >= 32 && id <= 35, id == 45, id == 47, id == 55, id == 56:
		return fmtTime
	case id == 46:
		return fmtElapsed
	case id == 49:
		return fmtKeep
	}
	return fmtNumber
}

// formatClass classifies a custom number format code by the tokens of its
// first section, ignoring quoted text, escapes, colours, locales and
// conditions.
func formatClass(code string) fmtClass {
	var b strings.Builder
	elapsed := false
	inQuote := false
	rs := []rune(code)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case inQuote:
			inQuote = r != '"'
		case r == '"':
			inQuote = true
		case r == '\\' || r == '_' || r == '*':
			i++ // the next character is a literal or a fill
		case r == ';':
			i = len(rs)
		case r == '[':
			end := i + 1
			for end < len(rs) && rs[end] != ']' {
				end++
			}
			inner := strings.ToLower(string(rs[i+1 : min(end, len(rs))]))
			if inner != "" && strings.Trim(inner, "hms") == "" {
				elapsed = true
			}
			i = end
		default:
			b.WriteRune(r)
		}
	}
	s := strings.ToLower(b.String())
	s = strings.NewReplacer("general", "", "am/pm", "", "a/p", "").Replace(s)
	hasDate := strings.ContainsAny(s, "yd")
	hasTime := strings.ContainsAny(s, "hs")
	switch {
	case elapsed:
		return fmtElapsed
	case hasDate && hasTime:
		return fmtDateTime
	case hasDate:
		return fmtDate
	case hasTime:
		return fmtTime
	case strings.ContainsRune(s, 'm'):
		return fmtDate // a month on its own, as in "mmmm"
	case strings.ContainsAny(s, "0#?") || strings.TrimSpace(s) == "":
		return fmtNumber
	}
	return fmtKeep
}

// excelErrors are the values Excel shows in cells whose formula failed.
var excelErrors = map[string]bool{
	"#N/A": true, "#DIV/0!": true, "#VALUE!": true, "#REF!": true, "#NAME?": true, "#NUM!": true,
	"#NULL!": true, "#SPILL!": true, "#CALC!": true, "#GETTING_DATA": true, "#FIELD!": true, "#BLOCKED!": true,
}

// stageSheet streams one sheet into a CSV at dst: the first non-empty row
// is the header (widened to the widest row, so that cells right of it keep
// a column), blank rows are dropped, every non-empty field is quoted so
// that DuckDB's sniffer cannot take another delimiter, and error cells are
// left empty. It returns a stagedSheet with an empty path when the sheet
// holds nothing. progress is called with the rows written so far.
func stageSheet(ctx context.Context, f *excelize.File, sheet, dst string, progress func(int64)) (stagedSheet, error) {
	s := stagedSheet{sheet: sheet}
	rows, err := f.Rows(sheet)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	body, err := os.CreateTemp(filepath.Dir(dst), ".staging-*")
	if err != nil {
		return s, fmt.Errorf("stage sheet %q: %w", sheet, err)
	}
	defer os.Remove(body.Name())
	defer body.Close()
	w := bufio.NewWriterSize(body, 1<<20)
	var header []string
	width := 0
	for rows.Next() {
		cells, err := rows.Columns()
		if err != nil {
			return s, err
		}
		cells = trimRow(cells)
		if len(cells) == 0 {
			continue
		}
		s.errors += blankErrors(cells)
		s.multiline = s.multiline || hasLineBreak(cells)
		if header == nil {
			header = cells
			continue
		}
		if err := writeRecord(w, cells, 0); err != nil {
			return s, fmt.Errorf("stage sheet %q: %w", sheet, err)
		}
		width = max(width, len(cells))
		s.rows++
		if s.rows%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return s, err
			}
			progress(s.rows)
		}
	}
	if err := rows.Error(); err != nil {
		return s, err
	}
	if header == nil {
		return s, nil
	}
	progress(s.rows)
	if err := w.Flush(); err != nil {
		return s, fmt.Errorf("stage sheet %q: %w", sheet, err)
	}
	if err := joinHeader(header, max(width, len(header)), body, dst); err != nil {
		return s, fmt.Errorf("stage sheet %q: %w", sheet, err)
	}
	s.path = dst
	return s, nil
}

// trimRow drops the empty cells at the end of a row (formatted but blank
// cells come back as "").
func trimRow(cells []string) []string {
	n := len(cells)
	for n > 0 && strings.TrimSpace(cells[n-1]) == "" {
		n--
	}
	return cells[:n]
}

func hasLineBreak(cells []string) bool {
	for _, c := range cells {
		if strings.ContainsAny(c, "\r\n") {
			return true
		}
	}
	return false
}

// blankErrors empties the cells that hold an Excel error value and
// returns how many there were.
func blankErrors(cells []string) int64 {
	var n int64
	for i, c := range cells {
		if len(c) > 0 && c[0] == '#' && excelErrors[c] {
			cells[i] = ""
			n++
		}
	}
	return n
}

// joinHeader writes dst as the header row (padded to width columns)
// followed by the body already written, atomically.
func joinHeader(header []string, width int, body *os.File, dst string) error {
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".staging-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	err = writeRecord(w, header, width)
	if err == nil {
		_, err = io.Copy(w, body)
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// writeRecord writes one CSV line of at least width fields: empty fields
// bare (DuckDB reads them as NULL), others quoted, invalid UTF-8 replaced.
func writeRecord(w *bufio.Writer, cells []string, width int) error {
	for i := 0; i < max(len(cells), width); i++ {
		if i > 0 {
			w.WriteByte(',')
		}
		if i >= len(cells) || cells[i] == "" {
			continue
		}
		v := cells[i]
		if !utf8.ValidString(v) {
			v = strings.ToValidUTF8(v, "\uFFFD")
		}
		w.WriteByte('"')
		w.WriteString(strings.ReplaceAll(v, `"`, `""`))
		w.WriteByte('"')
	}
	_, err := w.WriteString("\n")
	return err
}
