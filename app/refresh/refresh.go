// Package refresh brings a written report up to date: every query behind
// it is run again on the current data, every chart redrawn from its
// query, and a new version is made with a "What changed" section
// (report.Compare: the numbers that moved, the queries that fail now, the
// findings whose evidence no longer holds). The model's text is kept; a
// model, when there is one, words only the paragraph opening the section,
// and cannot change a number (report.WriteChangesProse). Without one the
// refresh still updates every table, chart and number.
//
// It knows nothing of where the queries run (a workspace's guarded
// runner, a connection) nor of where versions are kept (app/session).
package refresh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/tools/chart"
)

// Runner runs one guarded, read-only query: a workspace's query.Runner or
// a connection (retrieve.Remote).
type Runner interface {
	Run(ctx context.Context, sql string, lim query.Limits) (*query.Result, error)
}

var _ Runner = (*query.Runner)(nil)

// Prose words the paragraph opening "What changed" for the report titled
// title (report.WriteChangesProse with a model). An error other than ctx's
// leaves Loupe's own paragraph in its place, with a notice saying why.
type Prose func(ctx context.Context, title string, c *report.Changes) (string, error)

// PreviewRows is how many rows of each query a report keeps (as the
// report stage does).
const PreviewRows = 50

// NoticeProse: the model's paragraph about what changed was not used.
const NoticeProse = "changes_prose"

// Request is what a refresh needs.
type Request struct {
	// Previous is the version refreshed, stored as PreviousID.
	Previous   *report.Report
	PreviousID string
	// Run runs the queries on the current data.
	Run Runner
	// Reloaded names the datasets loaded again before the refresh because
	// their files changed (said in the section).
	Reloaded []string
	// Prose, when set, words the section's opening paragraph.
	Prose Prose
	// Now stamps the version; nil is time.Now. Version is Loupe's.
	Now     func() time.Time
	Version string
	Log     *slog.Logger
}

// Refresh makes the new version of r.Previous: its queries run again on
// r.Run (a query that fails is kept with its error), its charts redrawn
// (one that cannot be is kept as it was and listed), the changes compared
// and worded. It returns ctx's error when ctx ends; failures of single
// queries or charts are part of the result, not errors.
func Refresh(ctx context.Context, r Request) (*report.Report, error) {
	if r.Previous == nil {
		return nil, errors.New("refresh: no report to refresh")
	}
	now, log := r.Now, r.Log
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	start := time.Now()
	exp, charts, err := Rerun(ctx, r.Run, r.Previous.Exploration)
	if err != nil {
		return nil, err
	}
	changes := report.Compare(&r.Previous.Exploration, &exp)
	changes.Charts, changes.Reloaded = charts, r.Reloaded
	next := *r.Previous
	next.Exploration, next.Created, next.Version = exp, now(), r.Version
	written := r.Previous.Created
	if r.Previous.Refresh != nil && !r.Previous.Refresh.Written.IsZero() {
		written = r.Previous.Refresh.Written
	}
	next.Notices = withoutKind(r.Previous.Notices, NoticeProse)
	if r.Prose != nil {
		text, err := r.Prose(ctx, r.Previous.Title, &changes)
		switch {
		case err == nil:
			changes.Prose, changes.ProseBy = text, "model"
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			log.Warn("word what changed", "subsystem", "refresh", "err", err)
			next.Notices = append(next.Notices, report.Notice{Kind: NoticeProse,
				Text: "The model's paragraph about what changed was not used (" + err.Error() + "); Loupe's own is shown."})
		}
	}
	if changes.ProseBy == "" {
		changes.Prose, changes.ProseBy = "", "loupe"
	}
	next.Refresh = &report.Refresh{Of: r.PreviousID, Written: written, Changes: changes}
	log.Info("report refreshed", "subsystem", "refresh", "of", r.PreviousID, "queries", len(exp.Queries),
		"charts", len(exp.Charts), "moved", len(changes.Numbers), "failed", len(changes.Failed),
		"stale_findings", len(changes.Findings), "prose", changes.ProseBy, "ms", time.Since(start).Milliseconds())
	return &next, nil
}

// Rerun runs every query of exp again on run and redraws every chart
// from its query, returning the exploration with the current results and
// the charts that could not be redrawn (kept as they were). A query that
// fails keeps its SQL and gets the error; ctx's error ends it.
func Rerun(ctx context.Context, run Runner, exp report.Exploration) (report.Exploration, []report.QueryFailure, error) {
	exp.Queries = append([]report.Query(nil), exp.Queries...)
	exp.Charts = append([]report.Chart(nil), exp.Charts...)
	for i := range exp.Queries {
		q, err := rerunQuery(ctx, run, exp.Queries[i])
		if err != nil {
			return exp, nil, err
		}
		exp.Queries[i] = q
	}
	draw := chart.New(run)
	var failed []report.QueryFailure
	for i := range exp.Charts {
		ch := &exp.Charts[i]
		sql := chartSQL(&exp, ch)
		if sql == "" {
			failed = append(failed, report.QueryFailure{Ref: ch.Ref, Error: "no query was recorded for its data"})
			continue
		}
		spec, err := draw.Redraw(ctx, ch.Title, ch.Spec, sql)
		if err != nil {
			if ctx.Err() != nil {
				return exp, nil, ctx.Err()
			}
			failed = append(failed, report.QueryFailure{Ref: ch.Ref, SQL: sql, Error: strings.TrimPrefix(err.Error(), chart.ErrNotRedrawn.Error()+": ")})
			continue
		}
		ch.Spec = spec
	}
	return exp, failed, nil
}

// rerunQuery runs q's SQL again and returns q with the current result
// (its values as JSON gives them back, as a stored report holds them), or
// with the error when it fails.
func rerunQuery(ctx context.Context, run Runner, q report.Query) (report.Query, error) {
	if strings.TrimSpace(q.SQL) == "" {
		q.Error = "no SQL was recorded for this result, so it cannot be run again"
		return q, nil
	}
	res, err := run.Run(ctx, q.SQL, query.Limits{MaxRows: PreviewRows})
	if err != nil {
		if ctx.Err() != nil {
			return q, ctx.Err()
		}
		q.Error, q.Columns, q.Preview, q.Rows = err.Error(), nil, nil, 0
		return q, nil
	}
	rows, err := jsonRows(res.Rows)
	if err != nil {
		return q, fmt.Errorf("refresh %s: %w", q.Ref, err)
	}
	q.Error, q.Rows, q.Preview = "", res.RowCount, rows
	q.Columns = make([]report.Column, len(res.Columns))
	for i, c := range res.Columns {
		q.Columns[i] = report.Column{Name: c.Name, Type: c.Type}
	}
	return q, nil
}

// jsonRows gives rows the shape a stored report's preview has after a
// round trip through JSON, so that old and new values compare alike.
func jsonRows(rows [][]any) ([][]any, error) {
	b, err := json.Marshal(rows)
	if err != nil {
		return nil, fmt.Errorf("encode the rows: %w", err)
	}
	var out [][]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("decode the rows: %w", err)
	}
	return out, nil
}

// chartSQL is the query of a chart's data: its own, else its query's.
func chartSQL(exp *report.Exploration, ch *report.Chart) string {
	if strings.TrimSpace(ch.SQL) != "" {
		return ch.SQL
	}
	for _, q := range exp.Queries {
		if ch.QueryRef != "" && strings.EqualFold(q.Ref, ch.QueryRef) {
			return q.SQL
		}
	}
	return ""
}

func withoutKind(ns []report.Notice, kind string) []report.Notice {
	out := []report.Notice{}
	for _, n := range ns {
		if n.Kind != kind {
			out = append(out, n)
		}
	}
	return out
}
