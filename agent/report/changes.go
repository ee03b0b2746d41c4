package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent/evidence"
)

// Refresh says a report is a refreshed version of another: its queries
// were run again on the current data and its charts redrawn, the model's
// text kept, and Changes lists what moved. The "What changed" section of
// the markdown is written from it.
type Refresh struct {
	// Of is the stored id of the version refreshed; Written when the
	// text was first written (the provenance line says both dates).
	Of      string    `json:"of"`
	Written time.Time `json:"written"`
	Changes Changes   `json:"changes"`
}

// Changes is what differs between two versions of a report's evidence
// (Compare), with what a refresh adds: the datasets loaded again and the
// charts it could not redraw, and the paragraph opening the section.
type Changes struct {
	// Numbers are the numbers that moved, query by query in order.
	Numbers []NumberChange `json:"numbers,omitempty"`
	// Failed are the queries that fail in the newer version with its error.
	Failed []QueryFailure `json:"failed,omitempty"`
	// Findings are the findings whose evidence no longer holds.
	Findings []StaleFinding `json:"findings,omitempty"`
	// Charts are the charts that could not be redrawn (kept as they were).
	Charts []QueryFailure `json:"charts,omitempty"`
	// Reloaded names the datasets loaded again because their file changed.
	Reloaded []string `json:"reloaded,omitempty"`
	// Prose opens the section: the model's paragraph when it passed the
	// checks (ProseBy "model"), else Loupe's (ProseBy "loupe").
	Prose   string `json:"prose,omitempty"`
	ProseBy string `json:"prose_by,omitempty"`
}

// NumberChange is one number that moved: a cell of a query's result, in
// the row named Row (its key columns' values, or "row N"), or its row
// count (Column "rows", Row empty). Old or New is "—" for a row that
// appeared or went.
type NumberChange struct {
	Ref    string `json:"ref"`
	Row    string `json:"row,omitempty"`
	Column string `json:"column"`
	Old    string `json:"old"`
	New    string `json:"new"`
}

// QueryFailure is a query or chart that fails now, with its SQL and error.
type QueryFailure struct {
	Ref   string `json:"ref"`
	SQL   string `json:"sql,omitempty"`
	Error string `json:"error"`
}

// StaleFinding is a finding whose evidence no longer holds, and why.
type StaleFinding struct {
	Text     string   `json:"text"`
	Evidence []string `json:"evidence,omitempty"`
	Why      string   `json:"why"`
}

// None reports whether nothing changed.
func (c *Changes) None() bool {
	return len(c.Numbers) == 0 && len(c.Failed) == 0 && len(c.Findings) == 0 && len(c.Charts) == 0
}

// RowsColumn is NumberChange.Column for a change of a query's row count.
const RowsColumn = "rows"

// gone marks the side of a NumberChange where the row does not exist.
const gone = "—"

// Compare lists what moved from old to new, two versions of the same
// exploration (queries and charts matched by ref): every number of a
// query's preview that differs (rows matched by their non-numeric columns,
// by position when those do not tell rows apart), row counts, queries that
// fail in new but not in old, and findings whose evidence no longer holds
// (a query behind it fails, or a number it states was in its evidence's
// results in old and is not in new).
func Compare(old, new *Exploration) Changes {
	var c Changes
	for _, nq := range new.Queries {
		oq := old.query(nq.Ref)
		if oq == nil {
			continue
		}
		switch {
		case nq.Error != "" && oq.Error == "":
			c.Failed = append(c.Failed, QueryFailure{Ref: nq.Ref, SQL: nq.SQL, Error: nq.Error})
		case nq.Error == "" && oq.Error == "":
			c.Numbers = append(c.Numbers, compareQuery(oq, &nq)...)
		}
	}
	for _, f := range new.Findings {
		if why := staleness(f, old, new); why != "" {
			c.Findings = append(c.Findings, StaleFinding{Text: findingText(f.Text), Evidence: f.Evidence, Why: why})
		}
	}
	return c
}

// compareQuery lists the numbers that moved between two results of one query.
func compareQuery(o, n *Query) []NumberChange {
	var out []NumberChange
	if o.Rows != n.Rows {
		out = append(out, NumberChange{Ref: n.Ref, Column: RowsColumn, Old: thousands(o.Rows), New: thousands(n.Rows)})
	}
	oldRows, newRows := keyed(o), keyed(n)
	if oldRows == nil || newRows == nil {
		oldRows, newRows = positional(o), positional(n)
	}
	seen := map[string]bool{}
	for _, r := range newRows.order {
		seen[r] = true
		out = append(out, cellChanges(n.Ref, r, o, n, oldRows.rows[r], newRows.rows[r])...)
	}
	for _, r := range oldRows.order {
		if !seen[r] {
			out = append(out, cellChanges(n.Ref, r, o, n, oldRows.rows[r], nil)...)
		}
	}
	return out
}

// cellChanges compares the numeric cells of one row (nil: the row is not
// in that version), by column name.
func cellChanges(ref, row string, o, n *Query, oldRow, newRow []any) []NumberChange {
	var out []NumberChange
	for i, col := range n.Columns {
		if !numericColumn(n, i) {
			continue
		}
		j := columnIndex(o, col.Name)
		if j < 0 {
			continue
		}
		ov, nv := gone, gone
		if oldRow != nil && j < len(oldRow) {
			ov = formatValue(oldRow[j])
		}
		if newRow != nil && i < len(newRow) {
			nv = formatValue(newRow[i])
		}
		if ov != nv {
			out = append(out, NumberChange{Ref: ref, Row: row, Column: col.Name, Old: ov, New: nv})
		}
	}
	return out
}

func columnIndex(q *Query, name string) int {
	for i, c := range q.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// numericColumn reports whether column i of q holds numbers: by its SQL
// type, or (a type a connection's driver leaves vague) by its values, all
// JSON numbers.
func numericColumn(q *Query, i int) bool {
	if numericType(q.Columns[i].Type) {
		return true
	}
	seen := false
	for _, row := range q.Preview {
		if i >= len(row) || row[i] == nil {
			continue
		}
		if _, ok := row[i].(float64); !ok {
			return false
		}
		seen = true
	}
	return seen
}

// rowSet is a preview's rows by a name for each, in order.
type rowSet struct {
	order []string
	rows  map[string][]any
}

// keyed names each row by its non-numeric cells ("North · 2024"), or
// returns nil when the query has no such column or two rows share a name.
func keyed(q *Query) *rowSet {
	var keys []int
	for i := range q.Columns {
		if !numericColumn(q, i) {
			keys = append(keys, i)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	s := &rowSet{rows: map[string][]any{}}
	for _, row := range q.Preview {
		parts := make([]string, len(keys))
		for k, i := range keys {
			if i < len(row) {
				parts[k] = formatValue(row[i])
			}
		}
		name := strings.Join(parts, " · ")
		if _, dup := s.rows[name]; dup {
			return nil
		}
		s.order = append(s.order, name)
		s.rows[name] = row
	}
	return s
}

// positional names each row by its place ("row 3").
func positional(q *Query) *rowSet {
	s := &rowSet{rows: map[string][]any{}}
	for i, row := range q.Preview {
		name := "row " + strconv.Itoa(i+1)
		s.order = append(s.order, name)
		s.rows[name] = row
	}
	return s
}

// staleness says why finding f no longer holds in new, or "" when it
// still does.
func staleness(f Finding, old, new *Exploration) string {
	var failing []string
	for _, ref := range f.Evidence {
		if q := new.query(ref); q != nil && q.Error != "" {
			failing = append(failing, q.Ref)
		}
	}
	if len(failing) > 0 {
		return fmt.Sprintf("%s now %s.", strings.Join(failing, ", "), pluralWord(len(failing), "fails", "fail"))
	}
	before, after := evidencePool(old, f.Evidence), evidencePool(new, f.Evidence)
	if before.Len() == 0 {
		return ""
	}
	was, is := evidence.Verify(f.Text, before), evidence.Verify(f.Text, after)
	var lost []string
	for i := range was {
		// A number the data showed as it is, now only as a difference or
		// share of two others, is a chance match: it no longer holds.
		if was[i].Backed() && (!is[i].Backed() || (!derived(was[i]) && derived(is[i]))) {
			lost = append(lost, was[i].Number.Text)
		}
	}
	if len(lost) == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s no longer in the results of %s.", strings.Join(lost, ", "), pluralWord(len(lost), "is", "are"), strings.Join(f.Evidence, ", "))
}

// evidencePool holds the values of the queries and charts refs name.
func evidencePool(e *Exploration, refs []string) *evidence.Pool {
	p := &evidence.Pool{}
	for _, ref := range refs {
		if q := e.query(ref); q != nil && q.Error == "" {
			for _, row := range q.Preview {
				for _, v := range row {
					p.AddCell(q.Ref, v)
				}
			}
			p.Add(q.Ref, float64(q.Rows))
		}
		if ch := e.chart(ref); ch != nil {
			for _, v := range chartValues(ch) {
				p.AddCell(ch.Ref, v)
			}
		}
	}
	return p
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func derived(c evidence.Check) bool { return strings.HasSuffix(c.Source, " (derived)") }

// findingText is a finding without its citations ("North leads [q1]").
func findingText(s string) string {
	return oneLine(citeGroup.ReplaceAllString(s, ""))
}
