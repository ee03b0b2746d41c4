package results

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/loupeapp/loupe/data/query"
)

// Column widths of an XLSX export, in characters.
const (
	xlsxMinWidth   = 6
	xlsxMaxWidth   = 60
	xlsxWidthRows  = 200 // rows looked at to size a column
	xlsxSheetTitle = "Result"
)

// WriteXLSX writes cols and rows to w as a workbook of one sheet: a bold,
// frozen header row, then one row per result row with typed cells —
// numbers as numbers, booleans as booleans, DATE and TIMESTAMP columns as
// dates with a date format, NULL as an empty cell, everything else as
// text (a text cell is never read as a formula) — and column widths sized
// to their content.
func WriteXLSX(w io.Writer, cols []query.Column, rows [][]any) error {
	return WriteXLSXSheets(w, []XLSXSheet{{Name: xlsxSheetTitle, Columns: cols, Rows: rows}})
}

// XLSXSheet is one sheet of a workbook: its name (made valid and unique
// by WriteXLSXSheets), its columns and rows (JSON-ready values).
type XLSXSheet struct {
	Name    string
	Columns []query.Column
	Rows    [][]any
}

// WriteXLSXSheets writes a workbook of sheets, in order, each as WriteXLSX
// writes its one sheet. A name Excel would refuse (over 31 characters,
// one of []:*?/\, empty, "History" or taken) is shortened, cleaned or
// numbered. At least one sheet is needed.
func WriteXLSXSheets(w io.Writer, sheets []XLSXSheet) error {
	if len(sheets) == 0 {
		return fmt.Errorf("write XLSX: no sheet to write")
	}
	f := excelize.NewFile()
	defer f.Close()
	st, err := newXLSXStyles(f)
	if err != nil {
		return fmt.Errorf("write XLSX: %w", err)
	}
	taken := map[string]bool{}
	for i, sh := range sheets {
		name := SheetName(sh.Name, taken)
		if i == 0 {
			err = f.SetSheetName("Sheet1", name)
		} else {
			_, err = f.NewSheet(name)
		}
		if err != nil {
			return fmt.Errorf("write XLSX sheet %q: %w", name, err)
		}
		if err := writeXLSXSheet(f, name, sh.Columns, sh.Rows, st); err != nil {
			return fmt.Errorf("write XLSX sheet %q: %w", name, err)
		}
	}
	f.SetActiveSheet(0)
	if _, err := f.WriteTo(w); err != nil {
		return fmt.Errorf("write XLSX: %w", err)
	}
	return nil
}

// SheetName makes s a valid sheet name not in taken, and adds it there.
func SheetName(s string, taken map[string]bool) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]:*?/\`, r) || r < 0x20 {
			return ' '
		}
		return r
	}, strings.Join(strings.Fields(s), " "))
	s = strings.Trim(s, "' ")
	if s == "" || strings.EqualFold(s, "History") {
		s = "Sheet"
	}
	base := truncRunes(s, 31)
	name := base
	for n := 2; taken[strings.ToLower(name)]; n++ {
		suffix := fmt.Sprintf(" (%d)", n)
		name = truncRunes(base, 31-len(suffix)) + suffix
	}
	taken[strings.ToLower(name)] = true
	return name
}

func truncRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n]))
}

type xlsxStyles struct{ bold, date, stamp int }

func newXLSXStyles(f *excelize.File) (xlsxStyles, error) {
	var st xlsxStyles
	var err error
	if st.bold, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}}); err != nil {
		return st, err
	}
	if st.date, err = f.NewStyle(&excelize.Style{NumFmt: 14}); err != nil { // m/d/yyyy, as the reader's locale shows dates
		return st, err
	}
	stampFmt := "yyyy-mm-dd hh:mm:ss"
	st.stamp, err = f.NewStyle(&excelize.Style{CustomNumFmt: &stampFmt})
	return st, err
}

func writeXLSXSheet(f *excelize.File, sheet string, cols []query.Column, rows [][]any, st xlsxStyles) error {
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return err
	}
	widths := make([]int, len(cols))
	header := make([]any, len(cols))
	for i, c := range cols {
		header[i] = excelize.Cell{StyleID: st.bold, Value: c.Name}
		widths[i] = utf8.RuneCountInString(c.Name) + 2
	}
	for n, row := range rows {
		for i := range cols {
			if n < xlsxWidthRows && i < len(row) {
				widths[i] = max(widths[i], utf8.RuneCountInString(Cell(row[i]))+2)
			}
		}
	}
	for i, wd := range widths {
		if err := sw.SetColWidth(i+1, i+1, float64(min(max(wd, xlsxMinWidth), xlsxMaxWidth))); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	if err := sw.SetRow("A1", header); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	cells := make([]any, len(cols))
	for n, row := range rows {
		for i, c := range cols {
			var v any
			if i < len(row) {
				v = row[i]
			}
			cells[i] = xlsxCell(v, c.Type, st.date, st.stamp)
		}
		axis, err := excelize.CoordinatesToCellName(1, n+2)
		if err != nil {
			return fmt.Errorf("row %d: %w", n+1, err)
		}
		if err := sw.SetRow(axis, cells); err != nil {
			return fmt.Errorf("row %d: %w", n+1, err)
		}
	}
	return sw.Flush()
}

// xlsxCell is the typed cell for a JSON-ready value of a column of SQL
// type typ.
func xlsxCell(v any, typ string, dateStyle, stampStyle int) any {
	switch x := v.(type) {
	case nil:
		return nil
	case bool, int64, int32, int16, int8, uint8, uint16, uint32, int, float64, float32:
		return x
	case string:
		u := strings.ToUpper(typ)
		switch {
		case u == "DATE":
			if t, err := time.Parse("2006-01-02", x); err == nil {
				return excelize.Cell{StyleID: dateStyle, Value: t}
			}
		case strings.HasPrefix(u, "TIMESTAMP") && !strings.Contains(u, "TZ") && !strings.Contains(u, "ZONE"):
			if t, err := time.Parse("2006-01-02 15:04:05.999999", x); err == nil {
				return excelize.Cell{StyleID: stampStyle, Value: t}
			}
		case numericType(u):
			if f, err := strconv.ParseFloat(x, 64); err == nil { // a DECIMAL too precise for float64 keeps its digits as text
				if strconv.FormatFloat(f, 'f', -1, 64) == x {
					return f
				}
			}
		}
		return x
	}
	return Cell(v)
}

// numericType reports whether a DuckDB type holds numbers.
func numericType(u string) bool {
	for _, p := range []string{"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL", "REAL"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}
