package profile

import (
	"fmt"
	"strings"
	"unicode"
)

// Thresholds of the data-quality flags.
const (
	mostlyNullPct = 50.0 // NULL share above which a column is flagged
	parseShare    = 0.9  // share of values that must parse to flag numbers/dates stored as text
	idShare       = 0.95 // distinct share above which text looks like an identifier
	idMinRows     = 20   // fewer values than this say nothing about uniqueness
)

// amountWords mark columns whose values should not be negative.
var amountWords = map[string]bool{
	"amount": true, "amt": true, "price": true, "prices": true, "cost": true, "costs": true, "qty": true,
	"quantity": true, "quantities": true, "revenue": true, "sales": true, "fee": true, "fees": true,
	"salary": true, "wage": true, "wages": true, "units": true, "subtotal": true, "total": true,
}

// codeWords mark text columns whose digits are codes, not numbers.
var codeWords = map[string]bool{"zip": true, "postal": true, "postcode": true, "code": true, "phone": true, "id": true, "sku": true, "isbn": true}

// words splits a column name into lower-case words: "unitPrice",
// "unit_price" and "Unit Price" all give unit, price.
func words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

func hasWord(name string, set map[string]bool) bool {
	for _, w := range words(name) {
		if set[w] {
			return true
		}
	}
	return false
}

// likelyKeys picks the columns that look like the table's key: "id",
// "<table>_id", an id-named first column, or an id-named column whose
// values are (nearly) all distinct. At most two.
func likelyKeys(table string, cols []Column) []int {
	singular := strings.ToLower(table)
	switch {
	case strings.HasSuffix(singular, "ies"):
		singular = strings.TrimSuffix(singular, "ies") + "y"
	case strings.HasSuffix(singular, "s"):
		singular = strings.TrimSuffix(singular, "s")
	}
	var out []int
	for i, c := range cols {
		if c.Kind != "number" && c.Kind != "text" {
			continue
		}
		nonNull := c.nonNull
		if nonNull < 2 {
			continue
		}
		w := words(c.Name)
		if len(w) == 0 {
			continue
		}
		last := w[len(w)-1]
		idName := last == "id" || last == "uuid" || last == "key"
		named := len(w) == 1 && idName || strings.Join(w, "_") == singular+"_id" || strings.Join(w, "") == singular+"id"
		unique := float64(c.Distinct) >= 0.9*float64(nonNull)
		if named || idName && (c.ordinal == 0 || unique) {
			out = append(out, i)
			if len(out) == 2 {
				break
			}
		}
	}
	return out
}

// flag sets the data-quality flags of c; dups are the repeated values of
// a likely key column (nil when c is not one).
func flag(c *Column, rows int64, key bool, dups []Value) {
	nonNull := rows - c.Nulls
	add := func(code, format string, a ...any) {
		c.Flags = append(c.Flags, Flag{Code: code, Message: fmt.Sprintf(format, a...)})
	}
	if rows == 0 {
		return
	}
	if nonNull == 0 {
		add("all_null", "every value is NULL")
		return
	}
	if c.NullPct > mostlyNullPct {
		add("mostly_null", "%.1f%% of values are NULL", c.NullPct)
	}
	if c.Distinct == 1 && nonNull > 1 {
		add("constant", "every non-NULL value is the same (%s)", valueText(c))
	}
	if c.Text != nil {
		nonEmpty := nonNull - c.Text.Empty
		if c.Text.Empty > 0 {
			add("empty_strings", "%d values are empty strings, not NULL", c.Text.Empty)
		}
		if c.Text.Padded > 0 {
			add("whitespace_padded", "%d values have leading or trailing spaces; compare and group on trim(%s)", c.Text.Padded, c.Name)
		}
		codes := c.leadingZero > 0 || hasWord(c.Name, codeWords)
		numbers := nonEmpty > 0 && float64(c.numericText) >= parseShare*float64(nonEmpty)
		switch {
		case numbers && !codes:
			add("numbers_as_text", "%d of %d values are numbers stored as text%s; use TRY_CAST(%s AS DOUBLE)", c.numericText, nonEmpty, c.offenders, c.Name)
		case !numbers && nonEmpty > 0 && float64(c.dateText) >= parseShare*float64(nonEmpty):
			add("dates_as_text", "%d of %d values are dates stored as text%s; use TRY_CAST(%s AS DATE) or strptime", c.dateText, nonEmpty, c.offenders, c.Name)
		}
		if !key && nonNull >= idMinRows && float64(c.Distinct) >= idShare*float64(nonNull) &&
			float64(c.spaced) <= 0.05*float64(nonNull) && !numbers {
			add("id_like", "looks like an identifier (%d distinct in %d values): count or join on it, don't group by it", c.Distinct, nonNull)
		}
	}
	if c.Negatives != nil && *c.Negatives > 0 && hasWord(c.Name, amountWords) {
		add("negative_values", "%d negative values in a column named like an amount (min %v): refunds, errors or a sign convention?", *c.Negatives, c.Min)
	}
	if key && c.Distinct < nonNull {
		msg := "looks like the table's key but %d values repeat"
		if len(dups) > 0 {
			ex := make([]string, len(dups))
			for i, d := range dups {
				ex[i] = fmt.Sprintf("%q ×%d", d.Value, d.Count)
			}
			msg += " (" + strings.Join(ex, ", ") + ")"
		}
		add("duplicate_key", msg+"; joins on it will multiply rows", nonNull-c.Distinct)
	}
}

func valueText(c *Column) string {
	if len(c.Top) > 0 {
		return fmt.Sprintf("%q", c.Top[0].Value)
	}
	if c.Min != nil {
		return fmt.Sprint(c.Min)
	}
	return "?"
}
