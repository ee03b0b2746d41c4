// Package mcp is Loupe as a Model Context Protocol server: the tools,
// resources and guard of Loupe offered to another agent (Claude Desktop,
// VS Code, Cursor, any MCP host), over stdio or Streamable HTTP on
// loopback.
//
// An MCP client is a model Loupe does not control. Everything sent to it
// passes the privacy gate of the level in force (assemble.Gate: the same
// gates as a request to a hosted provider), is kept in the workspace
// store's outbox like a hosted provider's requests, and each call is
// recorded in a small log the window reads (CallLog). What the client
// asks goes through Loupe's own paths: SQL through the read-only guard and
// limits of `loupe sql`, questions through session.Ask, reports through
// session.WriteReport. No tool writes a file outside the workspace store
// or fetches a URL.
package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/tools"
)

// Config is what a server serves.
type Config struct {
	// Source is the data the tools read: a workspace or a connection.
	Source *Source
	// Gate is the privacy gate in front of the client (its level, the
	// private columns of Source).
	Gate *assemble.Gate
	// Store keeps the conversations of ask, their reports and the outbox.
	Store *store.Store
	// Model opens Loupe's own model for ask and write_report; called at
	// each use, so that a missing model is said then (a tool error), not
	// at start. Nil: those tools say that no model is set.
	Model func() (*config.Model, error)
	// Label is what a conversation started by ask is about (the workspace
	// folder, or the connection's label).
	Label string
	// Calls, when set, records each call for the window's Settings.
	Calls *CallLog
	// Version is Loupe's version, told to the client.
	Version string
}

// Server is Loupe's MCP server over one source. It is safe for
// concurrent sessions.
type Server struct {
	cfg  Config
	mcp  *mcp.Server
	chat string // the masker key of everything sent to clients
	log  *slog.Logger

	mu      sync.Mutex
	answers map[string]answer // by conversation: its latest answer asked here
}

// New returns the server of cfg with its tools and resources.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Source == nil || cfg.Gate == nil || cfg.Store == nil {
		return nil, errors.New("mcp: a server needs a source, a gate and a store")
	}
	id := make([]byte, 6)
	_, _ = rand.Read(id)
	s := &Server{cfg: cfg, chat: "mcp-" + hex.EncodeToString(id), log: slog.Default().With("subsystem", "mcp"),
		answers: map[string]answer{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "loupe", Title: "Loupe", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructions(cfg)})
	if err := s.addTools(); err != nil {
		return nil, err
	}
	if err := s.addResources(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// MCP is the SDK's server, to run on a transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one client over t (mcp.StdioTransport for `loupe mcp`) until
// it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error { return s.mcp.Run(ctx, t) }

func instructions(cfg Config) string {
	return fmt.Sprintf("Loupe answers from the user's local data (%s) through a read-only guard. "+
		"Start with list_tables (add a query to search), then describe_table, sample_rows and run_sql (DuckDB SQL; one SELECT). "+
		"ask hands a whole question to Loupe's own agent. Privacy level %s: %s.",
		cfg.Label, cfg.Gate.Level(), cfg.Gate.Level().Describe())
}

// gated is ctx carrying the key of the placeholders clients are sent, and
// at the masked level the mask of what the embedding model is told.
func (s *Server) gated(ctx context.Context) context.Context {
	ctx = tools.WithChat(ctx, s.chat)
	if f := s.cfg.Gate.QuestionMask(); f != nil {
		ctx = index.WithOutgoing(ctx, f)
	}
	return ctx
}

// RunIO serves one client over r and w (the process's standard input and
// output for `loupe mcp`), newline-delimited JSON-RPC, until it
// disconnects or ctx ends.
func (s *Server) RunIO(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.mcp.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
