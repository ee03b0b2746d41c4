package load

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/duck"
)

// sniffed is what DuckDB's sniff_csv found of a text file: its dialect,
// whether it has a header, its columns' names and types, and the date
// and timestamp formats of its values.
type sniffed struct {
	delim, quote, escape, newLine, comment string
	skip                                   int64
	header                                 bool
	columns                                [][2]string // name, type
	dateFormat, timestampFormat            string
}

// errSniff means sniff_csv's answer was not one Loupe can turn into
// reading instructions.
var errSniff = errors.New("unexpected sniff_csv answer")

// sniff runs call, a sniff_csv(…) call, on c and returns its findings.
// It reads sniff_csv's columns, never its Prompt: DuckDB writes the
// prompt's column names as the header has them, quotes unescaped, so a
// view made of it let a CSV's header end the statement and run one of
// its own (a header created a table at load).
func sniff(ctx context.Context, c *duckdb.Conn, call string) (sniffed, error) {
	var (
		s     sniffed
		found bool
		bad   error
	)
	q := "SELECT Delimiter, Quote, Escape, NewLineDelimiter, Comment, SkipRows, HasHeader, Columns, DateFormat, TimestampFormat FROM " + call
	err := each(ctx, c, q, func(v []any) {
		found = true
		s.delim, s.quote, s.escape = sniffText(v[0]), sniffText(v[1]), sniffText(v[2])
		s.newLine, s.comment = sniffText(v[3]), sniffText(v[4])
		s.skip = toInt(v[5])
		s.header, _ = v[6].(bool)
		s.dateFormat, s.timestampFormat = sniffText(v[8]), sniffText(v[9])
		list, ok := v[7].([]any)
		if !ok {
			bad = fmt.Errorf("%w: columns %T", errSniff, v[7])
			return
		}
		for _, e := range list {
			m, ok := e.(map[string]any)
			name, okName := m["name"].(string)
			typ, okType := m["type"].(string)
			if !ok || !okName || !okType || typ == "" {
				bad = fmt.Errorf("%w: column %v", errSniff, e)
				return
			}
			s.columns = append(s.columns, [2]string{name, typ})
		}
	})
	switch {
	case err != nil:
		return s, err
	case bad != nil:
		return s, bad
	case !found || s.delim == "" || len(s.columns) == 0:
		return s, fmt.Errorf("%w: no dialect or no columns", errSniff)
	}
	return s, nil
}

// sniffText is a text column of sniff_csv's answer, which says
// "(empty)" for none.
func sniffText(v any) string {
	s, _ := v.(string)
	if s == "(empty)" {
		return ""
	}
	return s
}

// options returns the read_csv options, after the path, that read the
// file as s found it, then extra (Loupe's own, such as noHive): every
// value quoted by Loupe, whatever the file holds.
func (s sniffed) options(extra ...string) string {
	q := duck.QuoteString
	var b strings.Builder
	fmt.Fprintf(&b, "auto_detect=false, delim=%s, quote=%s, escape=%s, new_line=%s, skip=%d, comment=%s, header=%s, columns={",
		q(s.delim), q(s.quote), q(s.escape), q(s.newLine), s.skip, q(s.comment), strconv.FormatBool(s.header))
	for i, col := range s.columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(q(col[0]) + ": " + q(col[1]))
	}
	b.WriteString("}")
	if s.dateFormat != "" {
		b.WriteString(", dateformat=" + q(s.dateFormat))
	}
	if s.timestampFormat != "" {
		b.WriteString(", timestampformat=" + q(s.timestampFormat))
	}
	for _, e := range extra {
		b.WriteString(", " + e)
	}
	return b.String()
}
