// Package report is Loupe's second stage: on the user's request it turns an
// exploration (the question, the agent's summary and findings, and every
// query and chart it made) into a comprehensive markdown report, with one
// model call and no tools, and exports it as a folder: report.md with chart
// images beside it, an appendix of every query, and a self-contained
// report.html with interactive charts.
//
// The model never writes data. It places the exploration's charts and
// tables with placeholders ({{chart:c1}}, {{table:q2}}) that Loupe replaces
// with the real thing; placeholders naming anything else are removed and
// reported as Notices.
package report

import (
	"encoding/json"
	"fmt"
	"github.com/loupeapp/loupe/agent/refs"
	"regexp"
	"strings"
)

// Exploration is what the agent's run produced: the input of the report.
// It is plain data; the agent converts its outcome into it.
type Exploration struct {
	Question  string   `json:"question"`
	FollowUps []string `json:"follow_ups,omitempty"` // later questions in the same conversation
	// Turns are the numbers (from 1) of the conversation's questions the
	// exploration covers, in order; empty for a single answer's.
	Turns []int `json:"turns,omitempty"`
	// Summary is the agent's brief answer (2–4 sentences).
	Summary  string    `json:"summary,omitempty"`
	Findings []Finding `json:"findings,omitempty"`
	Queries  []Query   `json:"queries,omitempty"`
	Charts   []Chart   `json:"charts,omitempty"`
	// Notes are caveats the run found: data-quality flags, validation
	// verdicts, limits hit, questions left open.
	Notes []string `json:"notes,omitempty"`
	// Datasets names the tables the exploration used, for the method
	// section ("orders (12,430 rows)"); optional.
	Datasets []string `json:"datasets,omitempty"`
	// Numbers are the answer's numbers as Loupe checked them against the
	// exploration's results; the appendix lists them.
	Numbers []CheckedNumber `json:"numbers,omitempty"`
	// SchemaOnly is the schema privacy level: the model is shown no value
	// (no preview rows), writes values as references ({{q2.total[0]}}),
	// and Loupe fills them in from the previews (refs.FillCells).
	SchemaOnly bool `json:"schema_only,omitempty"`
}

// results are the exploration's tables and charts, for refs.
func (e *Exploration) results() refs.Results {
	rs := refs.Results{Tables: map[string]refs.Table{}, Charts: map[string]bool{}}
	for _, q := range e.Queries {
		t := refs.Table{Rows: q.Preview, Total: q.Rows}
		for _, c := range q.Columns {
			t.Columns = append(t.Columns, c.Name)
		}
		rs.Tables[q.Ref] = t
	}
	for _, c := range e.Charts {
		rs.Charts[c.Ref] = true
	}
	return rs
}

// CheckedNumber is one number of the answer and what backs it: a ref
// ("q1"), "question", or "" when nothing does (it is marked unverified).
type CheckedNumber struct {
	Text   string `json:"text"`
	Source string `json:"source,omitempty"`
}

// Finding is one claim of the agent's answer with the refs of the queries
// and charts that support it.
type Finding struct {
	Text     string   `json:"text"`
	Evidence []string `json:"evidence,omitempty"` // "q2", "c1"
}

// Query is one query the agent ran.
type Query struct {
	Ref     string   `json:"ref"`               // "q1"
	Purpose string   `json:"purpose,omitempty"` // why it was run, in a few words
	SQL     string   `json:"sql"`
	Columns []Column `json:"columns,omitempty"`
	// Rows is the query's total row count (the preview may hold fewer).
	Rows int64 `json:"rows"`
	// Preview is the first rows (up to ~50), one value per column, JSON-ready.
	Preview [][]any `json:"preview,omitempty"`
	// Error is set when the query failed; such a query is listed in the
	// appendix but cannot be shown as a table.
	Error string `json:"error,omitempty"`
}

// Column is a result column and its SQL type.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Chart is one chart the agent made.
type Chart struct {
	Ref   string `json:"ref"` // "c1"
	Title string `json:"title"`
	// Spec is the Vega-Lite spec with its data inlined (data.values).
	Spec json.RawMessage `json:"spec"`
	SQL  string          `json:"sql,omitempty"` // the query behind its data
	// QueryRef names the query among Queries that produced the data, if any.
	QueryRef string `json:"query_ref,omitempty"`
}

// refPattern is what a ref may look like: it names files (charts/c1.svg)
// and appears in placeholders, so it is short and plain.
var refPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,31}$`)

// Validate checks what the report relies on: a question, and refs that are
// present, plain (letters, digits, _ and -, at most 32) and unique across
// queries and charts, and charts that carry a JSON object spec.
func (e *Exploration) Validate() error {
	if e.Question == "" {
		return fmt.Errorf("report: the exploration has no question")
	}
	seen := map[string]string{}
	check := func(kind, ref string) error {
		if !refPattern.MatchString(ref) {
			return fmt.Errorf("report: %s ref %q must be 1–32 letters, digits, _ or -, starting with a letter", kind, ref)
		}
		key := lower(ref)
		if prev, dup := seen[key]; dup {
			return fmt.Errorf("report: ref %q is used by a %s and a %s", ref, prev, kind)
		}
		seen[key] = kind
		return nil
	}
	for _, q := range e.Queries {
		if err := check("query", q.Ref); err != nil {
			return err
		}
	}
	for _, c := range e.Charts {
		if err := check("chart", c.Ref); err != nil {
			return err
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(c.Spec, &obj); err != nil {
			return fmt.Errorf("report: chart %s: spec is not a JSON object: %w", c.Ref, err)
		}
	}
	return nil
}

// linkCharts sets each chart's QueryRef from the query with the same SQL
// when it is missing, and clears one that names no query.
func (e *Exploration) linkCharts() {
	for i := range e.Charts {
		c := &e.Charts[i]
		if c.QueryRef != "" {
			if q := e.query(c.QueryRef); q != nil {
				c.QueryRef = q.Ref
			} else {
				c.QueryRef = ""
			}
		}
		if c.QueryRef != "" || strings.TrimSpace(c.SQL) == "" {
			continue
		}
		for _, q := range e.Queries {
			if q.Error == "" && normSQL(q.SQL) == normSQL(c.SQL) {
				c.QueryRef = q.Ref
				break
			}
		}
	}
}

func (e *Exploration) query(ref string) *Query {
	for i := range e.Queries {
		if lower(e.Queries[i].Ref) == lower(ref) {
			return &e.Queries[i]
		}
	}
	return nil
}

func (e *Exploration) chart(ref string) *Chart {
	for i := range e.Charts {
		if lower(e.Charts[i].Ref) == lower(ref) {
			return &e.Charts[i]
		}
	}
	return nil
}

// clone copies the slices Write changes, so the caller's value is untouched.
func (e Exploration) clone() Exploration {
	e.Charts = append([]Chart(nil), e.Charts...)
	return e
}
