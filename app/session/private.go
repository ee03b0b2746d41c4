package session

import (
	"context"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/workspace"
)

// RemotePrivate is the private columns of the saved connection conn, over
// its open connection; release lets go of it. Its errors are data/remote's
// (worded by Explain).
func (c *Connections) RemotePrivate(ctx context.Context, conn string) (assemble.RemotePrivate, func(), error) {
	ps, err := c.Profiles()
	if err != nil {
		return assemble.RemotePrivate{}, nil, err
	}
	r, release, err := c.Open(ctx, conn)
	if err != nil {
		return assemble.RemotePrivate{}, nil, c.shape(err)
	}
	return assemble.RemotePrivate{R: r, Dir: ps.CacheDir(conn)}, release, nil
}

// GuardReport puts m's provider behind the privacy gate of its level
// (config.Model.Guard) for the report of a run in conversation chatID,
// with the private columns of the conversation's connection or of the
// workspace. release lets go of what the gate reads.
func (s *Session) GuardReport(ctx context.Context, chatID string, m *config.Model) (p llm.Provider, release func(), err error) {
	if !m.Gated() {
		return m.Provider, func() {}, nil
	}
	st, err := s.Chats.Store()
	if err != nil {
		return nil, nil, err
	}
	conn, err := ChatConnection(ctx, st, chatID)
	if err != nil {
		return nil, nil, Wrap(err)
	}
	var src assemble.Private = localPrivate{s.Local}
	release = func() {}
	if conn != "" {
		if src, release, err = s.Conns.RemotePrivate(ctx, conn); err != nil {
			return nil, nil, err
		}
	}
	g, err := m.Guard(src)
	if err != nil {
		release()
		return nil, nil, Wrap(err)
	}
	return g, release, nil
}

// localPrivate reads the workspace's private columns through Local, the
// workspace held for each read.
type localPrivate struct{ l *Local }

var _ assemble.Private = localPrivate{}

func (w localPrivate) PrivateColumns(ctx context.Context) ([]privacy.Column, error) {
	var out []privacy.Column
	err := w.l.Use(func(_ context.Context, ws *workspace.Workspace) error {
		var err error
		out, err = assemble.WorkspacePrivate{WS: ws}.PrivateColumns(ctx)
		return err
	})
	return out, err
}

func (w localPrivate) PrivateValues(ctx context.Context, c privacy.Column, limit int) ([]string, error) {
	var out []string
	err := w.l.Use(func(_ context.Context, ws *workspace.Workspace) error {
		var err error
		out, err = assemble.WorkspacePrivate{WS: ws}.PrivateValues(ctx, c, limit)
		return err
	})
	return out, err
}
