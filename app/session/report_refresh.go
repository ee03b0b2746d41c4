package session

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/app/buildinfo"
	"github.com/loupeapp/loupe/app/refresh"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/data/workspace"
)

// A report is refreshed into a new version, stored beside the old ones
// with the same answer: nothing the user had is replaced. The versions of
// a conversation's report are its stored reports, numbered from 1 in the
// order written (ReportVersions).

// RefreshRequest is what refreshing the newest report of a conversation
// needs.
type RefreshRequest struct {
	Store  *store.Store
	ChatID string
	// From is the version refreshed; nil is the conversation's newest.
	From *StoredReport
	// Run runs the report's queries: the workspace's runner, or the
	// conversation's connection.
	Run refresh.Runner
	// Reload, when set, loads again the datasets the queries (their SQL
	// given) read whose files changed on disk, and names them
	// (ReloadChanged); nil for a connection.
	Reload func(ctx context.Context, sqls []string) ([]string, error)
	// Prose, when set, words the paragraph opening "What changed".
	Prose refresh.Prose
}

// RefreshReport refreshes r.From, or the newest report of r.ChatID
// (refresh.Refresh), and stores the new version with the answer the old
// one is kept with. No report is CodeInvalid; the new version is returned
// even when storing it failed (with the error).
func RefreshReport(ctx context.Context, r RefreshRequest) (*StoredReport, error) {
	latest := r.From
	if latest == nil {
		var err error
		if latest, err = LatestReport(ctx, r.Store, r.ChatID); err != nil {
			return nil, StoreError(err, r.ChatID)
		}
	}
	if latest == nil {
		return nil, NewError(CodeInvalid, "The conversation has no report to refresh.", "Write the report first (Generate report, or loupe export).")
	}
	var reloaded []string
	var err error
	if r.Reload != nil {
		if reloaded, err = r.Reload(ctx, reportSQL(latest.Report)); err != nil {
			return nil, fmt.Errorf("load the changed files again: %w", err)
		}
	}
	rep, err := refresh.Refresh(ctx, refresh.Request{Previous: latest.Report, PreviousID: latest.ID, Run: r.Run,
		Reloaded: reloaded, Prose: r.Prose, Version: buildinfo.Version()})
	if err != nil {
		return nil, err
	}
	id, err := SaveReport(ctx, r.Store, latest.MessageID, rep)
	return &StoredReport{ID: id, Report: rep, MessageID: latest.MessageID}, err
}

// reportSQL is the SQL of every query and chart of rep.
func reportSQL(rep *report.Report) []string {
	var out []string
	for _, q := range rep.Exploration.Queries {
		out = append(out, q.SQL)
	}
	for _, c := range rep.Exploration.Charts {
		out = append(out, c.SQL)
	}
	return out
}

// ReloadChanged loads again every dataset of ws that one of sqls names
// and whose file changed on disk since it was loaded (its size or
// modification time differ from the catalog's), with the import options
// it was loaded with, and returns their names. A dataset imported from a
// connection, or whose source is gone or a folder, is left as it is.
func ReloadChanged(ctx context.Context, ws *workspace.Workspace, sqls []string) ([]string, error) {
	ds, err := ws.Datasets(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the datasets: %w", err)
	}
	text := strings.Join(sqls, "\n")
	var out []string
	seen := map[string]bool{}
	for _, d := range ds {
		if _, imported := ImportedFrom(d); imported || d.Source == "" || seen[d.Source] || !names(text, d.Name) {
			continue
		}
		fi, err := os.Stat(d.Source)
		if err != nil || fi.IsDir() || (fi.Size() == d.SizeBytes && fi.ModTime().Equal(d.ModTime)) {
			continue
		}
		seen[d.Source] = true
		loaded, err := ws.Loader.Load(ctx, d.Source, load.Options{Text: StoredText(d)})
		if err != nil {
			return out, fmt.Errorf("load %s again from %s: %w", d.Name, d.Source, err)
		}
		for _, l := range loaded {
			out = append(out, l.Name)
		}
	}
	return out, nil
}

// names reports whether sql mentions the identifier name as a word.
func names(sql, name string) bool {
	re, err := regexp.Compile(`(?i)(^|[^\w])"?` + regexp.QuoteMeta(name) + `"?($|[^\w])`)
	return err == nil && re.MatchString(sql)
}

// ReportVersion is one stored version of a conversation's report.
type ReportVersion struct {
	Number int
	ID     string
	Title  string
	// Turns are the questions it covers (numbers from 1).
	Turns     []int
	Report    *report.Report
	MessageID string
	// Of is the number of the version it refreshed; 0 for one the model
	// wrote.
	Of int
}

// ReportVersions lists the stored reports of conversation chatID, oldest
// first, numbered from 1. An unknown conversation is CodeNotFound.
func ReportVersions(ctx context.Context, st *store.Store, chatID string) ([]ReportVersion, error) {
	if _, err := st.Conversation(ctx, chatID); err != nil {
		return nil, StoreError(err, chatID)
	}
	reps, err := st.Reports(ctx, chatID)
	if err != nil {
		return nil, err
	}
	out := make([]ReportVersion, 0, len(reps))
	number := map[string]int{}
	for i := len(reps) - 1; i >= 0; i-- { // newest first in the store
		s, err := DecodeReport(reps[i])
		if err != nil {
			return nil, err
		}
		v := ReportVersion{Number: len(out) + 1, ID: s.ID, Title: s.Report.Title, Turns: s.Report.Exploration.Turns,
			Report: s.Report, MessageID: s.MessageID}
		if s.Report.Refresh != nil {
			v.Of = number[s.Report.Refresh.Of]
		}
		number[s.ID] = v.Number
		out = append(out, v)
	}
	return out, nil
}

// ReportVersionAt is version n (from 1) of the conversation's report;
// a number out of range is CodeInvalid.
func ReportVersionAt(ctx context.Context, st *store.Store, chatID string, n int) (*ReportVersion, error) {
	vs, err := ReportVersions(ctx, st, chatID)
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		return nil, NewError(CodeInvalid, "The conversation has no report yet.", "Write the report first.")
	}
	if n < 1 || n > len(vs) {
		return nil, NewError(CodeInvalid, fmt.Sprintf("The report has no version %d.", n),
			fmt.Sprintf("Pick a version between 1 and %d (see the list of versions).", len(vs)))
	}
	return &vs[n-1], nil
}

// VersionDiff compares two versions of a conversation's report: A is the
// older one read first.
type VersionDiff struct {
	A, B *ReportVersion
	Diff report.Diff
}

// DiffVersions compares versions a and b (numbers from 1) of the
// conversation's report (report.DiffReports).
func DiffVersions(ctx context.Context, st *store.Store, chatID string, a, b int) (*VersionDiff, error) {
	va, err := ReportVersionAt(ctx, st, chatID, a)
	if err != nil {
		return nil, err
	}
	vb, err := ReportVersionAt(ctx, st, chatID, b)
	if err != nil {
		return nil, err
	}
	return &VersionDiff{A: va, B: vb, Diff: report.DiffReports(va.Report, vb.Report)}, nil
}

// VersionWhat says in a few words what a version is: "written with M",
// or "refresh of 1: 3 numbers moved".
func VersionWhat(v *ReportVersion) string {
	if r := v.Report.Refresh; r != nil {
		of := "refresh"
		if v.Of > 0 {
			of = fmt.Sprintf("refresh of %d", v.Of)
		}
		return of + ": " + r.Changes.Brief()
	}
	if v.Report.Model != "" {
		return "written with " + v.Report.Model
	}
	return "written"
}
