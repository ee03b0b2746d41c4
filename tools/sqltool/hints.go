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
	reFromAlias      = regexp.MustCompile(`(?i)\b(?:from|join)\s+((?:"[^"]+"|\w+)(?:\.(?:"[^"]+"|\w+))*)(?:\s+(?:as\s+)?("[^"]+"|\w+))?`)
	reIdent          = regexp.MustCompile(`"([^"]+)"|\b([A-Za-z_]\w*)\b`)
)

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
