package load

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// Numbers written with separators DuckDB does not read ("12,50",
// "1.234,75", "1,234.50") load as text. readNumbers finds the text columns
// whose every value is such a number and says so; when the file is
// consistent (every such column European, or every one with thousands
// commas) or the user named the decimal separator, it turns them into
// numbers, with a warning that says what was assumed.
const (
	// european: a decimal comma, optional '.' thousands groups.
	european = `^[+-]?([0-9]{1,3}(\.[0-9]{3})+|[0-9]+)(,[0-9]+)?$`
	// american: thousands commas, an optional decimal point.
	american = `^[+-]?([0-9]{1,3}(,[0-9]{3})+|[0-9]+)(\.[0-9]+)?$`
	// maxNumberColumns bounds the text columns looked at in one file.
	maxNumberColumns = 200
	// numberSampleRows are the rows that pick the columns worth reading whole.
	numberSampleRows = 10000
)

// numberStyle is what one text column's values look like.
type numberStyle struct {
	name          string
	values        int64 // non-empty values
	eu, us        int64 // values matching each style
	withSeparator int64 // matching values with a "," or "."
}

func (s numberStyle) numeric() bool { return s.values > 0 && s.withSeparator > 0 }
func (s numberStyle) isEU() bool    { return s.numeric() && s.eu == s.values }
func (s numberStyle) isUS() bool    { return s.numeric() && s.us == s.values }

// readNumbers inspects the text columns of table (whose columns are
// cols, in c's transaction) and converts them as decimal ("," or "." from
// the user; "" detects) says.
func readNumbers(ctx context.Context, c *duckdb.Conn, table string, cols []catalog.Column, decimal string) ([]string, error) {
	styles, err := candidateStyles(ctx, c, table, cols)
	if err != nil || len(styles) == 0 {
		return nil, err
	}
	if err := measureStyles(ctx, c, duck.QuoteIdent(table), styles); err != nil {
		return nil, err
	}
	var eu, us, both []numberStyle
	for _, s := range styles {
		switch {
		case s.isEU() && s.isUS():
			both = append(both, s)
		case s.isEU():
			eu = append(eu, s)
		case s.isUS():
			us = append(us, s)
		}
	}
	style := decimal
	if style == "" {
		switch {
		case len(eu) > 0 && len(us) == 0:
			style = ","
		case len(us) > 0 && len(eu) == 0:
			style = "."
		case len(eu) > 0 && len(us) > 0:
			return []string{fmt.Sprintf("numbers with a decimal comma (%s) and with thousands commas (%s) in one file: left as text; reload choosing the decimal separator",
				names(eu), names(us))}, nil
		case len(both) > 0:
			return []string{fmt.Sprintf("%s hold numbers like \"1,234\" that read as 1234 or 1.234: left as text; reload choosing the decimal separator", names(both))}, nil
		default:
			return nil, nil
		}
	}
	convert := append(both, eu...)
	if style == "." {
		convert = append(both, us...)
	}
	if len(convert) == 0 {
		return nil, nil
	}
	for _, s := range convert {
		if err := toNumber(ctx, c, table, s, style); err != nil {
			return nil, err
		}
	}
	how := `a decimal comma and "." between thousands ("1.234,75" = 1234.75)`
	if style == "." {
		how = `a decimal point and "," between thousands ("1,234.75" = 1234.75)`
	}
	why := "as the file is consistent"
	if decimal != "" {
		why = "as the import options say"
	}
	return []string{fmt.Sprintf("%s read as numbers written with %s, %s; reload with the other decimal separator if that is wrong", names(convert), how, why)}, nil
}

// candidateStyles returns the text columns of table (whose columns are
// cols) whose first numberSampleRows values are all numbers written with
// separators in one style or the other: the columns readNumbers reads
// whole.
func candidateStyles(ctx context.Context, c *duckdb.Conn, table string, cols []catalog.Column) ([]numberStyle, error) {
	var styles []numberStyle
	for _, col := range cols {
		if strings.HasPrefix(strings.ToUpper(col.Type), "VARCHAR") && len(styles) < maxNumberColumns {
			styles = append(styles, numberStyle{name: col.Name})
		}
	}
	if len(styles) == 0 {
		return nil, nil
	}
	// The first rows pick the candidates; only they are read whole, so a
	// file of plain text columns pays for a few thousand rows.
	if err := measureStyles(ctx, c, "(SELECT * FROM "+duck.QuoteIdent(table)+" LIMIT "+strconv.Itoa(numberSampleRows)+")", styles); err != nil {
		return nil, err
	}
	var candidates []numberStyle
	for _, s := range styles {
		if s.isEU() || s.isUS() {
			candidates = append(candidates, numberStyle{name: s.name})
		}
	}
	return candidates, nil
}

// measureStyles counts, in one pass over from (a quoted table, or a
// subquery in parentheses), how the values of each column in styles are
// written.
func measureStyles(ctx context.Context, c *duckdb.Conn, from string, styles []numberStyle) error {
	return each(ctx, c, "SELECT "+strings.Join(styleColumns(styles), ", ")+" FROM "+from+" AS t", func(v []any) { readStyles(v, styles) })
}

// styleColumns are the aggregates that measure styles, stylesPer a column.
func styleColumns(styles []numberStyle) []string {
	var sel []string
	for _, s := range styles {
		v := "nullif(trim(" + duck.QuoteIdent(s.name) + "), '')"
		eu := "regexp_full_match(" + v + ", " + duck.QuoteString(european) + ")"
		us := "regexp_full_match(" + v + ", " + duck.QuoteString(american) + ")"
		sel = append(sel, "count("+v+")",
			"count(*) FILTER ("+eu+")", "count(*) FILTER ("+us+")",
			"count(*) FILTER (("+eu+" OR "+us+") AND regexp_matches("+v+", '[.,]'))")
	}
	return sel
}

const stylesPer = 4

// readStyles reads the values of styleColumns(styles) from v into styles.
func readStyles(v []any, styles []numberStyle) {
	for i := range styles {
		s := &styles[i]
		s.values, s.eu, s.us = toInt(v[i*stylesPer]), toInt(v[i*stylesPer+1]), toInt(v[i*stylesPer+2])
		s.withSeparator = toInt(v[i*stylesPer+3])
	}
}

// toNumber changes column s of table to DOUBLE, reading its text with
// decimal as the decimal separator and the other one as thousands.
func toNumber(ctx context.Context, c *duckdb.Conn, table string, s numberStyle, decimal string) error {
	col := duck.QuoteIdent(s.name)
	thousands := ","
	if decimal == "," {
		thousands = "."
	}
	expr := "CAST(replace(replace(nullif(trim(" + col + "), ''), " + duck.QuoteString(thousands) + ", ''), ',', '.') AS DOUBLE)"
	q := "ALTER TABLE " + duck.QuoteIdent(table) + " ALTER COLUMN " + col + " SET DATA TYPE DOUBLE USING " + expr
	if err := duck.ExecOne(ctx, c, q); err != nil {
		return fmt.Errorf("read %s of %s as numbers: %w", s.name, finalName(table), err)
	}
	return nil
}

func names(ss []numberStyle) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.name
	}
	if len(out) == 1 {
		return "column " + out[0]
	}
	return "columns " + strings.Join(out, ", ")
}
