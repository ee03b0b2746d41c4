package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
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

// Number formats are rewritten in memory before a workbook is read (see
// markFormats): excelize renders each cell through its number format, which
// is slow for dates and shows numbers as the author formatted them. Date and
// time formats become a plain serial number followed by dateMark and a
// class letter, which stageSheet turns into ISO text; every other numeric
// format becomes rawFormat, an id no format has, which excelize answers
// with the stored value.
const (
	dateMark  = "\uE000" // a private-use character, not found in real text
	rawFormat = -1
)

// progressEvery is how many rows pass between two progress reports (and
// cancellation checks) while a sheet or a table is copied.
const progressEvery = 4096

// stagedSheet is one sheet converted to a CSV in the import folder; path
// is empty when the sheet holds nothing.
type stagedSheet struct {
	sheet     string
	path      string
	rows      int64 // data rows, not counting the header
	errors    int64 // cells holding an Excel error (#N/A, #DIV/0!, …) left empty
	multiline bool  // some field holds a line break
}

// workbook is an open .xlsx file, prepared for reading (see markFormats).
type workbook struct {
	f        *excelize.File
	date1904 bool // serial dates count from 1904-01-01
	sheets   []string
}

// loadXLSX loads every non-empty sheet of an Excel workbook as a native
// table, all sheets in one transaction, so that either every sheet is
// loaded or none. Each sheet is streamed into a UTF-8 CSV in the import
// folder (removed afterwards) and read with the CSV path's read_csv
// options. Empty sheets are skipped with a warning on the first dataset;
// a workbook with no data at all, an encrypted one and a damaged one are
// *FileErrors.
func (l *Loader) loadXLSX(ctx context.Context, src *source) ([]catalog.Dataset, error) {
	wb, err := openWorkbook(src.path)
	if err != nil {
		return nil, err
	}
	defer wb.f.Close()
	var staged []string
	defer func() {
		for _, p := range staged {
			_ = os.Remove(p)
		}
	}()
	var out []catalog.Dataset
	err = l.commit(ctx, func(c *duckdb.Conn) error {
		var err error
		out, err = l.loadSheets(ctx, c, src, wb, &staged)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// loadSheets makes a table of each non-empty sheet on c, in c's
// transaction, and records every staged file in staged for removal.
func (l *Loader) loadSheets(ctx context.Context, c *duckdb.Conn, src *source, wb *workbook, staged *[]string) ([]catalog.Dataset, error) {
	started := time.Now()
	n, err := newNamer(ctx, c, src.path)
	if err != nil {
		return nil, err
	}
	base := baseNoExt(src.path)
	var out []catalog.Dataset
	var empty []string
	var written int64
	for _, sheet := range wb.sheets {
		name, err := n.stage(ctx, sheetName(base, sheet, len(wb.sheets)), sheet)
		if err != nil {
			return nil, err
		}
		d := catalog.Dataset{Name: name, Kind: string(XLSX), Part: sheet, Storage: "table"}
		dst := stagedPath(l.eng.ImportDir(), d.Name, src.path, ".csv")
		*staged = append(*staged, dst)
		s, err := stageSheet(ctx, wb, sheet, dst, func(rows int64) {
			src.report(Progress{Table: d.Name, Phase: "reading", Percent: -1, Rows: uint64(written + rows)})
		})
		if err != nil {
			return nil, sheetErr(ctx, src.path, sheet, err)
		}
		if s.path == "" {
			empty = append(empty, sheet)
			continue
		}
		written += s.rows
		d.Warnings = append(d.Warnings, s.warnings()...)
		if err := l.createSheet(ctx, c, src, s, &d); err != nil {
			return nil, err
		}
		if err := finish(ctx, c, src, &d, started); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, fileErr(src.path, "the workbook has no data (every sheet is empty)", "check that the right file was saved, with the data in its sheets", nil)
	}
	if len(empty) > 0 {
		out[0].Warnings = append(out[0].Warnings, "empty sheets were skipped: "+quoteList(empty))
	}
	if err := noteVanished(ctx, c, src, n, out, "sheet", partSet(wb.sheets)); err != nil {
		return nil, err
	}
	// A cancellation that came too late to stop a statement still stops
	// the commit.
	return out, ctx.Err()
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
	names, err := columnNames(ctx, c, d.Name)
	if err != nil {
		return err
	}
	hw, err := headerWarnings(ctx, c, o, s.path, d.Name, names)
	if err != nil {
		return err
	}
	d.Warnings = append(d.Warnings, hw...)
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

// openWorkbook opens an .xlsx file and prepares it for reading, turning
// excelize's errors into FileErrors: encrypted workbooks and damaged or
// fake ones.
func openWorkbook(path string) (*workbook, error) {
	f, err := excelize.OpenFile(path)
	if err != nil {
		if f != nil {
			_ = f.Close()
		}
		return nil, workbookErr(path, err)
	}
	wb := &workbook{f: f, sheets: f.GetSheetList()}
	props, err := f.GetWorkbookProps()
	if err == nil {
		wb.date1904 = props.Date1904 != nil && *props.Date1904
		err = markFormats(f)
	}
	if err != nil {
		_ = f.Close()
		return nil, fileErr(path, "the workbook's settings or styles are damaged: "+firstLine(err.Error()), "open it in Excel or LibreOffice and save it again as .xlsx", err)
	}
	return wb, nil
}

func workbookErr(path string, err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, excelize.ErrWorkbookPassword), errors.Is(err, excelize.ErrWorkbookFileFormat),
		errors.Is(err, excelize.ErrUnsupportedEncryptMechanism), strings.Contains(strings.ToLower(msg), "password"):
		return fileErr(path, "the workbook is encrypted (password-protected)", "open it in Excel, remove the password (File › Info › Protect Workbook) and save it again", err)
	case strings.Contains(msg, "zip:") || strings.Contains(msg, "not a valid zip"):
		return fileErr(path, "the workbook is damaged (not a complete .xlsx archive)", "if it was downloaded or copied, do that again; otherwise open it in Excel or LibreOffice, which may repair it, and save it again", err)
	}
	return fileErr(path, "cannot read the workbook: "+firstLine(msg), "open it in Excel or LibreOffice and save it again as .xlsx", err)
}

// fmtClass is what a number format shows.
type fmtClass int

const (
	fmtNumber   fmtClass = iota // digits: read unformatted
	fmtKeep                     // text or literal formats: read as formatted
	fmtDate                     // a calendar date
	fmtDateTime                 // a date and a time of day
	fmtTime                     // a time of day
	fmtElapsed                  // a duration ([h]:mm:ss)
)

// classLetter marks each date or time class after dateMark.
var classLetter = map[fmtClass]string{fmtDate: "D", fmtDateTime: "T", fmtTime: "H", fmtElapsed: "E"}

// markFormats rewrites, in memory, every cell style's number format: date
// and time formats become marked serial numbers and number formats the
// stored value (see dateMark), so that cells read as "2024-03-01" or
// "1234.5" rather than as displayed ("3/1/24", "1,234.50"). Text and
// literal formats are left alone.
func markFormats(f *excelize.File) error {
	if f.Styles == nil || f.Styles.CellXfs == nil {
		return nil
	}
	ids := map[fmtClass]int{fmtNumber: rawFormat}
	for class, letter := range classLetter {
		code := `0.000000000"` + dateMark + letter + `"`
		style, err := f.NewStyle(&excelize.Style{CustomNumFmt: &code})
		if err != nil {
			return fmt.Errorf("add date format: %w", err)
		}
		xf := f.Styles.CellXfs.Xf[style]
		if xf.NumFmtID == nil {
			return fmt.Errorf("add date format: no format id")
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
		id := 0
		if xf.NumFmtID != nil {
			id = *xf.NumFmtID
		}
		class := builtinClass(id)
		if code, ok := custom[id]; ok {
			class = formatClass(code)
		}
		if to, ok := ids[class]; ok && (xf.NumFmtID == nil || to != *xf.NumFmtID) {
			xf.NumFmtID = &to
		}
	}
	return nil
}

// unmark turns a marked serial number (see markFormats) into ISO text:
// 2024-03-01, 2024-03-01 09:30:00, 09:30:00 or 36:00:00 for a duration.
// Other values and serials out of Excel's range come back as they are,
// without the mark.
func unmark(v string, date1904 bool) string {
	i := strings.Index(v, dateMark)
	if i < 0 {
		return v
	}
	num, letter := v[:i], v[i+len(dateMark):]
	serial, err := strconv.ParseFloat(num, 64)
	if err != nil || serial < 0 || serial >= 2958466 { // 9999-12-31 is Excel's last day
		return strings.TrimRight(strings.TrimRight(num, "0"), ".")
	}
	if letter == classLetter[fmtElapsed] {
		secs := int64(math.Round(serial * 86400))
		return fmt.Sprintf("%d:%02d:%02d", secs/3600, secs/60%60, secs%60)
	}
	t := excelTime(serial, date1904)
	switch letter {
	case classLetter[fmtDate]:
		return t.Format("2006-01-02")
	case classLetter[fmtTime]:
		return t.Format("15:04:05.999")
	}
	return t.Format("2006-01-02 15:04:05.999")
}

// excelTime converts an Excel serial date (days since the workbook's epoch,
// with the day's fraction as time of day) to a time, rounded to the
// millisecond. In the 1900 system serial 60 is Excel's fictitious
// 1900-02-29, read as 1900-02-28.
func excelTime(serial float64, date1904 bool) time.Time {
	ms := int64(math.Round(serial * 86400000))
	days, rest := ms/86400000, ms%86400000
	base := time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	if !date1904 {
		base = time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC)
		if days >= 60 {
			days--
		}
	}
	return base.AddDate(0, 0, int(days)).Add(time.Duration(rest) * time.Millisecond)
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
	general := strings.Contains(s, "general")
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
	case general || strings.ContainsAny(s, "0#?") || strings.TrimSpace(code) == "":
		return fmtNumber
	}
	return fmtKeep // text (@) or literals only, as in "high";"high";"low"
}

// excelErrors are the values Excel shows in cells whose formula failed.
var excelErrors = map[string]bool{
	"#N/A": true, "#DIV/0!": true, "#VALUE!": true, "#REF!": true, "#NAME?": true, "#NUM!": true,
	"#NULL!": true, "#SPILL!": true, "#CALC!": true, "#GETTING_DATA": true, "#FIELD!": true, "#BLOCKED!": true,
}

// stageSheet streams one sheet into a CSV at dst: dates in ISO form (see
// unmark), the first non-empty row as the header (widened to the widest
// row, so that cells right of it keep a column), blank rows dropped, every
// non-empty field quoted so that DuckDB's sniffer cannot take another
// delimiter, and error cells left empty. It returns a stagedSheet with an
// empty path when the sheet holds nothing. progress is called with the
// rows written so far.
func stageSheet(ctx context.Context, wb *workbook, sheet, dst string, progress func(int64)) (stagedSheet, error) {
	s := stagedSheet{sheet: sheet}
	rows, err := wb.f.Rows(sheet)
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
		for i, c := range cells {
			if strings.Contains(c, dateMark) {
				cells[i] = unmark(c, wb.date1904)
			}
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
