package pg

import (
	"database/sql/driver"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/loupeapp/loupe/data/remote"
)

// typeName is the upper-cased PostgreSQL name of a type OID (INT4,
// VARCHAR, TIMESTAMPTZ, _TEXT for arrays), or its number when pgx does not
// know it (an enum or domain).
func typeName(m *pgtype.Map, oid uint32) string {
	if t, ok := m.TypeForOID(oid); ok {
		return strings.ToUpper(t.Name)
	}
	return fmt.Sprintf("OID %d", oid)
}

// normalize converts pgx's values to JSON-ready ones before the shared
// remote.Normalize.
func normalize(v any, typ string) any {
	switch x := v.(type) {
	case pgtype.Numeric:
		if !x.Valid {
			return nil
		}
		if f, err := x.Float64Value(); err == nil && f.Valid {
			return remote.Normalize(f.Float64, typ)
		}
		s, _ := x.Value()
		return remote.Normalize(s, typ)
	case pgtype.Interval:
		if !x.Valid {
			return nil
		}
		return interval(x)
	case pgtype.Time:
		if !x.Valid {
			return nil
		}
		d := time.Duration(x.Microseconds) * time.Microsecond
		return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(d).Format("15:04:05.999999")
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e, strings.TrimPrefix(typ, "_"))
		}
		return out
	case time.Time, [16]byte, []byte, string, nil:
		return remote.Normalize(x, typ)
	case driver.Valuer:
		dv, err := x.Value()
		if err == nil {
			return remote.Normalize(dv, typ)
		}
	}
	return remote.Normalize(v, typ)
}

// interval prints an interval the way psql does: 1 year 2 mons 3 days 04:05:06.
func interval(iv pgtype.Interval) string {
	var parts []string
	unit := func(n int64, one, many string) {
		if n == 1 || n == -1 {
			parts = append(parts, fmt.Sprintf("%d %s", n, one))
		} else {
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	if y := iv.Months / 12; y != 0 {
		unit(int64(y), "year", "years")
	}
	if m := iv.Months % 12; m != 0 {
		unit(int64(m), "mon", "mons")
	}
	if iv.Days != 0 {
		unit(int64(iv.Days), "day", "days")
	}
	if iv.Microseconds != 0 || len(parts) == 0 {
		d := time.Duration(iv.Microseconds) * time.Microsecond
		sign := ""
		if d < 0 {
			sign, d = "-", -d
		}
		s := fmt.Sprintf("%s%02d:%02d:%02d", sign, int64(d/time.Hour), int64(d/time.Minute)%60, int64(d/time.Second)%60)
		if frac := d % time.Second; frac != 0 {
			s += strings.TrimRight(fmt.Sprintf(".%06d", int64(frac/time.Microsecond)), "0")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}
