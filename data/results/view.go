package results

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/query"
)

// Order sorts a result by one column.
type Order struct {
	Column string `json:"column"`
	Desc   bool   `json:"desc"`
}

// Filter keeps the rows whose Column passes Op with Value. Ops:
// "contains" (the cell's text holds Value, any case; every type), and
// "=", "!=", "<", "<=", ">", ">=" (numeric columns; Value a number).
// A NULL cell passes no filter.
type Filter struct {
	Column string `json:"column"`
	Op     string `json:"op"`
	Value  string `json:"value"`
}

// View is a sorted and filtered view of a result: rows that pass every
// filter, ordered by Sort (NULLs last whatever the direction; ties keep
// the result's order).
type View struct {
	Sort    []Order  `json:"sort"`
	Filters []Filter `json:"filters"`
}

// ErrView is matched (errors.Is) by every *ViewError.
var ErrView = errors.New("invalid view")

// ViewError says what is wrong with a View and what to do instead.
type ViewError struct{ Problem string }

func (e *ViewError) Error() string        { return e.Problem }
func (e *ViewError) Is(target error) bool { return target == ErrView }

// Empty says whether v neither sorts nor filters.
func (v View) Empty() bool { return len(v.Sort) == 0 && len(v.Filters) == 0 }

var comparisons = map[string]bool{"=": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}

// compiled is a View checked against a result's columns.
type compiled struct {
	sort    []orderAt
	filters []filterAt
}

type orderAt struct {
	idx  int
	num  bool
	desc bool
}

type filterAt struct {
	idx  int
	op   string
	text string  // contains: lower-cased
	num  float64 // comparisons
}

// compile checks v against cols: every column must exist, every op be
// known, comparisons be on numeric columns with a number to compare.
// Problems are *ViewError.
func (v View) compile(cols []query.Column) (compiled, error) {
	at := make(map[string]int, len(cols))
	for i, c := range cols {
		at[c.Name] = i
	}
	find := func(name string) (int, error) {
		i, ok := at[name]
		if !ok {
			return 0, &ViewError{Problem: fmt.Sprintf("The result has no column %q: pick one of its columns.", name)}
		}
		return i, nil
	}
	var out compiled
	for _, o := range v.Sort {
		i, err := find(o.Column)
		if err != nil {
			return compiled{}, err
		}
		out.sort = append(out.sort, orderAt{idx: i, num: IsNumeric(cols[i].Type), desc: o.Desc})
	}
	for _, f := range v.Filters {
		i, err := find(f.Column)
		if err != nil {
			return compiled{}, err
		}
		switch {
		case f.Op == "contains":
			out.filters = append(out.filters, filterAt{idx: i, op: f.Op, text: strings.ToLower(f.Value)})
		case comparisons[f.Op]:
			if !IsNumeric(cols[i].Type) {
				return compiled{}, &ViewError{Problem: fmt.Sprintf("%q holds %s, not numbers: filter it with \"contains\".", f.Column, cols[i].Type)}
			}
			n, err := strconv.ParseFloat(strings.TrimSpace(f.Value), 64)
			if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
				return compiled{}, &ViewError{Problem: fmt.Sprintf("%q is not a number: give %s %s a number such as 10 or 2.5.", f.Value, f.Column, f.Op)}
			}
			out.filters = append(out.filters, filterAt{idx: i, op: f.Op, num: n})
		default:
			return compiled{}, &ViewError{Problem: fmt.Sprintf("%q is not a filter: use contains, =, !=, <, <=, > or >=.", f.Op)}
		}
	}
	return out, nil
}

// Apply returns the rows of rows (a result with columns cols) that pass
// v's filters, in v's order. rows is not modified; the returned rows
// share their cells with it.
func (v View) Apply(cols []query.Column, rows [][]any) ([][]any, error) {
	c, err := v.compile(cols)
	if err != nil {
		return nil, err
	}
	out := make([][]any, 0, len(rows))
	for _, r := range rows {
		if c.keeps(r) {
			out = append(out, r)
		}
	}
	if len(c.sort) > 0 {
		slices.SortStableFunc(out, func(a, b []any) int {
			for _, o := range c.sort {
				if d := compareCells(a[o.idx], b[o.idx], o.num, o.desc); d != 0 {
					return d
				}
			}
			return 0
		})
	}
	return out, nil
}

func (c compiled) keeps(r []any) bool {
	for _, f := range c.filters {
		v := r[f.idx]
		if v == nil {
			return false
		}
		if f.op == "contains" {
			if !strings.Contains(strings.ToLower(CellText(v)), f.text) {
				return false
			}
			continue
		}
		n, ok := Number(v)
		if !ok || !compareNum(n, f.op, f.num) {
			return false
		}
	}
	return true
}

func compareNum(a float64, op string, b float64) bool {
	switch op {
	case "=":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	}
	return a >= b
}

// compareCells orders two cells of one column: NULLs last in both
// directions, numbers by value, booleans false first, anything else by
// its text (ISO dates and times sort by time).
func compareCells(a, b any, num, desc bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	var d int
	if num {
		x, okx := Number(a)
		y, oky := Number(b)
		if okx && oky {
			d = cmp.Compare(x, y)
		}
	} else if x, ok := a.(bool); ok {
		y, _ := b.(bool)
		d = cmp.Compare(boolInt(x), boolInt(y))
	} else {
		d = strings.Compare(CellText(a), CellText(b))
	}
	if desc {
		return -d
	}
	return d
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SQL wraps inner, a DuckDB SELECT whose result has columns cols, in the
// statement that filters and orders it the way Apply does. Names go
// through duck.QuoteIdent, text through duck.QuoteString, numbers are
// printed from their parsed value: nothing in v reaches the SQL as
// written. The statement still goes through the guard like any other.
func (v View) SQL(inner string, cols []query.Column) (string, error) {
	c, err := v.compile(cols)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("SELECT * FROM (\n" + strings.TrimRight(strings.TrimSpace(inner), ";") + "\n) AS loupe_view")
	for i, f := range c.filters {
		b.WriteString(map[bool]string{true: "\nWHERE ", false: "\n  AND "}[i == 0])
		col := duck.QuoteIdent(cols[f.idx].Name)
		if f.op == "contains" {
			fmt.Fprintf(&b, "contains(lower(CAST(%s AS VARCHAR)), %s)", col, duck.QuoteString(f.text))
			continue
		}
		fmt.Fprintf(&b, "%s %s %s", col, f.op, strconv.FormatFloat(f.num, 'g', -1, 64))
	}
	for i, o := range c.sort {
		b.WriteString(map[bool]string{true: "\nORDER BY ", false: ", "}[i == 0])
		dir := "ASC"
		if o.desc {
			dir = "DESC"
		}
		fmt.Fprintf(&b, "%s %s NULLS LAST", duck.QuoteIdent(cols[o.idx].Name), dir)
	}
	return b.String(), nil
}

// Number is a numeric cell's value: the JSON-ready numbers of
// data/query, and huge integers and exact decimals kept as text (text
// that reads as NaN or infinity is not a number). Every reader of result
// cells as numbers (sorting, summaries, charts, finding checks) uses it.
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case int16:
		return float64(x), true
	case int8:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case int:
		return float64(x), true
	case string: // huge integers and exact decimals arrive as text
		n, err := strconv.ParseFloat(x, 64)
		return n, err == nil && !math.IsNaN(n) && !math.IsInf(n, 0)
	}
	return 0, false
}

// CellText is a cell as DuckDB would cast it to VARCHAR, near enough to
// filter by: text as is, numbers in their shortest form.
func CellText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// IsNumeric says whether a column type holds numbers: DuckDB's number
// types, and the INT, INT4, NUMERIC … names other databases report.
func IsNumeric(typ string) bool {
	t := strings.ToUpper(strings.TrimSpace(typ))
	if base, _, ok := strings.Cut(t, "("); ok {
		t = strings.TrimSpace(base)
	}
	switch t {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT",
		"FLOAT", "DOUBLE", "REAL", "DECIMAL", "NUMERIC", "INT", "INT2", "INT4", "INT8", "FLOAT4", "FLOAT8",
		"DOUBLE PRECISION", "MEDIUMINT", "SERIAL", "BIGSERIAL":
		return true
	}
	return false
}
