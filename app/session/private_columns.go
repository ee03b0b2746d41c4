package session

import (
	"context"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/workspace"
)

// PrivateColumns lists the columns of the workspace's dataset and whether
// each is private (assemble.WorkspacePrivate); an unknown dataset is an
// *assemble.PrivateTargetError.
func (s *Session) PrivateColumns(dataset string) ([]privacy.Column, error) {
	var out []privacy.Column
	err := s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		cs, err := assemble.WorkspacePrivate{WS: ws}.Columns(ctx)
		if err != nil {
			return err
		}
		out, err = assemble.TableColumns(cs, dataset)
		return err
	})
	return out, err
}

// SetPrivateColumn records the user's decision that a column of the
// workspace's dataset is private or not, and returns the column as it now
// stands.
func (s *Session) SetPrivateColumn(dataset, column string, private bool) (privacy.Column, error) {
	var out privacy.Column
	err := s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) (err error) {
		out, err = assemble.WorkspacePrivate{WS: ws}.SetPrivate(ctx, dataset, column, private)
		return err
	})
	return out, err
}

// ConnectionPrivateColumns is PrivateColumns for a table of the saved
// connection conn.
func (c *Connections) ConnectionPrivateColumns(ctx context.Context, conn, table string) ([]privacy.Column, error) {
	rp, release, err := c.RemotePrivate(ctx, conn)
	if err != nil {
		return nil, err
	}
	defer release()
	cs, err := rp.Columns(ctx)
	if err != nil {
		return nil, Wrap(err)
	}
	return assemble.TableColumns(cs, table)
}

// SetConnectionPrivateColumn is SetPrivateColumn for a table of the saved
// connection conn; the decision is kept beside the connection's notes.
func (c *Connections) SetConnectionPrivateColumn(ctx context.Context, conn, table, column string, private bool) (privacy.Column, error) {
	rp, release, err := c.RemotePrivate(ctx, conn)
	if err != nil {
		return privacy.Column{}, err
	}
	defer release()
	return rp.SetPrivate(ctx, table, column, private)
}
