package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime/debug"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/mcp"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/store"
)

func init() {
	register(command{"mcp", "mcp [--workspace DIR | --connection NAME] [--privacy open|masked|schema] [--http 127.0.0.1:PORT] [--config DIR] [--model M]",
		"serve Loupe's tools to another agent (Claude Desktop, VS Code, Cursor…) over MCP: stdio, or HTTP on loopback with a token", runMCP})
}

const mcpHelp = `Usage: loupe mcp [flags]

Loupe as an MCP server: an MCP host (Claude Desktop, VS Code, Cursor, …)
starts it and calls its tools — list_tables, describe_table, sample_rows,
run_sql, profile_data, create_chart, ask, write_report — over standard
input and output. With --http it serves Streamable HTTP at
http://ADDR/mcp instead, on a loopback address only; every request must
carry "Authorization: Bearer TOKEN", the token kept in mcp-token in the
config folder (printed at start).

The client's model is one Loupe does not control: what it is sent is at
the privacy level --privacy (default $LOUPE_PRIVACY, else masked), and
kept in the outbox (loupe outbox). ask and write_report use Loupe's own
model: --model/--provider/--base-url, else $LOUPE_MODEL…, else the one
chosen in Loupe's Settings.

Flags:
`

func runMCP(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("mcp", e)
	fs.Usage = func() { fmt.Fprint(fs.Output(), mcpHelp); fs.PrintDefaults() }
	conn := fs.String("connection", "", "serve a connected database (see loupe connect) instead of the workspace")
	var level privacy.Level
	fs.Var(levelFlag{&level}, "privacy", "what the client's model may see: open, masked or schema (default $"+EnvPrivacy+", else masked)")
	httpAddr := fs.String("http", "", "serve Streamable HTTP on this loopback address (e.g. 127.0.0.1:7481) instead of stdio")
	cfgDir := fs.String("config", "", "Loupe's config folder: settings, the HTTP token, the call log (default $"+envConfigDir+" or the user config folder)")
	model := embedFlags(fs)
	fs.StringVar(&model.Model, "model", model.Model, "Loupe's model for ask (default $LOUPE_MODEL, else the one chosen in Settings)")
	pos, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	switch {
	case len(pos) > 0:
		fmt.Fprintf(e.stderr, "loupe mcp: unexpected argument %q\n", pos[0])
		return ExitUsage
	case *ws != "" && *conn != "":
		fmt.Fprintln(e.stderr, "loupe mcp: give --workspace or --connection, not both")
		return ExitUsage
	}
	if *httpAddr != "" {
		if err := mcp.CheckLoopback(*httpAddr); err != nil {
			fmt.Fprintln(e.stderr, "loupe mcp:", err)
			return ExitUsage
		}
	}
	if level == "" {
		if level, err = clientLevel(os.Getenv(EnvPrivacy)); err != nil {
			fmt.Fprintf(e.stderr, "loupe mcp: %s: %v\n", EnvPrivacy, err)
			return ExitUsage
		}
	}
	dir := *cfgDir
	if dir == "" {
		if dir, err = config.Dir(os.Getenv); err != nil {
			return fail(e, err)
		}
	}
	st, err := openStore(ctx, *ws)
	if err != nil {
		return fail(e, err)
	}
	defer st.Close()
	var embed *provider.Config // the semantic boost of ask's table search, when an embedding model is named
	if model.EmbedModel != "" {
		embed = model
	}
	src, label, closeSrc, err := mcpSource(ctx, *ws, *conn, level, embed)
	if err != nil {
		return fail(e, err)
	}
	defer closeSrc()
	srv, err := mcp.New(ctx, mcp.Config{Source: src.source, Gate: src.gate, Store: st, Label: label,
		Model: ownModel(*model, dir, st), Calls: mcp.CallLogIn(dir), Version: buildVersion()})
	if err != nil {
		return fail(e, err)
	}
	if *httpAddr == "" {
		if err := srv.RunIO(ctx, e.stdin, e.stdout); err != nil && ctx.Err() == nil {
			return fail(e, err)
		}
		return ExitOK
	}
	token, err := mcp.Token(dir)
	if err != nil {
		return fail(e, err)
	}
	err = srv.ServeHTTP(ctx, *httpAddr, token, func(a net.Addr) {
		fmt.Fprintf(e.stderr, "loupe mcp: listening on http://%s%s (privacy level %s)\n", a, mcp.Path, level)
		fmt.Fprintf(e.stderr, "loupe mcp: send the header \"Authorization: Bearer %s\" (kept in %s)\n", token, dir+string(os.PathSeparator)+mcp.TokenFile)
	})
	if err != nil {
		return fail(e, err)
	}
	return ExitOK
}

// clientLevel is the level an MCP client gets when --privacy is not
// given: $LOUPE_PRIVACY (env), else masked, as for a hosted model.
func clientLevel(env string) (privacy.Level, error) {
	if env == "" {
		return privacy.Default(false), nil
	}
	return privacy.Parse(env)
}

type mcpServed struct {
	source *mcp.Source
	gate   *assemble.Gate
}

// mcpSource opens the workspace in wsDir, or the connection conn, with
// the gate of level over its private columns; embed names the embedding
// model of ask's table search (nil: none).
func mcpSource(ctx context.Context, wsDir, conn string, level privacy.Level, embed *provider.Config) (mcpServed, string, func(), error) {
	if conn != "" {
		r, err := openConnection(ctx, conn)
		if err != nil {
			return mcpServed{}, "", nil, err
		}
		gate, err := assemble.NewGate(level, assemble.RemotePrivate{R: r, Dir: r.Dir})
		if err == nil {
			var src *mcp.Source
			if src, err = mcp.Connection(r, gate); err == nil {
				return mcpServed{src, gate}, remote.Label(conn), func() { r.Close() }, nil
			}
		}
		r.Close()
		return mcpServed{}, "", nil, err
	}
	w, err := openWorkspace(ctx, wsDir)
	if err != nil {
		return mcpServed{}, "", nil, err
	}
	ret, err := retrieve.OpenRetrieval(w)
	if err != nil {
		w.Close()
		return mcpServed{}, "", nil, err
	}
	closeAll := func() { ret.Close(); w.Close() }
	label, err := storeDir(wsDir)
	if err != nil {
		closeAll()
		return mcpServed{}, "", nil, err
	}
	gate, err := assemble.NewGate(level, assemble.WorkspacePrivate{WS: w})
	if err != nil {
		closeAll()
		return mcpServed{}, "", nil, err
	}
	src, err := mcp.Workspace(w, ret, gate, embed)
	if err != nil {
		closeAll()
		return mcpServed{}, "", nil, err
	}
	return mcpServed{src, gate}, label, closeAll, nil
}

// ownModel opens Loupe's model for ask: the one flags or the environment
// name (at the level $LOUPE_PRIVACY or the server's default), else the one
// chosen in the window's Settings (at the level chosen there).
func ownModel(cfg provider.Config, dir string, st *store.Store) func() (*config.Model, error) {
	dirFn := func() (string, error) { return dir, nil }
	stFn := func() (*store.Store, error) { return st, nil }
	return func() (*config.Model, error) {
		if cfg.Model != "" {
			return config.OpenModel(config.Spec{Config: cfg, Store: stFn, Getenv: os.Getenv, Levels: &config.Flagged{Getenv: os.Getenv}})
		}
		keys, err := config.OSKeychain()
		if err != nil {
			keys = config.NewMemoryKeychain()
		}
		settings := config.NewStore(dirFn, os.Getenv, keys)
		s, err := settings.Get()
		if err != nil {
			return nil, err
		}
		pc := settings.ProviderConfig(s)
		if pc.Model == "" {
			return nil, mcp.ErrNoModel
		}
		return config.OpenModel(config.Spec{Config: pc, Store: stFn, Getenv: os.Getenv, Levels: config.NewChoices(dirFn)})
	}
}

// buildVersion is the module version the binary was built at, or "dev".
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
