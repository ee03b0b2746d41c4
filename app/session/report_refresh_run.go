package session

import (
	"context"
	"errors"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/refresh"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
)

// RefreshKey is the Runs key of a conversation's report being refreshed.
func RefreshKey(chatID string) string { return "refresh:" + chatID }

// CancelRefresh stops the refresh of chatID's report, if one is going:
// RefreshRunReport then returns CodeCanceled and keeps no new version.
func (s *Session) CancelRefresh(chatID string) { s.Runs.Cancel(RefreshKey(chatID)) }

// errSchemaProse: at the schema privacy level no value goes to the model,
// and the paragraph about what changed is about values.
var errSchemaProse = errors.New("at the schema privacy level the model sees no values, so Loupe words the changes itself")

// RefreshRunReport refreshes the report last written from the answer of
// runID in conversation chatID on the data as it is now: on the
// conversation's connection, or on the workspace with the files its
// queries read loaded again when they changed on disk. openModel opens
// the model that words the changes (nil: none, the refresh is Loupe's
// alone); its failure leaves Loupe's own words, said in a notice. No
// report for the run is CodeInvalid; a second refresh of the same
// conversation at once is CodeBusy; Runs.Cancel(RefreshKey(chatID)) stops
// it.
func (s *Session) RefreshRunReport(ctx context.Context, chatID, runID string, openModel func() (*config.Model, error)) (*StoredReport, *store.Store, error) {
	from, _, err := s.ReportOfTurn(ctx, chatID, runID)
	if err != nil {
		return nil, nil, err
	}
	if from == nil {
		return nil, nil, NewError(CodeInvalid, "This answer has no report to refresh.", "Write the report first.")
	}
	st, err := s.Chats.Store()
	if err != nil {
		return nil, nil, err
	}
	conn, err := ChatConnection(ctx, st, chatID)
	if err != nil {
		return nil, nil, StoreError(err, chatID)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !s.Runs.Add(RefreshKey(chatID), cancel) {
		return nil, nil, NewError(CodeBusy, "This report is already being refreshed.", "Wait for it.")
	}
	defer s.Runs.Remove(RefreshKey(chatID))
	req := RefreshRequest{Store: st, ChatID: chatID, From: from}
	if openModel != nil {
		req.Prose = s.prose(st, chatID, from.MessageID, openModel)
	}
	var out *StoredReport
	if conn != "" {
		r, release, err := s.Conns.Open(ctx, conn)
		if err != nil {
			return nil, nil, s.Conns.shape(err)
		}
		defer release()
		req.Run = r
		out, err = RefreshReport(ctx, req)
		return s.refreshed(out, st, err)
	}
	err = s.Local.Use(func(_ context.Context, ws *workspace.Workspace) error {
		req.Run = ws.Query
		var reloaded []string
		req.Reload = func(ctx context.Context, sqls []string) ([]string, error) {
			var err error
			reloaded, err = ReloadChanged(ctx, ws, sqls)
			return reloaded, err
		}
		var err error
		out, err = RefreshReport(ctx, req)
		if len(reloaded) > 0 {
			s.Local.Changed(ctx, ws)
		}
		return err
	})
	return s.refreshed(out, st, err)
}

// refreshed returns a refresh's result: a version made but not stored is
// returned and logged.
func (s *Session) refreshed(out *StoredReport, st *store.Store, err error) (*StoredReport, *store.Store, error) {
	if out == nil {
		return nil, nil, Wrap(err)
	}
	if err != nil {
		s.Log.Error("store a refreshed report", "subsystem", "refresh", "err", err)
	}
	return out, st, nil
}

// prose words what changed with the model openModel opens, through the
// report's privacy guard, its request kept in the outbox with the answer
// the report is kept with.
func (s *Session) prose(st *store.Store, chatID, messageID string, openModel func() (*config.Model, error)) refresh.Prose {
	return func(ctx context.Context, title string, c *report.Changes) (string, error) {
		m, err := openModel()
		if err != nil {
			return "", err
		}
		if m.Level == privacy.Schema {
			return "", errSchemaProse
		}
		ctx = provider.WithOutbox(tools.WithChat(ctx, chatID), assemble.Outbox{Store: st, ConversationID: chatID, MessageID: messageID, Level: m.Level})
		p, release, err := s.GuardReport(ctx, chatID, m)
		if err != nil {
			return "", err
		}
		defer release()
		return report.WriteChangesProse(ctx, p, m.Config.Model, title, c)
	}
}

// ReportVersions lists the versions of conversation chatID's report
// (ReportVersions).
func (s *Session) ReportVersions(ctx context.Context, chatID string) ([]ReportVersion, error) {
	st, err := s.Chats.Store()
	if err != nil {
		return nil, err
	}
	vs, err := ReportVersions(ctx, st, chatID)
	return vs, Wrap(err)
}

// ReportVersionAt is version n of conversation chatID's report, with the
// conversation store.
func (s *Session) ReportVersionAt(ctx context.Context, chatID string, n int) (*ReportVersion, *store.Store, error) {
	st, err := s.Chats.Store()
	if err != nil {
		return nil, nil, err
	}
	v, err := ReportVersionAt(ctx, st, chatID, n)
	return v, st, Wrap(err)
}

// DiffVersions compares versions a and b of conversation chatID's report.
func (s *Session) DiffVersions(ctx context.Context, chatID string, a, b int) (*VersionDiff, error) {
	st, err := s.Chats.Store()
	if err != nil {
		return nil, err
	}
	d, err := DiffVersions(ctx, st, chatID, a, b)
	return d, Wrap(err)
}
