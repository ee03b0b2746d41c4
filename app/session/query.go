package session

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/profile"
)

// Limits of the SQL console and of previews. The console keeps up to a
// million rows so that big results scroll; the results store evicts the
// least recently used when memory runs short.
var (
	ConsoleLimits = query.Limits{MaxRows: 1_000_000, MaxBytes: 128 << 20}
	PreviewLimits = query.Limits{MaxRows: 1000}
)

// FirstPage is the rows a query's first page carries.
const FirstPage = 200

// Held is a query's result held in Results: its first page (which names
// its ref) and how long the query took.
type Held struct {
	Page      results.Page
	ElapsedMS float64
}

// RunQuery runs one statement on the workspace through the same guard as
// the agent (ws.Query), bounded by lim, holds its result in Results for
// the views to page through, and returns its first FirstPage rows.
func (s *Session) RunQuery(ctx context.Context, ws *workspace.Workspace, sql string, lim query.Limits) (*Held, error) {
	sql = strings.TrimSpace(sql)
	res, err := ws.Query.Run(ctx, sql, lim)
	if err != nil {
		return nil, err
	}
	ref := s.Results.PutLocal(res, sql)
	p, err := s.Results.Page(ref, 0, FirstPage)
	if err != nil {
		return nil, err
	}
	return &Held{Page: p, ElapsedMS: res.ElapsedMS}, nil
}

// PreviewDataset holds the first rows (PreviewLimits) of the dataset
// name, through the guard. An unknown name is CodeNotFound.
func (s *Session) PreviewDataset(ctx context.Context, ws *workspace.Workspace, name string) (*Held, error) {
	if _, err := Dataset(ctx, ws, name); err != nil {
		return nil, err
	}
	return s.RunQuery(ctx, ws, "SELECT * FROM "+duck.QuoteIdent(name), PreviewLimits)
}

// ProfileDataset profiles every column of the dataset name: the
// profile_data tool's display payload (kind "profile"). An unknown name
// is CodeNotFound; a profile the tool could not make, CodeInvalid.
func ProfileDataset(ctx context.Context, ws *workspace.Workspace, name string) (*tools.Display, error) {
	if _, err := Dataset(ctx, ws, name); err != nil {
		return nil, err
	}
	args, _ := json.Marshal(map[string]string{"table": name})
	res, err := profile.New(ws, ws.Query).Run(ctx, args)
	if err != nil {
		return nil, err
	}
	if res.Failed {
		return nil, NewError(CodeInvalid, res.Summary, res.ForModel)
	}
	return &res.Display, nil
}
