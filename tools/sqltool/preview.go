package sqltool

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loupeapp/loupe/data/query"
)

// Preview layout limits that do not need configuring.
const (
	cellRunes      = 80 // a longer value is cut with "…"
	previewColumns = 40 // a wider result shows its first columns only
)

// escaper keeps a value on one line and its pipes apart from separators.
var escaper = strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "|", `\|`)

// Preview renders res for the model: a line with the row count and the
// column types, the first rows as "a | b | c" lines under a header (at
// most maxRows rows and about maxBytes bytes in all), and how many rows
// were left out, said plainly. An empty result says so unmistakably.
//
// Values print the way DuckDB's shell shows them: NULL for null, text
// unquoted (an empty string as ""), newlines and pipes escaped.
func Preview(res *query.Result, maxRows, maxBytes int) string {
	var b strings.Builder
	cols := res.Columns
	hiddenCols := 0
	if len(cols) > previewColumns {
		hiddenCols = len(cols) - previewColumns
		cols = cols[:previewColumns]
	}
	typed := make([]string, len(cols))
	names := make([]string, len(cols))
	for i, c := range cols {
		typed[i] = c.Name + " " + c.Type
		names[i] = cell(c.Name)
	}
	colList := strings.Join(typed, ", ")
	if hiddenCols > 0 {
		colList += fmt.Sprintf(", and %d more columns not shown", hiddenCols)
	}
	if res.RowCount == 0 {
		fmt.Fprintf(&b, "The query returned 0 rows (it ran without error; nothing matched).\nColumns: %s\n", colList)
		return b.String()
	}
	fmt.Fprintf(&b, "%s × %d %s: %s\n", rowsWord(res.RowCount), len(res.Columns), plural(int64(len(res.Columns)), "column", "columns"), colList)
	b.WriteString(strings.Join(names, " | "))
	b.WriteByte('\n')

	// Reserve room for the closing line so the cap holds with it.
	budget := maxBytes - b.Len() - 120
	shown := 0
	for _, row := range res.Rows {
		if shown >= maxRows {
			break
		}
		line := formatRow(row, len(cols))
		if len(line)+1 > budget {
			break
		}
		budget -= len(line) + 1
		b.WriteString(line)
		b.WriteByte('\n')
		shown++
	}
	if hidden := res.RowCount - int64(shown); hidden > 0 {
		if shown == 0 {
			fmt.Fprintf(&b, "No rows shown: one row is longer than the %d-byte preview; select fewer or shorter columns. ", maxBytes)
		}
		fmt.Fprintf(&b, "%s more %s not shown (total %d).\n", strconv.FormatInt(hidden, 10), plural(hidden, "row", "rows"), res.RowCount)
	}
	return b.String()
}

func rowsWord(n int64) string {
	return strconv.FormatInt(n, 10) + " " + plural(n, "row", "rows")
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func formatRow(row []any, n int) string {
	parts := make([]string, min(n, len(row)))
	for i := range parts {
		parts[i] = cell(row[i])
	}
	return strings.Join(parts, " | ")
}

// cell prints one value on one line, cut to cellRunes.
func cell(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		if x == "" {
			return `""`
		}
		s = x
	case float64:
		s = strconv.FormatFloat(x, 'g', 12, 64)
	case float32:
		s = strconv.FormatFloat(float64(x), 'g', 8, 32)
	case []any, map[string]any:
		j, err := json.Marshal(x)
		if err != nil {
			s = fmt.Sprint(x)
		} else {
			s = string(j)
		}
	default:
		s = fmt.Sprint(x)
	}
	if strings.ContainsAny(s, "\r\n\t|") {
		s = escaper.Replace(s)
	}
	if utf8.RuneCountInString(s) > cellRunes {
		s = string([]rune(s)[:cellRunes-1]) + "…"
	}
	return s
}
