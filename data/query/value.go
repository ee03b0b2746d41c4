package query

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// normalize turns a driver value into one that encodes to JSON and prints
// the way DuckDB's own shell shows it: dates as 2006-01-02, timestamps
// without a zone unless the type has one, huge integers and decimals exact,
// blobs as \x hex, NaN and infinities as strings.
func normalize(v any, typ string) any {
	switch x := v.(type) {
	case nil, bool, string, int64, int32, int16, int8, uint8, uint16, uint32:
		return x
	case int:
		return int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return fmt.Sprint(x)
		}
		return int64(x)
	case float64:
		return Finite(x)
	case float32:
		return Finite(float64(x))
	case *big.Int:
		if x.IsInt64() {
			return x.Int64()
		}
		return x.String()
	case duckdb.Decimal:
		return decimal(x)
	case time.Time:
		return FormatTime(x, typ)
	case duckdb.Interval:
		return formatInterval(x)
	case duckdb.UUID:
		return x.String()
	case []byte:
		if strings.HasPrefix(typ, "UUID") && len(x) == 16 {
			var u duckdb.UUID
			copy(u[:], x)
			return u.String()
		}
		if utf8.Valid(x) && !strings.HasPrefix(typ, "BLOB") {
			return string(x)
		}
		return `\x` + hex.EncodeToString(x)
	case []any:
		elem := elementType(typ)
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e, elem)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e, "")
		}
		return out
	case duckdb.OrderedMap:
		keys, vals := x.Keys(), x.Values()
		out := make(map[string]any, len(keys))
		for i, k := range keys {
			out[fmt.Sprint(normalize(k, ""))] = normalize(vals[i], "")
		}
		return out
	case duckdb.Map:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(normalize(k, ""))] = normalize(e, "")
		}
		return out
	}
	return fmt.Sprint(v)
}

// elementType is the element type of a LIST or ARRAY type name
// ("DATE[]", "INTEGER[3]"), or "".
func elementType(typ string) string {
	if strings.HasSuffix(typ, "]") {
		if i := strings.LastIndexByte(typ, '['); i > 0 {
			return typ[:i]
		}
	}
	return ""
}

// Finite returns f, or "NaN", "Infinity" or "-Infinity", which JSON
// cannot hold as numbers.
func Finite(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

// FormatTime prints t the way SQL clients show a value of type typ (any
// case): DATE as 2006-01-02, TIME without a date, and a zone only for
// types that have one (…TZ, … WITH TIME ZONE).
func FormatTime(t time.Time, typ string) string {
	u := strings.ToUpper(typ)
	zoned := strings.Contains(u, "TZ") || strings.Contains(u, "ZONE")
	switch {
	case u == "DATE":
		return t.Format("2006-01-02")
	case strings.HasPrefix(u, "TIME") && !strings.HasPrefix(u, "TIMESTAMP"):
		if zoned {
			return t.Format("15:04:05.999999Z07:00")
		}
		return t.Format("15:04:05.999999")
	case zoned:
		return t.Format("2006-01-02 15:04:05.999999Z07:00")
	}
	return t.Format("2006-01-02 15:04:05.999999")
}

func formatInterval(iv duckdb.Interval) string {
	var parts []string
	if y, m := iv.Months/12, iv.Months%12; y != 0 || m != 0 {
		if y != 0 {
			parts = append(parts, plural(int64(y), "year"))
		}
		if m != 0 {
			parts = append(parts, plural(int64(m), "month"))
		}
	}
	if iv.Days != 0 {
		parts = append(parts, plural(int64(iv.Days), "day"))
	}
	if iv.Micros != 0 || len(parts) == 0 {
		d := time.Duration(iv.Micros) * time.Microsecond
		sign := ""
		if d < 0 {
			sign, d = "-", -d
		}
		h := int64(d / time.Hour)
		m := int64(d/time.Minute) % 60
		s := d % time.Minute
		secs := fmt.Sprintf("%02d", int64(s/time.Second))
		if frac := s % time.Second; frac != 0 {
			secs += strings.TrimRight(fmt.Sprintf(".%06d", int64(frac/time.Microsecond)), "0")
		}
		parts = append(parts, fmt.Sprintf("%s%02d:%02d:%s", sign, h, m, secs))
	}
	return strings.Join(parts, " ")
}

func plural(n int64, unit string) string {
	if n == 1 || n == -1 {
		return fmt.Sprintf("%d %s", n, unit)
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// Size estimates the bytes a JSON-ready value adds to a result; the byte
// caps of local and remote queries count with it.
func Size(v any) int {
	switch x := v.(type) {
	case nil:
		return 1
	case string:
		return len(x) + 2
	case []any:
		n := 2
		for _, e := range x {
			n += Size(e) + 1
		}
		return n
	case map[string]any:
		n := 2
		for k, e := range x {
			n += len(k) + Size(e) + 4
		}
		return n
	}
	return 8
}

// decimal returns d as a float64 when the float prints as d's exact value
// (12.34, a sum of prices), else as the exact decimal string (the driver's
// Decimal.String, trailing zeros trimmed), the way huge integers are kept:
// a DECIMAL(38,2) total of 12345678901234567.89 would print as
// 12345678901234568 through a float64.
func decimal(d duckdb.Decimal) any {
	exact := d.String()
	f := d.Float64()
	if strconv.FormatFloat(f, 'f', -1, 64) == exact {
		return f
	}
	return exact
}
