package report

import (
	"regexp"
	"strconv"
	"strings"
)

// A report table writes each column the same way down its rows, as the
// window's grids do: integers with thousands separators (not ids, years or
// codes), decimals with one number of decimals per column, timestamps that
// are all at midnight as dates.
type cellFormat struct {
	kind     int // fmtPlain, fmtInteger, fmtDecimal, fmtDate
	group    bool
	decimals int
}

const (
	fmtPlain = iota
	fmtInteger
	fmtDecimal
	fmtDate
	maxDecimals = 6
	midnight    = " 00:00:00"
)

// labelName is a column of integers that label rather than count.
var labelName = regexp.MustCompile(`(?i)((^|_)(id|year|yr|code|zip|postcode|phone|number|no|nr|key)s?$|id$)`)

// columnFormats decides each column's format from its type, name and the
// values shown (formatValue's text).
func columnFormats(cols []Column, rows [][]string) []cellFormat {
	out := make([]cellFormat, len(cols))
	for i, c := range cols {
		t := strings.ToUpper(c.Type)
		switch {
		case numericType(t) && !isDecimalType(t):
			out[i] = cellFormat{kind: fmtInteger, group: !labelName.MatchString(c.Name)}
		case isDecimalType(t):
			f := cellFormat{kind: fmtDecimal, group: !labelName.MatchString(c.Name)}
			for _, r := range rows {
				if j := strings.IndexByte(r[i], '.'); j >= 0 && plainDecimal.MatchString(r[i]) {
					f.decimals = max(f.decimals, len(r[i])-j-1)
				}
			}
			f.decimals = min(f.decimals, maxDecimals)
			out[i] = f
		case strings.HasPrefix(t, "TIMESTAMP") && !strings.Contains(t, "TZ") && !strings.Contains(t, "ZONE"):
			all := len(rows) > 0
			for _, r := range rows {
				all = all && (r[i] == "NULL" || strings.HasSuffix(r[i], midnight))
			}
			if all {
				out[i] = cellFormat{kind: fmtDate}
			}
		}
	}
	return out
}

func isDecimalType(t string) bool {
	for _, p := range []string{"DOUBLE", "FLOAT", "REAL", "DECIMAL", "NUMERIC"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

var (
	plainInteger = regexp.MustCompile(`^-?[0-9]+$`)
	plainDecimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
)

// format writes s (formatValue's text of a cell) as f says; text that is
// not a plain number (NULL, NaN, 1e-9) is left as it is.
func (f cellFormat) format(s string) string {
	switch f.kind {
	case fmtInteger:
		if plainInteger.MatchString(s) {
			return group(s, f.group)
		}
	case fmtDecimal:
		if !plainDecimal.MatchString(s) {
			return s
		}
		whole, frac, _ := strings.Cut(s, ".")
		if len(frac) > f.decimals {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return s
			}
			r := strconv.FormatFloat(v, 'f', f.decimals, 64)
			if strings.Trim(r, "-0.") == "" && strings.Trim(s, "-0.") != "" {
				return s // would read as zero
			}
			whole, frac, _ = strings.Cut(r, ".")
		}
		frac += strings.Repeat("0", f.decimals-len(frac))
		if f.decimals == 0 {
			return group(whole, f.group)
		}
		return group(whole, f.group) + "." + frac
	case fmtDate:
		return strings.TrimSuffix(s, midnight)
	}
	return s
}

func group(whole string, on bool) string {
	if !on {
		return whole
	}
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return whole
	}
	return thousands(n)
}
