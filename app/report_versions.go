package app

import (
	"fmt"
	"time"

	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/session"
)

// ReportVersion is one stored version of a conversation's report: its
// number (from 1, oldest first), title, when it was made, the version it
// refreshed (0 for one the model wrote) and what it is in a few words
// ("written with M", "refresh of 1: 3 numbers moved").
type ReportVersion struct {
	Number  int       `json:"number"`
	Title   string    `json:"title"`
	Created time.Time `json:"created"`
	Of      int       `json:"of"`
	What    string    `json:"what"`
}

// ReportDiff compares two versions of a report: Summary and Changes say
// what moved in the evidence from version A to version B, in words; Lines
// are the markdown compared line by line.
type ReportDiff struct {
	A       int              `json:"a"`
	B       int              `json:"b"`
	Summary string           `json:"summary"`
	Changes []string         `json:"changes"`
	Lines   []ReportDiffLine `json:"lines"`
}

// ReportDiffLine is a line of the markdown diff: Op " " (in both), "-"
// (only in A) or "+" (only in B).
type ReportDiffLine struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// RefreshReport refreshes the report last written from the run's answer
// on the data as it is now (its queries run again, files changed on disk
// loaded again, its charts redrawn), keeps it as a new version with a
// "What changed" section, and returns it. The settings' model words the
// paragraph about the changes; when it cannot, Loupe words it and a note
// says why.
func (a *App) RefreshReport(chatID, runID string) (*Report, error) {
	s, st, err := a.s.RefreshRunReport(a.life, chatID, runID, func() (*config.Model, error) {
		m, _, err := a.openModel()
		return m, err
	})
	if err != nil {
		return nil, err
	}
	view, err := reportView(a.life, st, chatID, s.Report)
	return view, wrap(err)
}

// CancelRefresh stops the refresh of the conversation's report within a
// second, if one is going: RefreshReport then fails with code "canceled"
// and no new version is kept. Nothing going is not an error.
func (a *App) CancelRefresh(chatID string) error {
	a.s.CancelRefresh(chatID)
	return nil
}

// ReportVersions lists the versions of the conversation's report, oldest
// first.
func (a *App) ReportVersions(chatID string) ([]ReportVersion, error) {
	vs, err := a.s.ReportVersions(a.life, chatID)
	if err != nil {
		return nil, err
	}
	out := make([]ReportVersion, len(vs))
	for i := range vs {
		v := &vs[i]
		out[i] = ReportVersion{Number: v.Number, Title: v.Title, Created: v.Report.Created, Of: v.Of, What: session.VersionWhat(v)}
	}
	return out, nil
}

// GetReportVersion returns version n of the conversation's report, as the
// report view shows it.
func (a *App) GetReportVersion(chatID string, n int) (*Report, error) {
	v, st, err := a.s.ReportVersionAt(a.life, chatID, n)
	if err != nil {
		return nil, err
	}
	view, err := reportView(a.life, st, chatID, v.Report)
	return view, wrap(err)
}

// DiffReportVersions compares versions va and vb of the conversation's
// report.
func (a *App) DiffReportVersions(chatID string, va, vb int) (*ReportDiff, error) {
	d, err := a.s.DiffVersions(a.life, chatID, va, vb)
	if err != nil {
		return nil, err
	}
	out := &ReportDiff{A: va, B: vb, Summary: d.Diff.Changes.Since(fmt.Sprintf("version %d", va)), Changes: d.Diff.Changes.Lines(), Lines: make([]ReportDiffLine, len(d.Diff.Lines))}
	if out.Changes == nil {
		out.Changes = []string{}
	}
	for i, l := range d.Diff.Lines {
		out.Lines[i] = ReportDiffLine(l)
	}
	return out, nil
}
