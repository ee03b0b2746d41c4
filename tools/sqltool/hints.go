package sqltool

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loupeapp/loupe/data/catalog"
)

// Limits on what a failure message lists.
const (
	maxScopeTables  = 3  // tables whose columns an unknown-column hint lists
	maxListColumns  = 60 // columns listed per table
	maxListDatasets = 30 // dataset names an unknown-table hint lists
	maxErrorLines   = 12 // lines of DuckDB's message kept
)

var (
	reColumnNotFound = regexp.MustCompile(`Referenced column "([^"]+)" not found`)
	reNoSuchColumn   = regexp.MustCompile(`(?:Table|Values list) "([^"]+)" does not have a column named "([^"]+)"`)
	reBindings       = regexp.MustCompile(`Candidate bindings:[ :]*(.*)`)
	reQuoted         = regexp.MustCompile(`"([^"]+)"`)
	reNoSuchTable    = regexp.MustCompile(`Table with name "?([^" ]+?)"? does not exist`)
	reNoSuchAlias    = regexp.MustCompile(`Referenced table "([^"]+)" not found`)
	reNoSuchFunction = regexp.MustCompile(`(?:Scalar|Aggregate|Table) Function with name (\S+) does not exist`)
	reNoMatch        = regexp.MustCompile(`(?:argument types|function call) "?'?([^'"(]+)\(([^)]*)\)`)
	reTop            = regexp.MustCompile(`(?i)\bselect\s+(?:distinct\s+)?top\s*\(?\s*\d+`)
	reDiv            = regexp.MustCompile(`(?i)\w\s+div\s+\w`)
	reLimitComma     = regexp.MustCompile(`(?i)\blimit\s+\d+\s*,\s*\d+`)
	reFromAlias      = regexp.MustCompile(`(?i)\b(?:from|join)\s+((?:"[^"]+"|\w+)(?:\.(?:"[^"]+"|\w+))*)(?:\s+(?:as\s+)?("[^"]+"|\w+))?`)
	reIdent          = regexp.MustCompile(`"([^"]+)"|\b([A-Za-z_]\w*)\b`)
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

// hints explains a DuckDB error on sql: did-you-mean for unknown tables
// and columns from the catalog, the columns of the tables involved, and
// tips for constructs from other SQL dialects.
func hints(msg, sql string, ds []catalog.Dataset) []string {
	var out []string
	add := func(s string) {
		for _, h := range out {
			if h == s {
				return
			}
		}
		out = append(out, s)
	}
	if m := reColumnNotFound.FindStringSubmatch(msg); m != nil {
		for _, h := range columnHints(m[1], "", msg, sql, ds) {
			add(h)
		}
	}
	if m := reNoSuchColumn.FindStringSubmatch(msg); m != nil {
		for _, h := range columnHints(m[2], m[1], msg, sql, ds) {
			add(h)
		}
	}
	if m := reNoSuchTable.FindStringSubmatch(msg); m != nil {
		name := m[1]
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			schema, table := name[:i], name[i+1:]
			if isTable(table, ds) {
				add(fmt.Sprintf("Datasets have no schema prefix: write %s, not %s.", table, name))
			} else {
				add(fmt.Sprintf("Datasets have no schema prefix (drop %q). ", schema+".") + tableHint(table, ds))
			}
		} else {
			add(tableHint(name, ds))
		}
	}
	if m := reNoSuchAlias.FindStringSubmatch(msg); m != nil {
		add(fmt.Sprintf("%q is not a table or alias in this query's FROM clause: use the alias you gave the table, or its name.", m[1]))
	}
	if m := reNoSuchFunction.FindStringSubmatch(msg); m != nil {
		if tip, ok := functionTips[strings.ToLower(m[1])]; ok {
			add(tip)
		}
	}
	if m := reNoMatch.FindStringSubmatch(msg); m != nil {
		fn, types := strings.ToLower(strings.TrimSpace(m[1])), m[2]
		switch {
		case signatureTips[fn] != "":
			add(signatureTips[fn])
		case fn == "+" && (strings.Contains(types, "VARCHAR") || strings.Contains(types, "STRING_LITERAL")):
			add("Concatenate text with || (a || ' ' || b) or concat(a, b), not +.")
		case strings.Contains(types, "VARCHAR") && fn != "":
			add(fmt.Sprintf("%s got text (VARCHAR): cast it first, e.g. TRY_CAST(col AS DOUBLE) (NULL where it does not convert), or use a numeric column.", fn))
		default:
			add("Add explicit casts so the argument types match: CAST(x AS DOUBLE) or x::DOUBLE.")
		}
	}
	if strings.Contains(msg, "must appear in the GROUP BY clause") {
		add("Every selected column must be grouped or aggregated: add it to GROUP BY, or write GROUP BY ALL to group by every non-aggregated column.")
	}
	if strings.Contains(msg, "Ambiguous reference to column") {
		add("Qualify the column with its table or alias (o.customer_id), or join with USING (customer_id).")
	}
	if strings.HasPrefix(msg, "Conversion Error") || strings.Contains(msg, "Could not convert") {
		add("Compare like with like: quote text values ('42'), write dates as '2024-01-31', and use TRY_CAST(x AS TYPE) to get NULL where a value does not convert.")
	}
	for _, h := range dialectHints(msg, sql, ds) {
		add(h)
	}
	return out
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

// columnHints explain an unknown column: a value written in double
// quotes, a bare date part, the closest column names, and the columns of
// the tables the query reads (or of the one its qualifier names).
func columnHints(col, qualifier, msg, sql string, ds []catalog.Dataset) []string {
	var out []string
	lower := strings.ToLower(col)
	if dateParts[lower] {
		out = append(out, "DuckDB takes the date part as a string: date_part('year', d), date_trunc('month', d), date_diff('day', start, end); or EXTRACT(year FROM d).")
	}
	if lower == "rownum" {
		out = append(out, "DuckDB has no ROWNUM: use LIMIT n, or row_number() OVER (ORDER BY …).")
	}
	scope := scopeTables(qualifier, sql, ds)
	var names []string
	owner := map[string]string{}
	for _, d := range scope {
		for _, c := range d.Columns {
			names = append(names, c.Name)
			if _, ok := owner[c.Name]; !ok {
				owner[c.Name] = d.Name
			}
		}
	}
	names = append(names, bindings(msg)...)
	sugg := Suggest(col, names, 3)
	if strings.Contains(sql, `"`+col+`"`) && !dateParts[lower] && (len(sugg) == 0 || similarity(col, sugg[0]) < 0.8) {
		out = append(out, fmt.Sprintf("Double quotes name columns in DuckDB; if \"%s\" is a text value, write it in single quotes: '%s'.", col, strings.ReplaceAll(col, "'", "''")))
	}
	if len(sugg) > 0 {
		q := make([]string, len(sugg))
		for i, s := range sugg {
			q[i] = fmt.Sprintf("%q", s)
			if t := owner[s]; t != "" && len(scope) > 1 {
				q[i] += " (" + t + ")"
			}
		}
		out = append(out, fmt.Sprintf("Column %q does not exist. Did you mean %s?", col, strings.Join(q, " or ")))
	} else if !dateParts[lower] && lower != "rownum" {
		out = append(out, fmt.Sprintf("Column %q does not exist in the tables this query reads.", col))
	}
	for i, d := range scope {
		if i == maxScopeTables {
			break
		}
		out = append(out, "Columns of "+d.Name+": "+columnList(d))
	}
	return out
}

// scopeTables are the datasets an unknown column may belong to: the one
// its qualifier (a table name or alias) names, else every dataset the
// query mentions.
func scopeTables(qualifier, sql string, ds []catalog.Dataset) []catalog.Dataset {
	byName := map[string]catalog.Dataset{}
	for _, d := range ds {
		byName[strings.ToLower(d.Name)] = d
	}
	if qualifier != "" {
		q := strings.ToLower(qualifier)
		if d, ok := byName[q]; ok {
			return []catalog.Dataset{d}
		}
		for _, m := range reFromAlias.FindAllStringSubmatch(sql, -1) {
			if m[2] != "" && strings.ToLower(unquoteIdent(m[2])) == q {
				if d, ok := byName[strings.ToLower(lastPart(m[1]))]; ok {
					return []catalog.Dataset{d}
				}
			}
		}
	}
	var out []catalog.Dataset
	seen := map[string]bool{}
	for _, m := range reIdent.FindAllStringSubmatch(sql, -1) {
		n := strings.ToLower(m[1] + m[2])
		if d, ok := byName[n]; ok && !seen[n] {
			seen[n] = true
			out = append(out, d)
		}
	}
	return out
}

// bindings are the column names DuckDB listed as candidates.
func bindings(msg string) []string {
	m := reBindings.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	var out []string
	for _, q := range reQuoted.FindAllStringSubmatch(m[1], -1) {
		out = append(out, lastPart(q[1]))
	}
	return out
}

// tableHint suggests datasets for an unknown table name.
func tableHint(name string, ds []catalog.Dataset) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.Name
	}
	if len(names) == 0 {
		return fmt.Sprintf("Table %q does not exist, and no datasets are loaded.", name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Table %q does not exist.", name)
	if s := Suggest(name, names, 3); len(s) > 0 {
		fmt.Fprintf(&b, " Did you mean %s?", quoteAll(s, " or "))
	}
	if len(names) <= maxListDatasets {
		b.WriteString(" Datasets: " + strings.Join(names, ", ") + ".")
	} else {
		b.WriteString(" Call list_datasets to see every dataset.")
	}
	return b.String()
}

func columnList(d catalog.Dataset) string {
	parts := make([]string, 0, min(len(d.Columns), maxListColumns))
	for i, c := range d.Columns {
		if i == maxListColumns {
			parts = append(parts, fmt.Sprintf("and %d more", len(d.Columns)-maxListColumns))
			break
		}
		parts = append(parts, c.Name+" "+c.Type)
	}
	return strings.Join(parts, ", ")
}

func isTable(name string, ds []catalog.Dataset) bool {
	for _, d := range ds {
		if strings.EqualFold(d.Name, name) {
			return true
		}
	}
	return false
}

func isName(word string, ds []catalog.Dataset) bool {
	w := strings.ToLower(word)
	for _, d := range ds {
		if strings.ToLower(d.Name) == w {
			return true
		}
		for _, c := range d.Columns {
			if strings.ToLower(c.Name) == w {
				return true
			}
		}
	}
	return false
}

func quoteAll(names []string, sep string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, sep)
}

func lastPart(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	return unquoteIdent(s)
}

func unquoteIdent(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}

// trimMessage keeps the first lines of DuckDB's message (its lists of
// candidate functions run to dozens).
func trimMessage(msg string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(msg), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) <= maxErrorLines {
		return strings.Join(lines, "\n")
	}
	// Keep the LINE/caret context at the end: it shows where the error is.
	var tail []string
	for i, l := range lines {
		if strings.HasPrefix(l, "LINE ") {
			tail = lines[i:min(i+2, len(lines))]
			break
		}
	}
	head := lines[:maxErrorLines-len(tail)-1]
	return strings.Join(head, "\n") + "\n\t…\n" + strings.Join(tail, "\n")
}
