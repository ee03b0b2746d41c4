package app

import (
	"context"
	"errors"
	"strings"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
)

// PrivateColumns lists the columns of a dataset and whether each is
// private: values a hosted model at the masked level sees only as
// placeholders (<email_3>). Loupe proposes columns by name and sample
// values; the user's decision (SetPrivateColumn) wins. Errors: not_found
// for an unknown dataset.
func (a *App) PrivateColumns(dataset string) ([]privacy.Column, error) {
	var out []privacy.Column
	err := a.withWorkspace(func(ctx context.Context, ws *workspace.Workspace) error {
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
	err := a.withWorkspace(func(ctx context.Context, ws *workspace.Workspace) error {
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
	ps, err := a.profiles()
	if err != nil {
		return assemble.RemotePrivate{}, nil, err
	}
	r, release, err := a.remote(a.life, conn)
	if err != nil {
		return assemble.RemotePrivate{}, nil, err
	}
	return assemble.RemotePrivate{R: r, Dir: ps.CacheDir(conn)}, release, nil
}

func privateError(err error) error {
	var te *assemble.PrivateTargetError
	if errors.As(err, &te) {
		return &Error{Code: CodeNotFound, Message: strings.ToUpper(te.Error()[:1]) + te.Error()[1:] + ".",
			Hint: "Private columns can be marked only on a table's own columns.", Err: err}
	}
	return wrap(err)
}

// guardReport puts p behind the privacy gate for the report of a run in
// chatID (config.Model.Guard), at the level the settings put in force for
// runs, with the
// private columns of the chat's connection or of the workspace. The
// returned context carries the chat, so the report keeps the run's
// placeholders.
func (a *App) guardReport(ctx context.Context, chatID string, m *config.Model) (context.Context, llm.Provider, func(), error) {
	ctx = tools.WithChat(ctx, chatID)
	if !m.Gated() {
		return ctx, m.Provider, func() {}, nil
	}
	st, err := a.chatStore()
	if err != nil {
		return ctx, nil, nil, err
	}
	conn, err := chatConnection(ctx, st, chatID)
	if err != nil {
		return ctx, nil, nil, wrap(err)
	}
	var src assemble.Private = workspacePrivate{a}
	release := func() {}
	if conn != "" {
		rp, rel, err := a.remotePrivate(conn)
		if err != nil {
			return ctx, nil, nil, err
		}
		src, release = rp, rel
	}
	g, err := m.Guard(src)
	if err != nil {
		release()
		return ctx, nil, nil, wrap(err)
	}
	return ctx, g, release, nil
}

// workspacePrivate reads the workspace's private columns through the
// app's workspace, opened for each read.
type workspacePrivate struct{ a *App }

func (w workspacePrivate) PrivateColumns(ctx context.Context) ([]privacy.Column, error) {
	var out []privacy.Column
	err := w.a.withWorkspace(func(_ context.Context, ws *workspace.Workspace) error {
		var err error
		out, err = assemble.WorkspacePrivate{WS: ws}.PrivateColumns(ctx)
		return err
	})
	return out, err
}

func (w workspacePrivate) PrivateValues(ctx context.Context, c privacy.Column, limit int) ([]string, error) {
	var out []string
	err := w.a.withWorkspace(func(_ context.Context, ws *workspace.Workspace) error {
		var err error
		out, err = assemble.WorkspacePrivate{WS: ws}.PrivateValues(ctx, c, limit)
		return err
	})
	return out, err
}
