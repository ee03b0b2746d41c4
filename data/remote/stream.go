package remote

import (
	"database/sql"
	"errors"

	"github.com/loupeapp/loupe/data/query"
)

// Stream hands the columns and then each row of rows to v, each value
// passed through norm with its column's type (as typeName names it). When
// v returns ErrStop, stop is called to end the statement on the server
// (closing rows would otherwise read the rest) and ErrStop is returned.
// The caller closes rows.
func Stream(rows *sql.Rows, typeName func(*sql.ColumnType) string, norm func(v any, typ string) any, v Visitor, stop func()) error {
	cts, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	cols := make([]query.Column, len(cts))
	for i, ct := range cts {
		cols[i] = query.Column{Name: ct.Name(), Type: typeName(ct)}
	}
	if v.Columns != nil {
		if err := v.Columns(cols); err != nil {
			return err
		}
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	row := make([]any, len(cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, x := range vals {
			row[i] = norm(x, cols[i].Type)
		}
		if err := v.Row(row); err != nil {
			if errors.Is(err, ErrStop) {
				stop()
			}
			return err
		}
	}
	return rows.Err()
}
