package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/loupeapp/loupe/data/query"
)

func runSQL(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("sql", e)
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	maxRows := fs.Int("max-rows", 0, "rows to return (default 1000)")
	timeout := fs.Duration("timeout", 0, "query time limit (default 30s)")
	out := fs.String("out", "", "write the rows to FILE instead: .csv, .xlsx or .parquet (up to --max-rows)")
	pos, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	text := strings.Join(pos, " ")
	if text == "-" {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return fail(e, err)
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		fmt.Fprintln(e.stderr, `loupe sql: give a query, e.g. loupe sql "SELECT count(*) FROM sales" (or - to read it from standard input)`)
		return ExitUsage
	}
	w, err := openWorkspace(ctx, *ws)
	if err != nil {
		return fail(e, err)
	}
	defer w.Close()
	res, err := w.Query.Run(ctx, text, query.Limits{MaxRows: *maxRows, Timeout: *timeout})
	if err != nil {
		return fail(e, err)
	}
	if *out != "" {
		if err := writeResult(ctx, *out, res); err != nil {
			return fail(e, err)
		}
		fmt.Fprintln(e.stdout, *out)
		return ExitOK
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return fail(e, err)
		}
		return ExitOK
	}
	printTable(e.stdout, res)
	return ExitOK
}

const maxCell = 40

// printTable writes res as an aligned text table with a footer.
func printTable(w io.Writer, res *query.Result) {
	cells := make([][]string, len(res.Rows)+1)
	widths := make([]int, len(res.Columns))
	cells[0] = make([]string, len(res.Columns))
	for i, c := range res.Columns {
		cells[0][i] = c.Name
		widths[i] = utf8.RuneCountInString(c.Name)
	}
	for r, row := range res.Rows {
		cells[r+1] = make([]string, len(row))
		for i, v := range row {
			s := cell(v)
			cells[r+1][i] = s
			widths[i] = max(widths[i], utf8.RuneCountInString(s))
		}
	}
	for r, row := range cells {
		var b strings.Builder
		for i, s := range row {
			if i > 0 {
				b.WriteString(" │ ")
			}
			pad := widths[i] - utf8.RuneCountInString(s)
			if r > 0 && isNumber(res.Rows[r-1][i]) {
				b.WriteString(strings.Repeat(" ", pad) + s)
			} else {
				b.WriteString(s + strings.Repeat(" ", pad))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
		if r == 0 {
			parts := make([]string, len(widths))
			for i, wd := range widths {
				parts[i] = strings.Repeat("─", wd)
			}
			fmt.Fprintln(w, strings.Join(parts, "─┼─"))
		}
	}
	switch {
	case res.Truncated:
		fmt.Fprintf(w, "(showing %d of %d rows, %.1f ms)\n", len(res.Rows), res.RowCount, res.ElapsedMS)
	case res.RowCount == 1:
		fmt.Fprintf(w, "(1 row, %.1f ms)\n", res.ElapsedMS)
	default:
		fmt.Fprintf(w, "(%d rows, %.1f ms)\n", res.RowCount, res.ElapsedMS)
	}
}

func cell(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		s = "NULL"
	case string:
		s = x
	case []any, map[string]any:
		b, _ := json.Marshal(x)
		s = string(b)
	default:
		s = fmt.Sprint(x)
	}
	s = strings.NewReplacer("\n", "↵", "\t", " ", "\r", "").Replace(s)
	if utf8.RuneCountInString(s) > maxCell {
		s = string([]rune(s)[:maxCell-1]) + "…"
	}
	return s
}

func isNumber(v any) bool {
	switch v.(type) {
	case int64, float64, int32, int16, int8, uint8, uint16, uint32:
		return true
	}
	return false
}
