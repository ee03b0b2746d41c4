package results

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/loupeapp/loupe/data/query"
)

// WriteCSV writes a header of cols' names and then rows to w as CSV, each
// cell formatted by Cell and neutralised by SafeCell. Every CSV Loupe
// writes for the user goes through here.
func WriteCSV(w io.Writer, cols []query.Column, rows [][]any) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(cols))
	for i, c := range cols {
		rec[i] = SafeCell(c.Name)
	}
	if err := cw.Write(rec); err != nil {
		return fmt.Errorf("write CSV header: %w", err)
	}
	for n, row := range rows {
		for i := range rec {
			rec[i] = ""
			if i < len(row) {
				rec[i] = Cell(row[i])
			}
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write CSV row %d: %w", n+1, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	return nil
}

// Cell formats a JSON-ready value for a CSV cell: NULL is empty, numbers
// and booleans as Go writes them (never prefixed: they cannot hold a
// formula), text through SafeCell, nested values as JSON through
// SafeCell.
func Cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return SafeCell(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return SafeCell(fmt.Sprint(v))
	}
	if s, err := strconv.Unquote(string(b)); err == nil {
		return SafeCell(s)
	}
	return SafeCell(string(b))
}

// plainNumber is text a spreadsheet reads as a number and nothing else:
// "-12.5", "+3", "1e-3".
var plainNumber = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// SafeCell neutralises CSV formula injection (OWASP, "CSV Injection"): a
// cell starting with =, +, -, @, tab or carriage return is one a
// spreadsheet may run as a formula (=HYPERLINK(…) sends data away,
// +cmd|… runs programs), so it is written with a leading single quote,
// which spreadsheets read as "this is text". Text that is entirely a
// plain number ("-12.5", "+3") is left alone: a spreadsheet reads it as
// that number, not a formula, and a quote would turn it into text.
func SafeCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if plainNumber.MatchString(s) {
			return s
		}
		return "'" + s
	}
	return s
}
