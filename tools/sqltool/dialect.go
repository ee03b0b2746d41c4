package sqltool

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loupeapp/loupe/data/catalog"
)

// Constructs from other SQL dialects that models write for DuckDB, and
// what to write instead.

var (
	reTop        = regexp.MustCompile(`(?i)\bselect\s+(?:distinct\s+)?top\s*\(?\s*\d+`)
	reDiv        = regexp.MustCompile(`(?i)\w\s+div\s+\w`)
	reLimitComma = regexp.MustCompile(`(?i)\blimit\s+\d+\s*,\s*\d+`)
)

// dateParts are words a model from SQL Server or MySQL passes bare, where
// DuckDB wants a string.
var dateParts = map[string]bool{
	"year": true, "quarter": true, "month": true, "week": true, "day": true, "dayofweek": true, "dow": true,
	"doy": true, "hour": true, "minute": true, "second": true, "millisecond": true, "epoch": true, "yy": true,
	"mm": true, "dd": true, "hh": true, "mi": true, "ss": true, "wk": true, "qq": true,
}

// sqlKeywords are reserved words that need double quotes as names.
var sqlKeywords = map[string]bool{
	"order": true, "group": true, "select": true, "from": true, "where": true, "table": true, "user": true,
	"limit": true, "offset": true, "desc": true, "asc": true, "default": true, "check": true, "column": true,
	"end": true, "case": true, "when": true, "to": true, "primary": true, "references": true, "window": true,
}

// functionTips map a function DuckDB does not have (from another dialect)
// to what to write instead.
var functionTips = map[string]string{
	"date_format":     "DuckDB formats dates with strftime(date_col, '%Y-%m') (value first, then the format); to group by month use date_trunc('month', date_col).",
	"to_char":         "DuckDB formats dates with strftime(date_col, '%Y-%m') and numbers with printf('%.2f', x) or format('{:.2f}', x).",
	"format_date":     "DuckDB formats dates with strftime(date_col, '%Y-%m').",
	"str_to_date":     "DuckDB parses text with strptime(text, '%d/%m/%Y') (a TIMESTAMP; add ::DATE for a date); ISO text casts directly: '2024-01-31'::DATE.",
	"to_date":         "DuckDB parses text with strptime(text, '%d/%m/%Y')::DATE; ISO text casts directly: '2024-01-31'::DATE.",
	"dateadd":         "DuckDB adds intervals with +: date_col + INTERVAL 1 DAY, date_col - INTERVAL 3 MONTH.",
	"timestampadd":    "DuckDB adds intervals with +: ts_col + INTERVAL 1 HOUR.",
	"timestampdiff":   "DuckDB counts the difference with date_diff('day', start, end) (the part first, as a string).",
	"getdate":         "Use current_date, current_timestamp or now().",
	"sysdate":         "Use current_date, current_timestamp or now().",
	"curdate":         "Use current_date.",
	"isnull":          "Use coalesce(x, fallback) (or ifnull(x, fallback)); to test for NULL write x IS NULL.",
	"nvl":             "Use coalesce(x, fallback).",
	"nvl2":            "Use CASE WHEN x IS NOT NULL THEN a ELSE b END.",
	"iff":             "Use if(cond, a, b) or CASE WHEN cond THEN a ELSE b END.",
	"iif":             "Use if(cond, a, b) or CASE WHEN cond THEN a ELSE b END.",
	"decode":          "Use CASE x WHEN v1 THEN r1 WHEN v2 THEN r2 ELSE other END.",
	"charindex":       "Use strpos(text, search) (or instr(text, search)).",
	"locate":          "Use strpos(text, search).",
	"substring_index": "Use split_part(text, delimiter, n).",
	"convert":         "Use CAST(x AS INTEGER) or x::INTEGER; TRY_CAST(x AS INTEGER) gives NULL where a value does not convert.",
	"to_number":       "Use CAST(x AS DOUBLE) or TRY_CAST(x AS DOUBLE).",
	"regexp_like":     "Use regexp_matches(text, pattern), or text ~ pattern.",
	"datefromparts":   "Use make_date(year, month, day).",
	"eomonth":         "Use last_day(date_col).",
	"datetrunc":       "Use date_trunc('month', date_col) (the part first, as a string).",
	"trunc":           "For dates use date_trunc('month', date_col); for numbers trunc(x) or round(x, n).",
	"__postfix":       "Backticks are not quotes in DuckDB: write column names plainly or in double quotes (\"my col\"), and text values in single quotes ('text').",
	"len":             "Use length(text).",
}

// signatureTips give the argument order of date functions whose arguments
// a model often swaps.
var signatureTips = map[string]string{
	"date_trunc":   "date_trunc takes the part first, as a string: date_trunc('month', date_col).",
	"datetrunc":    "date_trunc takes the part first, as a string: date_trunc('month', date_col).",
	"date_part":    "date_part takes the part first, as a string: date_part('year', date_col); or EXTRACT(year FROM date_col).",
	"datepart":     "datepart takes the part first, as a string: datepart('year', date_col).",
	"date_diff":    "date_diff takes the part first, as a string: date_diff('day', start_date, end_date).",
	"datediff":     "datediff takes the part first, as a string: datediff('day', start_date, end_date).",
	"date_add":     "Add intervals with +: date_col + INTERVAL 1 DAY, or date_add(date_col, INTERVAL 1 DAY).",
	"strftime":     "strftime formats a date or timestamp: strftime(date_col, '%Y-%m'). To read text as a date use strptime(text, format).",
	"strptime":     "strptime parses TEXT: strptime(text_col, '%d/%m/%Y'). A DATE column needs no parsing; format it with strftime(date_col, '%Y-%m').",
	"to_timestamp": "to_timestamp takes epoch seconds; parse text with strptime(text, '%Y-%m-%d').",
}

// dialectHints spot constructs from other dialects in the SQL text.
func dialectHints(msg, sql string, ds []catalog.Dataset) []string {
	var out []string
	if reTop.MatchString(sql) {
		out = append(out, "DuckDB has no TOP: put LIMIT n at the end of the query (SELECT … ORDER BY x DESC LIMIT 5).")
	}
	if strings.Contains(sql, "`") {
		out = append(out, functionTips["__postfix"])
	}
	if reDiv.MatchString(sql) && strings.Contains(msg, "syntax error") {
		out = append(out, "DuckDB has no DIV: // divides integers (7 // 2 = 3); / always gives a DOUBLE (7 / 2 = 3.5).")
	}
	if reLimitComma.MatchString(sql) {
		out = append(out, "Write LIMIT count OFFSET skip; DuckDB does not take MySQL's LIMIT skip, count.")
	}
	if strings.Contains(sql, "[") && strings.Contains(sql, "]") && strings.Contains(msg, "Parser Error") {
		out = append(out, "Square brackets are not name quotes in DuckDB: use double quotes (\"my col\").")
	}
	if strings.Contains(msg, "syntax error") {
		// "SELECT order, label FROM t": a keyword used as a bare name.
		for _, m := range reIdent.FindAllStringSubmatch(sql, -1) {
			if k := m[2]; sqlKeywords[strings.ToLower(k)] && isName(k, ds) {
				out = append(out, fmt.Sprintf("%s is an SQL keyword: as a column or table name write it in double quotes: \"%s\".", k, k))
			}
		}
	}
	return out
}
