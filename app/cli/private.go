package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/store"
)

func init() {
	register(command{"private", "private [--workspace DIR | --connection NAME] [TABLE [COLUMN [--off]]]",
		"list the private columns (values a hosted model sees only as placeholders), or mark one private or not", runPrivate})
}

// privateColumns is what runPrivate needs of a workspace or connection.
type privateColumns interface {
	Columns(ctx context.Context) ([]privacy.Column, error)
	SetPrivate(ctx context.Context, table, column string, on bool) (privacy.Column, error)
}

// runPrivate lists private and proposed columns (no TABLE, or a TABLE's
// columns), or records the user's decision on TABLE COLUMN: private, or
// not with --off.
func runPrivate(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("private", e)
	conn := fs.String("connection", "", "a table of a connected database (see loupe connect) instead of a dataset")
	off := fs.Bool("off", false, "mark the column not private")
	pos, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) > 2 || *off && len(pos) != 2 {
		fmt.Fprintln(e.stderr, "loupe private: give nothing (list), TABLE (its columns), or TABLE COLUMN [--off], e.g. loupe private customers email")
		return ExitUsage
	}
	if *conn != "" && *ws != "" {
		fmt.Fprintln(e.stderr, "loupe private: give --workspace or --connection, not both")
		return ExitUsage
	}
	var (
		src     privateColumns
		closeFn func() error
	)
	if *conn != "" {
		src, err = connectionPrivate(ctx, *conn)
		closeFn = func() error { return nil }
	} else {
		w, werr := openWorkspace(ctx, *ws)
		if werr != nil {
			return fail(e, werr)
		}
		src, closeFn, err = assemble.WorkspacePrivate{WS: w}, w.Close, nil
	}
	if err != nil {
		return fail(e, err)
	}
	defer closeFn()
	if len(pos) == 2 {
		c, err := src.SetPrivate(ctx, pos[0], pos[1], !*off)
		var te *assemble.PrivateTargetError
		if errors.As(err, &te) {
			return fail(e, fmt.Errorf("loupe private: %w", err))
		}
		if err != nil {
			return fail(e, err)
		}
		printPrivate(e.stdout, []privacy.Column{c}, true)
		return ExitOK
	}
	cs, err := src.Columns(ctx)
	if err != nil {
		return fail(e, err)
	}
	if len(pos) == 1 {
		mine, err := assemble.TableColumns(cs, pos[0])
		if err != nil {
			return fail(e, fmt.Errorf("loupe private: %w", err))
		}
		printPrivate(e.stdout, mine, true)
		return ExitOK
	}
	printPrivate(e.stdout, cs, false)
	return ExitOK
}

// printPrivate prints one line per column: TABLE.COLUMN, private or not,
// its kind and whether Loupe proposed it or the user decided. Without all,
// only private and proposed columns are printed.
func printPrivate(w io.Writer, cs []privacy.Column, all bool) {
	n := 0
	for _, c := range cs {
		if !all && !c.Private && !c.Proposed {
			continue
		}
		n++
		state := "open"
		if c.Private {
			state = "private"
		}
		why := "proposed by Loupe"
		switch {
		case c.Decided:
			why = "set by you"
		case !c.Proposed:
			why = ""
		}
		kind := ""
		if c.Private {
			kind = string(c.Kind)
		}
		fmt.Fprintf(w, "%s.%s\t%s\t%s\t%s\n", c.Table, c.Column, state, kind, why)
	}
	if n == 0 {
		fmt.Fprintln(w, "no private columns: mark one with loupe private TABLE COLUMN")
	}
}

// connectionPrivate is the saved connection name's private columns, over
// its schema as last discovered (discovering it first when it never was).
func connectionPrivate(ctx context.Context, name string) (privateColumns, error) {
	path, err := remote.DefaultStorePath()
	if err != nil {
		return nil, err
	}
	store := remote.NewStore(path)
	if _, err := store.Get(name); err != nil {
		return nil, fmt.Errorf("loupe private: %w", err)
	}
	dir := store.CacheDir(name)
	sch, err := discovered(ctx, dir, name)
	if err != nil {
		return nil, err
	}
	r := retrieve.NewRemote(name, nil, sch)
	r.Dir = dir
	return assemble.RemotePrivate{R: r, Dir: dir}, nil
}

// exportGuard puts m's provider behind the privacy gate of its level
// (config.Model.Guard) for the report of conversation chatID: its private
// columns are the workspace's, or those of the connection the
// conversation is about.
func exportGuard(ctx context.Context, st *store.Store, wsDir, chatID string, m *config.Model) (llm.Provider, func(), error) {
	if !m.Gated() {
		return m.Provider, func() {}, nil
	}
	c, err := st.Conversation(ctx, chatID)
	if err != nil {
		return nil, nil, err
	}
	var (
		src     assemble.Private
		release func()
	)
	if name := remote.LabelName(c.Workspace); name != "" {
		r, err := openConnection(ctx, name)
		if err != nil {
			return nil, nil, err
		}
		src, release = assemble.RemotePrivate{R: r, Dir: r.Dir}, func() { _ = r.Close() }
	} else {
		w, err := openWorkspace(ctx, wsDir)
		if err != nil {
			return nil, nil, err
		}
		src, release = assemble.WorkspacePrivate{WS: w}, func() { _ = w.Close() }
	}
	g, err := m.Guard(src)
	if err != nil {
		release()
		return nil, nil, err
	}
	return g, release, nil
}
