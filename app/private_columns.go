package app

import (
	"context"
	"errors"
	"strings"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/workspace"
)

// PrivateColumns lists the columns of a dataset and whether each is
// private: values a hosted model at the masked level sees only as
// placeholders (<email_3>). Loupe proposes columns by name and sample
// values; the user's decision (SetPrivateColumn) wins. Errors: not_found
// for an unknown dataset.
func (a *App) PrivateColumns(dataset string) ([]privacy.Column, error) {
	var out []privacy.Column
	err := a.s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		cs, err := assemble.WorkspacePrivate{WS: ws}.Columns(ctx)
		if err != nil {
			return err
		}
		out, err = assemble.TableColumns(cs, dataset)
		return err
	})
	return out, privateError(err)
}

// SetPrivateColumn records the user's decision that a dataset's column is
// private or not, and returns the column as it now stands. Errors:
// not_found for an unknown dataset or column.
func (a *App) SetPrivateColumn(dataset, column string, private bool) (privacy.Column, error) {
	var out privacy.Column
	err := a.s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		var err error
		out, err = assemble.WorkspacePrivate{WS: ws}.SetPrivate(ctx, dataset, column, private)
		return err
	})
	return out, privateError(err)
}

// ConnectionPrivateColumns is PrivateColumns for a table of a saved
// connection (named as ConnectionTables names it).
func (a *App) ConnectionPrivateColumns(conn, table string) ([]privacy.Column, error) {
	rp, release, err := a.remotePrivate(conn)
	if err != nil {
		return nil, err
	}
	defer release()
	cs, err := rp.Columns(a.life)
	if err != nil {
		return nil, wrap(err)
	}
	out, err := assemble.TableColumns(cs, table)
	return out, privateError(err)
}

// SetConnectionPrivateColumn is SetPrivateColumn for a table of a saved
// connection; the decision is kept beside the connection's notes.
func (a *App) SetConnectionPrivateColumn(conn, table, column string, private bool) (privacy.Column, error) {
	rp, release, err := a.remotePrivate(conn)
	if err != nil {
		return privacy.Column{}, err
	}
	defer release()
	c, err := rp.SetPrivate(a.life, table, column, private)
	return c, privateError(err)
}

func (a *App) remotePrivate(conn string) (assemble.RemotePrivate, func(), error) {
	return a.s.Conns.RemotePrivate(a.life, conn)
}

func privateError(err error) error {
	var te *assemble.PrivateTargetError
	if errors.As(err, &te) {
		return &Error{Code: CodeNotFound, Message: strings.ToUpper(te.Error()[:1]) + te.Error()[1:] + ".",
			Hint: "Private columns can be marked only on a table's own columns.", Err: err}
	}
	return wrap(err)
}
