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
	f := excelize.NewFile()
	defer f.Close()
	sheet := xlsxSheetTitle
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return fmt.Errorf("write XLSX: %w", err)
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return fmt.Errorf("write XLSX: %w", err)
	}
	dateStyle, err := f.NewStyle(&excelize.Style{NumFmt: 14}) // m/d/yyyy, as the reader's locale shows dates
	if err != nil {
		return fmt.Errorf("write XLSX: %w", err)
	}
	stampFmt := "yyyy-mm-dd hh:mm:ss"
	stampStyle, err := f.NewStyle(&excelize.Style{CustomNumFmt: &stampFmt})
	if err != nil {
		return fmt.Errorf("write XLSX: %w", err)
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return fmt.Errorf("write XLSX: %w", err)
	}
	widths := make([]int, len(cols))
	header := make([]any, len(cols))
	for i, c := range cols {
		header[i] = excelize.Cell{StyleID: bold, Value: c.Name}
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
			return fmt.Errorf("write XLSX: %w", err)
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return fmt.Errorf("write XLSX: %w", err)
	}
	if err := sw.SetRow("A1", header); err != nil {
		return fmt.Errorf("write XLSX header: %w", err)
	}
	cells := make([]any, len(cols))
	for n, row := range rows {
		for i, c := range cols {
			var v any
			if i < len(row) {
				v = row[i]
			}
			cells[i] = xlsxCell(v, c.Type, dateStyle, stampStyle)
		}
		axis, err := excelize.CoordinatesToCellName(1, n+2)
		if err != nil {
			return fmt.Errorf("write XLSX row %d: %w", n+1, err)
		}
		if err := sw.SetRow(axis, cells); err != nil {
			return fmt.Errorf("write XLSX row %d: %w", n+1, err)
		}
	}
	if err := sw.Flush(); err != nil {
		return fmt.Errorf("write XLSX: %w", err)
	}
	if _, err := f.WriteTo(w); err != nil {
		return fmt.Errorf("write XLSX: %w", err)
	}
	return nil
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
