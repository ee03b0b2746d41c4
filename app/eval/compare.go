package eval

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/loupeapp/loupe/data/query"
)

// sameResult reports whether got reproduces gold, the way sql-eval judges
// execution accuracy: the same number of rows, and every gold column
// matched by a distinct column of got with the same values (in order when
// ordered, else as a multiset). Extra columns in got are allowed; column
// names are not compared. Numbers compare to 4 decimal places, dates
// without a zero time of day. When it reports false, why says what differed.
//
// Rows that tie on the gold query's sort key may come in either order (the
// engine does not fix it): an ordered result also passes when it holds the
// same rows and at least one of its columns, the sort key, is in the gold
// order.
func sameResult(gold, got *query.Result, ordered bool) (ok bool, why string) {
	if gold.RowCount != got.RowCount {
		return false, fmt.Sprintf("%d rows, the gold query has %d", got.RowCount, gold.RowCount)
	}
	match, why := matchColumns(gold, columns(gold, ordered), columns(got, ordered))
	if match != nil || !ordered {
		return match != nil, why
	}
	match, whyUnordered := matchColumns(gold, columns(gold, false), columns(got, false))
	if match == nil {
		return false, whyUnordered
	}
	if !sameRows(gold, got, match) {
		return false, "the columns hold the gold values, but not in the same rows"
	}
	gc, pc := columns(gold, true), columns(got, true)
	for i, j := range match {
		if equal(gc[i], pc[j]) {
			return true, ""
		}
	}
	return false, why
}

// matchColumns pairs each gold column with a distinct column of got that
// has the same values (gc and pc, from columns): match[i] is got's column
// for gold column i, nil with the reason when one has none.
func matchColumns(gold *query.Result, gc, pc [][]string) (match []int, why string) {
	used := make([]bool, len(pc))
	match = make([]int, len(gc))
	for i, g := range gc {
		match[i] = -1
		for j, p := range pc {
			if !used[j] && equal(g, p) {
				used[j], match[i] = true, j
				break
			}
		}
		if match[i] < 0 {
			return nil, fmt.Sprintf("no column has the values of the gold column %q", gold.Columns[i].Name)
		}
	}
	return match, ""
}

// sameRows reports whether gold and got hold the same rows (as a
// multiset), got's columns taken in the order match gives.
func sameRows(gold, got *query.Result, match []int) bool {
	key := func(row []any, cols func(i int) int) string {
		var b strings.Builder
		for i := range match {
			if c := cols(i); c < len(row) {
				b.WriteString(norm(row[c]))
			}
			b.WriteByte(0)
		}
		return b.String()
	}
	count := map[string]int{}
	for _, row := range gold.Rows {
		count[key(row, func(i int) int { return i })]++
	}
	for _, row := range got.Rows {
		k := key(row, func(i int) int { return match[i] })
		if count[k] == 0 {
			return false
		}
		count[k]--
	}
	return true
}

// columns returns each column's normalized values, sorted unless ordered.
func columns(r *query.Result, ordered bool) [][]string {
	out := make([][]string, len(r.Columns))
	for c := range r.Columns {
		vals := make([]string, len(r.Rows))
		for i, row := range r.Rows {
			if c < len(row) {
				vals[i] = norm(row[c])
			}
		}
		if !ordered {
			sort.Strings(vals)
		}
		out[c] = vals
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// norm renders a JSON-ready value so that equal values compare equal
// whatever their SQL type.
func norm(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return number(x)
	case float32:
		return number(float64(x))
	case int:
		return number(float64(x))
	case int64:
		return number(float64(x))
	case int32:
		return number(float64(x))
	case uint64:
		return number(float64(x))
	case string:
		s := strings.TrimSpace(x)
		if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "-:") {
			return number(f)
		}
		return strings.TrimSuffix(s, " 00:00:00")
	default:
		return strings.TrimSpace(fmt.Sprint(x))
	}
}

func number(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Sprint(f)
	}
	r := math.Round(f*1e4) / 1e4
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}
