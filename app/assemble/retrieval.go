package assemble

import (
	"context"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools/search"
)

// Retrieval lives in app/retrieve; these names forward to it for the
// callers that assemble a question through this package (the window's
// and the CLI's run paths). New code imports app/retrieve.
type (
	Retrieval    = retrieve.Retrieval
	Budget       = retrieve.Budget
	Meta         = retrieve.Meta
	Remote       = retrieve.Remote
	CatalogStats = retrieve.CatalogStats
)

// OpenRetrieval is retrieve.OpenRetrieval.
func OpenRetrieval(ws *workspace.Workspace) (*Retrieval, error) { return retrieve.OpenRetrieval(ws) }

// Retrieve is retrieve.Retrieve.
func Retrieve(ctx context.Context, ws *workspace.Workspace, idx *index.Index, question string, b Budget) (agent.Schema, Meta, error) {
	return retrieve.Retrieve(ctx, ws, idx, question, b)
}

// Remember is retrieve.Remember.
func Remember(ctx context.Context, mem *memory.Store, chat, question string, out *agent.Outcome, known []string) (int, error) {
	return retrieve.Remember(ctx, mem, chat, question, out, known)
}

// NewRemote is retrieve.NewRemote.
func NewRemote(name string, src remote.Source, sch *remote.Schema) *Remote {
	return retrieve.NewRemote(name, src, sch)
}

// OpenRemote is retrieve.OpenRemote.
func OpenRemote(ctx context.Context, name string, src remote.Source, dir string) (*Remote, CatalogStats, error) {
	return retrieve.OpenRemote(ctx, name, src, dir)
}

// Catalog is retrieve.Catalog.
func Catalog(ctx context.Context, dir, name string, sch *remote.Schema) (CatalogStats, error) {
	return retrieve.Catalog(ctx, dir, name, sch)
}

// SyncNotes is retrieve.SyncNotes.
func SyncNotes(ctx context.Context, dir, name string) (int, error) {
	return retrieve.SyncNotes(ctx, dir, name)
}

// remoteIndex is the connection's schema index as search_schema uses it
// (retrieve.RemoteIndex).
type remoteIndex struct{ r *Remote }

var _ search.Index = remoteIndex{}

func (x remoteIndex) Sync(ctx context.Context, origin string, ts []index.Table) (index.SyncStats, error) {
	return retrieve.RemoteIndex{R: x.r}.Sync(ctx, origin, ts)
}

func (x remoteIndex) Search(ctx context.Context, question string, o index.Options) ([]index.Hit, error) {
	return retrieve.RemoteIndex{R: x.r}.Search(ctx, question, o)
}
