package profile

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// Profile is the display payload of profile_data.
type Profile struct {
	Table     string   `json:"table"`
	Rows      int64    `json:"rows"`
	Approx    bool     `json:"approx"` // distinct counts and quantiles are estimates
	Columns   []Column `json:"columns"`
	ElapsedMS float64  `json:"elapsed_ms"`
}

// Column is one column's profile. Fields that do not apply to the
// column's kind are omitted.
type Column struct {
	Name     string  `json:"name"`
	Type     string  `json:"type"`
	Kind     string  `json:"kind"` // number, time, text, bool, other
	Nulls    int64   `json:"nulls"`
	NullPct  float64 `json:"null_pct"`
	Distinct int64   `json:"distinct"`
	// DistinctApprox marks an estimated distinct count (large tables,
	// columns with more than exactDistinct values).
	DistinctApprox bool       `json:"distinct_approx,omitempty"`
	Min            any        `json:"min,omitempty"`
	Max            any        `json:"max,omitempty"`
	Mean           *float64   `json:"mean,omitempty"`
	Stddev         *float64   `json:"stddev,omitempty"`
	Quantiles      *Quantiles `json:"quantiles,omitempty"`
	Negatives      *int64     `json:"negatives,omitempty"`
	Zeros          *int64     `json:"zeros,omitempty"`
	Outliers       *Outliers  `json:"outliers,omitempty"`
	Trues          *int64     `json:"trues,omitempty"`
	Text           *Text      `json:"text,omitempty"`
	Top            []Value    `json:"top,omitempty"`
	Flags          []Flag     `json:"flags,omitempty"`

	// Found by the first pass, used by the flags and the second pass.
	nonNull, numericText, dateText, leadingZero, spaced int64
	ordinal                                             int
	offenders                                           string // `, e.g. "N/A"` for numbers/dates stored as text
}

// Quantiles of a numeric column.
type Quantiles struct {
	P05    float64 `json:"p05"`
	P25    float64 `json:"p25"`
	Median float64 `json:"median"`
	P75    float64 `json:"p75"`
	P95    float64 `json:"p95"`
}

// Outliers are the values outside the 1.5×IQR fences.
type Outliers struct {
	Count int64   `json:"count"`
	Low   float64 `json:"low"`  // p25 - 1.5 IQR
	High  float64 `json:"high"` // p75 + 1.5 IQR
}

// Text holds facts about a text column's values.
type Text struct {
	MinLen int64 `json:"min_len"`
	MaxLen int64 `json:"max_len"`
	Empty  int64 `json:"empty"`  // '' or only spaces
	Padded int64 `json:"padded"` // leading or trailing whitespace around other text
}

// Value is a frequent value and its count.
type Value struct {
	Value string `json:"value"`
	Count int64  `json:"count"`
}

// Flag is a data-quality finding.
type Flag struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Limits of the profile.
const (
	// exactRows is the largest table whose distinct counts and quantiles
	// are computed exactly; larger ones use DuckDB's estimates.
	exactRows = 200_000
	// topDistinct is the most distinct values (per the catalog) a column
	// may have for its frequent values to be listed.
	topDistinct = 50
	topShown    = 8
	// exactDistinct is the largest estimated distinct count that a large
	// table's second pass counts exactly (DuckDB's estimate can be 25% off).
	exactDistinct = 100_000
)

var numberTypes = map[string]bool{
	"TINYINT": true, "SMALLINT": true, "INTEGER": true, "BIGINT": true, "HUGEINT": true,
	"UTINYINT": true, "USMALLINT": true, "UINTEGER": true, "UBIGINT": true, "UHUGEINT": true,
	"FLOAT": true, "DOUBLE": true, "REAL": true,
}

func kindOf(typ string) string {
	t := strings.ToUpper(typ)
	switch {
	case strings.HasPrefix(t, "DECIMAL") || numberTypes[t]:
		return "number"
	case t == "DATE" || strings.HasPrefix(t, "TIMESTAMP") || strings.HasPrefix(t, "TIME"):
		return "time"
	case t == "VARCHAR" || strings.HasPrefix(t, "ENUM") || t == "UUID":
		return "text"
	case t == "BOOLEAN":
		return "bool"
	}
	return "other"
}

// plan is the first pass: one aggregate over the table computing every
// column's figures at once.
type plan struct {
	exprs []string
	slots []map[string]int // per column: figure → position in the row
	exact bool
}

func (p *plan) add(col int, name, expr string) {
	p.slots[col][name] = len(p.exprs) + 1 // position 0 is count(*)
	p.exprs = append(p.exprs, expr)
}

// dateFormats are the text layouts recognised as dates besides ISO.
const dateFormats = `['%d/%m/%Y', '%m/%d/%Y', '%Y/%m/%d', '%d.%m.%Y', '%d-%m-%Y', '%d %b %Y', '%b %d, %Y', '%d-%b-%Y', '%Y%m%d']`

// textExpr is a text column as VARCHAR.
func textExpr(c Column) string {
	q := duck.QuoteIdent(c.Name)
	if strings.ToUpper(c.Type) != "VARCHAR" {
		return q + "::VARCHAR"
	}
	return q
}

func isNumber(t string) string {
	return t + " <> '' AND try_cast(replace(" + t + ", ',', '') AS DOUBLE) IS NOT NULL"
}

func isDate(t string) string {
	return "(try_cast(" + t + " AS TIMESTAMP) IS NOT NULL OR try_cast(" + t + " AS DATE) IS NOT NULL OR try_strptime(" + t + ", " + dateFormats + ") IS NOT NULL)"
}

func firstPass(from string, cols []catalog.Column, exact bool) (string, *plan) {
	p := &plan{slots: make([]map[string]int, len(cols)), exact: exact}
	for i, c := range cols {
		p.slots[i] = map[string]int{}
		q := duck.QuoteIdent(c.Name)
		k := kindOf(c.Type)
		p.add(i, "nonnull", "count("+q+")")
		if k == "other" {
			continue
		}
		if exact {
			p.add(i, "distinct", "count(DISTINCT "+q+")")
		} else {
			p.add(i, "distinct", "approx_count_distinct("+q+")")
		}
		switch k {
		case "number":
			d := q + "::DOUBLE"
			p.add(i, "min", "min("+d+")")
			p.add(i, "max", "max("+d+")")
			p.add(i, "mean", "avg("+d+")")
			p.add(i, "stddev", "stddev_samp("+d+")")
			if exact {
				p.add(i, "quantiles", "quantile_cont("+d+", [0.05, 0.25, 0.5, 0.75, 0.95])")
			} else {
				p.add(i, "quantiles", "approx_quantile("+d+", [0.05, 0.25, 0.5, 0.75, 0.95])")
			}
			p.add(i, "negatives", "count_if("+q+" < 0)")
			p.add(i, "zeros", "count_if("+q+" = 0)")
		case "time":
			p.add(i, "min", "min("+q+")::VARCHAR")
			p.add(i, "max", "max("+q+")::VARCHAR")
		case "text":
			s := textExpr(Column{Name: c.Name, Type: c.Type})
			t := "trim(" + s + ")"
			p.add(i, "min", "left(min("+s+"), 60)")
			p.add(i, "max", "left(max("+s+"), 60)")
			p.add(i, "minlen", "min(length("+s+"))")
			p.add(i, "maxlen", "max(length("+s+"))")
			p.add(i, "empty", "count_if("+t+" = '')")
			p.add(i, "padded", "count_if("+s+" <> "+t+" AND "+t+" <> '')")
			p.add(i, "spaced", "count_if(contains("+t+", ' '))")
			p.add(i, "numeric", "count_if("+isNumber(t)+")")
			p.add(i, "leadzero", "count_if(regexp_full_match("+t+", '0[0-9]+'))")
			p.add(i, "date", "count_if("+isDate(t)+")")
		case "bool":
			p.add(i, "trues", "count_if("+q+")")
		}
		if c.Distinct > 0 && c.Distinct <= topDistinct && k != "other" {
			p.add(i, "histogram", "histogram("+q+")")
		}
	}
	return "SELECT count(*), " + strings.Join(p.exprs, ", ") + " FROM " + from, p
}

// read fills the profiles from the first pass's row.
func (p *plan) read(row []any, cols []catalog.Column) (int64, []Column) {
	rows := toInt(row[0])
	out := make([]Column, len(cols))
	for i, c := range cols {
		s := p.slots[i]
		get := func(name string) (any, bool) {
			k, ok := s[name]
			if !ok {
				return nil, false
			}
			return row[k], true
		}
		num := func(name string) int64 { v, _ := get(name); return toInt(v) }
		pc := Column{Name: c.Name, Type: c.Type, Kind: kindOf(c.Type), ordinal: i}
		pc.nonNull = num("nonnull")
		pc.Nulls = rows - pc.nonNull
		if rows > 0 {
			pc.NullPct = math.Round(1000*float64(pc.Nulls)/float64(rows)) / 10
		}
		pc.Distinct = min(num("distinct"), rows-pc.Nulls)
		pc.DistinctApprox = !p.exact && pc.Kind != "other"
		if v, ok := get("min"); ok && v != nil {
			pc.Min = v
		}
		if v, ok := get("max"); ok && v != nil {
			pc.Max = v
		}
		switch pc.Kind {
		case "number":
			pc.Mean = floatPtr(get("mean"))
			pc.Stddev = floatPtr(get("stddev"))
			if q, ok := get("quantiles"); ok {
				if l, ok := q.([]any); ok && len(l) == 5 {
					f := make([]float64, 5)
					for j, v := range l {
						f[j], _ = toFloat(v)
					}
					pc.Quantiles = &Quantiles{P05: f[0], P25: f[1], Median: f[2], P75: f[3], P95: f[4]}
				}
			}
			n, z := num("negatives"), num("zeros")
			pc.Negatives, pc.Zeros = &n, &z
		case "text":
			pc.Text = &Text{MinLen: num("minlen"), MaxLen: num("maxlen"), Empty: num("empty"), Padded: num("padded")}
			pc.numericText, pc.dateText, pc.leadingZero, pc.spaced = num("numeric"), num("date"), num("leadzero"), num("spaced")
		case "bool":
			t := num("trues")
			pc.Trues = &t
		}
		if h, ok := get("histogram"); ok {
			pc.Top = topValues(h, strings.ToUpper(c.Type) == "DATE")
		}
		out[i] = pc
	}
	return rows, out
}

// topValues reads a histogram() map, most frequent first. A DATE key
// arrives as a timestamp at midnight; date says to cut the time off.
func topValues(h any, date bool) []Value {
	m, ok := h.(map[string]any)
	if !ok {
		return nil
	}
	out := make([]Value, 0, len(m))
	for k, v := range m {
		if date {
			k = strings.TrimSuffix(k, " 00:00:00")
		}
		out = append(out, Value{Value: k, Count: toInt(v)})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Count != out[b].Count {
			return out[a].Count > out[b].Count
		}
		return out[a].Value < out[b].Value
	})
	if len(out) > topShown {
		out = out[:topShown]
	}
	return out
}

// secondPass counts the values outside each numeric column's IQR fences,
// the exact number of distinct values where the first pass estimated it
// and the count is affordable (always for likely keys), and a few values
// spoiling numbers or dates stored as text. It returns "" when there is
// nothing to count.
func secondPass(from string, cols []Column, keys []int) (string, func(row []any)) {
	var exprs []string
	var fill []func(row []any, k int)
	for i := range cols {
		c := &cols[i]
		if c.Quantiles == nil || c.Distinct < 4 {
			continue
		}
		iqr := c.Quantiles.P75 - c.Quantiles.P25
		lo, hi := c.Quantiles.P25-1.5*iqr, c.Quantiles.P75+1.5*iqr
		q := duck.QuoteIdent(c.Name) + "::DOUBLE"
		exprs = append(exprs, fmt.Sprintf("count_if(%s < %s OR %s > %s)", q, sqlFloat(lo), q, sqlFloat(hi)))
		fill = append(fill, func(row []any, k int) {
			c.Outliers = &Outliers{Count: toInt(row[k]), Low: lo, High: hi}
		})
	}
	for i := range cols {
		c := &cols[i]
		if !c.DistinctApprox || (c.Distinct > exactDistinct && !slices.Contains(keys, i)) {
			continue
		}
		exprs = append(exprs, "count(DISTINCT "+duck.QuoteIdent(c.Name)+")")
		fill = append(fill, func(row []any, k int) { c.Distinct, c.DistinctApprox = toInt(row[k]), false })
	}
	// A few values that spoil a column of numbers or dates stored as text.
	for i := range cols {
		c := &cols[i]
		if c.Text == nil {
			continue
		}
		nonEmpty := float64(c.nonNull - c.Text.Empty)
		var pred func(string) string
		switch {
		case c.numericText < c.nonNull-c.Text.Empty && float64(c.numericText) >= parseShare*nonEmpty:
			pred = isNumber
		case c.dateText < c.nonNull-c.Text.Empty && float64(c.dateText) >= parseShare*nonEmpty:
			pred = isDate
		}
		if pred == nil {
			continue
		}
		s := textExpr(*c)
		t := "trim(" + s + ")"
		exprs = append(exprs, "left(min("+s+") FILTER (WHERE "+t+" <> '' AND NOT ("+pred(t)+")), 40)",
			"left(max("+s+") FILTER (WHERE "+t+" <> '' AND NOT ("+pred(t)+")), 40)")
		fill = append(fill, func(row []any, k int) {
			var ex []string
			for _, v := range row[k : k+2] {
				if s, ok := v.(string); ok && !slices.Contains(ex, strconv.Quote(s)) {
					ex = append(ex, strconv.Quote(s))
				}
			}
			if len(ex) > 0 {
				c.offenders = " (not: " + strings.Join(ex, ", ") + ")"
			}
		}, func([]any, int) {})
	}
	if len(exprs) == 0 {
		return "", nil
	}
	return "SELECT " + strings.Join(exprs, ", ") + " FROM " + from, func(row []any) {
		for k, f := range fill {
			f(row, k)
		}
	}
}

// duplicatesQuery lists a few values of col that occur more than once.
func duplicatesQuery(table, col string) string {
	q := duck.QuoteIdent(col)
	return "SELECT " + q + "::VARCHAR AS value, count(*) AS n FROM " + duck.QuoteIdent(table) +
		" WHERE " + q + " IS NOT NULL GROUP BY " + q + " HAVING count(*) > 1 ORDER BY n DESC, value LIMIT 3"
}

func sqlFloat(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64) + "::DOUBLE"
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case float64:
		return int64(x)
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	case nil:
		return 0, false
	}
	return float64(toInt(v)), true
}

func floatPtr(v any, ok bool) *float64 {
	if !ok || v == nil {
		return nil
	}
	f, ok := toFloat(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// round rounds f to digits significant digits.
func round(f float64, digits int) float64 {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	s, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', digits, 64), 64)
	return s
}
