// Package chart is the create_chart tool: the model gives a Vega-Lite spec
// without data and the SQL that produces the data; the tool checks the
// spec against the Vega-Lite schema and against the query's columns and
// types, and injects the rows server-side.
package chart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/tools"
)

// Name is the tool's name as the model calls it.
const Name = "create_chart"

// MaxRows is the most rows a chart takes. A query returning more is sent
// back to be aggregated or sampled: a chart of a silently cut result
// misleads.
const MaxRows = 10000

// Runner runs one guarded, read-only query (data/query.Runner).
type Runner interface {
	Run(ctx context.Context, sql string, lim query.Limits) (*query.Result, error)
}

// Tool is create_chart.
type Tool struct {
	run Runner
	log *slog.Logger
}

var _ tools.Tool = (*Tool)(nil)

// New returns the tool; run must outlive it.
func New(run Runner) *Tool {
	return &Tool{run: run, log: slog.Default().With("subsystem", "chart")}
}

const description = `Draw a chart. Give the SQL that produces the chart's data and a Vega-Lite v6 spec WITHOUT "data": the query's rows are injected as data.values, one object per row keyed by column name. Every "field" in the spec must be a column of the query result (or made by a transform in the spec). Types: "quantitative" for numbers, "temporal" for DATE/TIMESTAMP columns, "nominal"/"ordinal" for categories. Aggregate in SQL where you can; at most 10,000 rows. A chart draws only the query's rows: no "url", "href", image marks, or addresses anywhere in the spec.
Marks: bar, line, area, point (scatter), arc (pie: encoding theta + color), rect (heatmap: x, y, color), histogram: {"mark":"bar","encoding":{"x":{"field":"price","bin":true,"type":"quantitative"},"y":{"aggregate":"count","type":"quantitative"}}}.
Example: {"title":"Revenue by region","sql":"SELECT region, sum(amount) AS revenue FROM sales GROUP BY region","spec":{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal","sort":"-y"},"y":{"field":"revenue","type":"quantitative"}}}}`

var parameters = json.RawMessage(`{
  "type": "object",
  "properties": {
    "title": {"type": "string", "description": "Short, descriptive chart title"},
    "sql": {"type": "string", "description": "One read-only DuckDB SELECT producing the chart's data"},
    "spec": {"type": "object", "description": "Vega-Lite v6 spec without data: mark, encoding, optional transform/layer/facet"}
  },
  "required": ["title", "sql", "spec"]
}`)

// Spec describes the tool to the model.
func (t *Tool) Spec() tools.Spec {
	return tools.Spec{Name: Name, Description: description, Parameters: parameters,
		Guidance: tools.Guidance{Stage: tools.StagePresent, Text: "When a trend, comparison or distribution is worth seeing, call create_chart with a Vega-Lite spec (no data) and the SQL for its data."},
		Aliases:  []string{"chart", "plot", "visualize", "createvisualization", "makechart", "drawchart", "plotchart", "createplot"},
		Evidence: tools.EvidenceChart,
		View:     tools.View{Icon: "chart", Doing: "Drawing a chart", Did: "Drew a chart"},
	}
}

// Run validates the spec, runs the query and returns the chart with its
// data. Problems the model can fix come back as a Failed result.
func (t *Tool) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	a, problem := decodeArgs(raw)
	if problem != "" {
		return tools.Failed(problem, "invalid arguments", ""), nil
	}
	notes, problem := prepare(a.Spec)
	if problem != "" {
		return tools.Failed(problem, "invalid spec", a.SQL), nil
	}
	issues, err := checkSchema(a.Spec)
	if err != nil {
		return tools.Result{}, err
	}
	if len(issues) > 0 {
		msg := "The Vega-Lite spec is invalid (schema " + SchemaVersion + "):\n- " + strings.Join(issues, "\n- ") + "\nFix the spec and call create_chart again."
		return tools.Failed(msg, "invalid Vega-Lite spec", a.SQL), nil
	}
	res, err := t.run.Run(ctx, a.SQL, query.Limits{MaxRows: MaxRows})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		msg, ok := tools.QueryProblem(err)
		if !ok {
			return tools.Result{}, fmt.Errorf("chart query: %w", err)
		}
		if de := (*duckdb.Error)(nil); errors.As(err, &de) {
			msg += "\nTest the query with run_sql first if unsure."
		}
		return tools.Failed("The chart's SQL failed: "+msg, "SQL error", a.SQL), nil
	}
	if res.Truncated {
		msg := fmt.Sprintf("The chart's SQL returns %d rows; a chart takes at most %d. Aggregate in the SQL (GROUP BY, date_trunc, histogram bins) or sample (USING SAMPLE %d ROWS), then call create_chart again.", res.RowCount, MaxRows, MaxRows)
		return tools.Failed(msg, fmt.Sprintf("%d rows: too many", res.RowCount), a.SQL), nil
	}
	if len(res.Rows) == 0 {
		// An empty result is an answer, not a failure (see tools.Tool).
		msg := "The chart's SQL returned no rows, so no chart was drawn. If the filters are right, report that nothing matches; otherwise check them with run_sql."
		return tools.Result{ForModel: msg, Summary: "no rows: no chart", Display: tools.Display{Kind: tools.KindText, Text: msg, SQL: a.SQL}}, nil
	}
	cols, problem := columns(res.Columns)
	if problem != "" {
		return tools.Failed(problem, "duplicate column", a.SQL), nil
	}
	if problem := tooltipImage(a.Spec, cols); problem != "" {
		return tools.Failed("The chart was refused: "+problem+".", "refused: tooltip image", a.SQL), nil
	}
	w := &walker{}
	w.spec(a.Spec, "", &scope{derived: map[string]bool{}})
	problems, temporal := check(w, cols, res.Rows)
	if len(problems) > 0 {
		msg := "The spec does not fit the query result:\n- " + strings.Join(problems, "\n- ") + "\nFix the spec or the SQL and call create_chart again."
		return tools.Failed(msg, firstLine(problems[0]), a.SQL), nil
	}
	a.Spec["data"] = map[string]any{"values": values(cols, res.Rows, temporal)}
	applyDefaults(a.Spec, a.Title)
	specJSON, err := json.Marshal(a.Spec)
	if err != nil {
		return tools.Result{}, fmt.Errorf("encode chart spec: %w", err)
	}
	mark := markOf(a.Spec)
	fields := describeEncodings(a.Spec)
	var b strings.Builder
	fmt.Fprintf(&b, "Chart %q created: %s", a.Title, orDefault(mark, "composite"))
	if fields != "" {
		b.WriteString("; " + fields)
	}
	fmt.Fprintf(&b, "; %d row%s of data.", len(res.Rows), plural(len(res.Rows), "", "s"))
	for _, n := range notes {
		b.WriteString(" Note: " + n + ".")
	}
	return tools.Result{
		ForModel: b.String(),
		Summary:  fmt.Sprintf("%s chart, %d rows", orDefault(mark, "composite"), len(res.Rows)),
		Display: tools.Display{
			Kind:  tools.KindChart,
			SQL:   a.SQL,
			Chart: &tools.Chart{Title: a.Title, Spec: specJSON, Mark: mark, Rows: len(res.Rows)},
		},
	}, nil
}

// columns checks the result's column names are unique and types them.
func columns(qc []query.Column) ([]column, string) {
	out := make([]column, len(qc))
	seen := map[string]bool{}
	for i, c := range qc {
		if seen[c.Name] {
			return nil, fmt.Sprintf("The chart's SQL returns two columns named %q; give each column a distinct alias (AS …) so the spec can tell them apart.", c.Name)
		}
		seen[c.Name] = true
		out[i] = column{name: c.Name, typ: c.Type, cat: categorize(c.Type), idx: i}
	}
	return out, ""
}

// values turns rows into Vega-Lite data values: one object per row,
// timestamps as ISO date-times, and DATE columns used as time as local
// midnight (a bare "2024-03-01" is read as UTC and can land on the
// previous day).
func values(cols []column, rows [][]any, temporal map[int]bool) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		o := make(map[string]any, len(cols))
		for _, c := range cols {
			v := r[c.idx]
			if s, ok := v.(string); ok && c.cat == catTemporal {
				v = isoTime(s, strings.ToUpper(c.typ), temporal[c.idx])
			}
			o[c.name] = v
		}
		out[i] = o
	}
	return out
}

func isoTime(s, typ string, asTime bool) string {
	switch {
	case strings.HasPrefix(typ, "TIMESTAMP"):
		return strings.Replace(s, " ", "T", 1)
	case typ == "DATE" && asTime && len(s) == len("2006-01-02"):
		return s + "T00:00:00"
	}
	return s
}

// describeEncodings lists the channels of the first view: "x=region
// (nominal), y=sum(total) (quantitative)".
func describeEncodings(node map[string]any) string {
	enc, _ := node["encoding"].(map[string]any)
	if enc == nil {
		for _, c := range children(node, "") {
			if d := describeEncodings(c.node); d != "" {
				return d
			}
		}
		return ""
	}
	var parts []string
	for _, ch := range sortedKeys(enc) {
		d, ok := enc[ch].(map[string]any)
		if !ok {
			continue
		}
		f, _ := d["field"].(string)
		if agg, ok := d["aggregate"].(string); ok {
			f = agg + "(" + f + ")"
		}
		if f == "" {
			continue
		}
		p := ch + "=" + f
		if t, ok := d["type"].(string); ok {
			p += " (" + t + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, ";\n"); i > 0 {
		return s[:i]
	}
	return s
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
