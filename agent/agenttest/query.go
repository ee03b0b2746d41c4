package agenttest

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/args"
)

// queryError is a query the stub cannot answer, worded as DuckDB words
// its errors, so that the model is shown what it would be shown.
type queryError struct{ msg string }

func (e *queryError) Error() string { return e.msg }

var (
	reLiteral = regexp.MustCompile(`(?i)^select (\d+)$`)
	reQuery   = regexp.MustCompile(`(?i)^select (.+?) from ([a-z_]\w*(?:\s*,\s*[a-z_]\w*)*)` +
		`(?: where (\w+) = '([^']*)')?( group by 1)?( order by 1)?$`)
	reCount = regexp.MustCompile(`(?i)^count\(\*\)(?: as (\w+))?$`)
	rePad   = regexp.MustCompile(`(?i)^repeat\('(.)', (\d+)\) as (\w+)$`)
)

// run answers sql, one of the few shapes the stub knows — SELECT n;
// SELECT count(*) [AS n] FROM t; SELECT * [, repeat('x', n) AS pad] FROM
// t[, u] [WHERE c = 'v']; SELECT c, count(*) [AS n] FROM t GROUP BY 1
// [ORDER BY 1] — computed from db's rows. Unknown tables and columns fail
// as DuckDB fails, naming the nearest known one.
func (db *DB) run(sql string) (*Table, error) {
	q := strings.TrimSuffix(strings.Join(strings.Fields(sql), " "), ";")
	if m := reLiteral.FindStringSubmatch(q); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return &Table{Columns: []tools.Column{{Name: m[1], Type: "INTEGER"}}, Rows: [][]any{{n}}}, nil
	}
	m := reQuery.FindStringSubmatch(q)
	if m == nil {
		return nil, &queryError{"the stub database does not answer this query (agenttest knows SELECT n, count(*), *, and one GROUP BY 1)"}
	}
	var from []*Table
	for _, name := range strings.Split(m[2], ",") {
		name = strings.TrimSpace(name)
		t := db.table(name)
		if t == nil {
			return nil, &queryError{fmt.Sprintf("Catalog Error: Table with name %s does not exist! Did you mean %q?", name, db.nearestTable(name))}
		}
		from = append(from, t)
	}
	src := cross(from)
	if m[3] != "" {
		c := src.column(m[3])
		if c < 0 {
			return nil, unknownColumn(m[3], src)
		}
		var rows [][]any
		for _, r := range src.Rows {
			if fmt.Sprint(r[c]) == m[4] {
				rows = append(rows, r)
			}
		}
		src = &Table{Columns: src.Columns, Rows: rows}
	}
	items := splitItems(m[1])
	grouped := m[5] != ""
	switch {
	case grouped && len(items) == 2 && reCount.MatchString(items[1]):
		return groupCount(src, items[0], reCount.FindStringSubmatch(items[1])[1])
	case len(items) == 1 && reCount.MatchString(items[0]):
		name := reCount.FindStringSubmatch(items[0])[1]
		if name == "" {
			name = "count_star()"
		}
		return &Table{Columns: []tools.Column{{Name: name, Type: "BIGINT"}}, Rows: [][]any{{int64(len(src.Rows))}}}, nil
	case items[0] == "*" && len(items) == 1:
		return src, nil
	case items[0] == "*" && len(items) == 2 && rePad.MatchString(items[1]):
		p := rePad.FindStringSubmatch(items[1])
		n, _ := strconv.Atoi(p[2])
		out := &Table{Columns: append(append([]tools.Column(nil), src.Columns...), tools.Column{Name: p[3], Type: "VARCHAR"})}
		for _, r := range src.Rows {
			out.Rows = append(out.Rows, append(append([]any(nil), r...), strings.Repeat(p[1], n)))
		}
		return out, nil
	}
	for _, it := range items {
		if isIdent(it) && src.column(it) < 0 {
			return nil, unknownColumn(it, src)
		}
	}
	return nil, &queryError{"the stub database does not answer this query (agenttest knows SELECT n, count(*), *, and one GROUP BY 1)"}
}

// cross is the cross product of ts (one table: itself).
func cross(ts []*Table) *Table {
	out := &Table{Columns: ts[0].Columns, Rows: ts[0].Rows}
	for _, t := range ts[1:] {
		next := &Table{Columns: append(append([]tools.Column(nil), out.Columns...), t.Columns...)}
		for _, a := range out.Rows {
			for _, b := range t.Rows {
				next.Rows = append(next.Rows, append(append([]any(nil), a...), b...))
			}
		}
		out = next
	}
	return out
}

// groupCount counts src's rows by the column called col, in its order.
func groupCount(src *Table, col, as string) (*Table, error) {
	c := src.column(col)
	if c < 0 {
		return nil, unknownColumn(col, src)
	}
	if as == "" {
		as = "count_star()"
	}
	counts := map[string]int64{}
	for _, r := range src.Rows {
		counts[fmt.Sprint(r[c])]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := &Table{Columns: []tools.Column{src.Columns[c], {Name: as, Type: "BIGINT"}}}
	for _, k := range keys {
		out.Rows = append(out.Rows, []any{k, counts[k]})
	}
	return out, nil
}

func unknownColumn(name string, t *Table) error {
	best, bestD := "", 1<<30
	for _, c := range t.Columns {
		if d := args.Distance(strings.ToLower(name), strings.ToLower(c.Name)); d < bestD {
			best, bestD = c.Name, d
		}
	}
	return &queryError{fmt.Sprintf("Binder Error: Referenced column %q not found in FROM clause! Candidate bindings: %q", name, best)}
}

func (db *DB) nearestTable(name string) string {
	best, bestD := "", 1<<30
	for _, t := range db.Tables {
		if d := args.Distance(strings.ToLower(name), strings.ToLower(t.Name)); d < bestD {
			best, bestD = t.Name, d
		}
	}
	return best
}

// splitItems splits a select list at its top-level commas.
func splitItems(list string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range list {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(list[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(list[start:]))
}

var reIdent = regexp.MustCompile(`^[A-Za-z_]\w*$`)

func isIdent(s string) bool { return reIdent.MatchString(s) }

func equalFold(a, b string) bool { return strings.EqualFold(a, b) }
