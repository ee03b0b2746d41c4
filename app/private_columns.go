package app

import (
	"errors"
	"strings"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/privacy"
)

// PrivateColumns lists the columns of a dataset and whether each is
// private: values a hosted model at the masked level sees only as
// placeholders (<email_3>). Loupe proposes columns by name and sample
// values; the user's decision (SetPrivateColumn) wins. Errors: not_found
// for an unknown dataset.
func (a *App) PrivateColumns(dataset string) ([]privacy.Column, error) {
	out, err := a.s.PrivateColumns(dataset)
	return out, privateError(err)
}

// SetPrivateColumn records the user's decision that a dataset's column is
// private or not, and returns the column as it now stands. Errors:
// not_found for an unknown dataset or column.
func (a *App) SetPrivateColumn(dataset, column string, private bool) (privacy.Column, error) {
	out, err := a.s.SetPrivateColumn(dataset, column, private)
	return out, privateError(err)
}

// ConnectionPrivateColumns is PrivateColumns for a table of a saved
// connection (named as ConnectionTables names it).
func (a *App) ConnectionPrivateColumns(conn, table string) ([]privacy.Column, error) {
	out, err := a.s.Conns.ConnectionPrivateColumns(a.life, conn, table)
	return out, privateError(err)
}

// SetConnectionPrivateColumn is SetPrivateColumn for a table of a saved
// connection; the decision is kept beside the connection's notes.
func (a *App) SetConnectionPrivateColumn(conn, table, column string, private bool) (privacy.Column, error) {
	c, err := a.s.Conns.SetConnectionPrivateColumn(a.life, conn, table, column, private)
	return c, privateError(err)
}

func privateError(err error) error {
	var te *assemble.PrivateTargetError
	if errors.As(err, &te) {
		return &Error{Code: CodeNotFound, Message: strings.ToUpper(te.Error()[:1]) + te.Error()[1:] + ".",
			Hint: "Private columns can be marked only on a table's own columns.", Err: err}
	}
	return wrap(err)
}
