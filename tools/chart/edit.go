package chart

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/loupeapp/loupe/tools"
)

// MaxEditBytes bounds a spec written by hand, without its data.
const MaxEditBytes = 256 << 10

// EditProblem is a spec written by hand that cannot be drawn: what is wrong,
// in words the user can act on.
type EditProblem struct{ Problem string }

func (e *EditProblem) Error() string { return e.Problem }

// Revise checks a Vega-Lite spec the user wrote (or made with the chart
// editor) over the data of a chart already drawn, drawn (the chart as
// shown: its spec with data.values inlined), the way Run checks the
// model's: a spec is untrusted whoever wrote it. Nothing it names is
// fetched (contain), it must pass the Vega-Lite schema, and every field
// it reads must be a column of the chart's data, of a type that suits
// its encoding. The data is the drawn chart's own: any data in spec is
// replaced. title names the chart when the spec has no title. Problems
// are *EditProblem.
func Revise(drawn json.RawMessage, spec json.RawMessage, title string) (*tools.Chart, error) {
	if len(spec) > MaxEditBytes {
		return nil, &EditProblem{fmt.Sprintf("The spec is %d KB; a chart spec without its data is at most %d KB.", len(spec)>>10, MaxEditBytes>>10)}
	}
	s, err := object(spec)
	if err != nil {
		return nil, &EditProblem{"The spec is not a JSON object: " + err.Error() + "."}
	}
	drawnRows, err := drawnValues(drawn)
	if err != nil {
		return nil, err
	}
	if _, problem := prepare(s); problem != "" {
		return nil, &EditProblem{strings.Replace(problem, "call create_chart again", "try again", 1)}
	}
	issues, err := checkSchema(s)
	if err != nil {
		return nil, err
	}
	if len(issues) > 0 {
		return nil, &EditProblem{"The Vega-Lite spec is invalid (schema " + SchemaVersion + "):\n- " + strings.Join(issues, "\n- ")}
	}
	cols, rows := columnsOf(drawnRows)
	if problem := tooltipImage(s, cols); problem != "" {
		return nil, &EditProblem{"The chart was refused: " + problem + "."}
	}
	w := &walker{}
	w.spec(s, "", &scope{derived: map[string]bool{}})
	problems, temporal := check(w, cols, rows)
	if len(problems) > 0 {
		msg := strings.ReplaceAll(strings.Join(problems, "\n- "), "the query result", "the chart's data")
		return nil, &EditProblem{"The spec does not fit the chart's data:\n- " + strings.ReplaceAll(msg, "Use a column name exactly, or add the column to the SQL", "Use one of the chart's columns exactly.")}
	}
	s["data"] = map[string]any{"values": values(cols, rows, temporal)}
	applyDefaults(s, title)
	out, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode the edited chart: %w", err)
	}
	t := title
	if st, ok := s["title"].(string); ok && st != "" {
		t = st
	}
	return &tools.Chart{Title: t, Spec: out, Mark: markOf(s), Rows: len(rows)}, nil
}

// drawnValues is the data.values of a drawn chart: one object per row.
func drawnValues(drawn json.RawMessage) ([]map[string]any, error) {
	var d struct {
		Data struct {
			Values []map[string]any `json:"values"`
		} `json:"data"`
	}
	if err := json.Unmarshal(drawn, &d); err != nil {
		return nil, fmt.Errorf("read the drawn chart's data: %w", err)
	}
	if len(d.Data.Values) == 0 {
		return nil, &EditProblem{"This chart holds no data rows to draw another chart from."}
	}
	return d.Data.Values, nil
}

var (
	dateOnly    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	isoDateTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}`)
)

// columnsOf makes the columns and rows of a chart's data: the keys of its
// rows in name order, each typed by its values (numbers, booleans, ISO
// dates and date-times, else text).
func columnsOf(values []map[string]any) ([]column, [][]any) {
	seen := map[string]bool{}
	var names []string
	for _, v := range values {
		for k := range v {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	sort.Strings(names)
	cols := make([]column, len(names))
	rows := make([][]any, len(values))
	for i := range values {
		rows[i] = make([]any, len(names))
		for j, n := range names {
			rows[i][j] = values[i][n]
		}
	}
	for j, n := range names {
		typ := valueType(rows, j)
		cols[j] = column{name: n, typ: typ, cat: categorize(typ), idx: j}
	}
	return cols, rows
}

func valueType(rows [][]any, j int) string {
	kinds := map[string]bool{}
	for _, r := range rows {
		switch v := r[j].(type) {
		case nil:
		case float64:
			kinds["DOUBLE"] = true
		case bool:
			kinds["BOOLEAN"] = true
		case string:
			switch {
			case dateOnly.MatchString(v):
				kinds["DATE"] = true
			case isoDateTime.MatchString(v):
				kinds["TIMESTAMP"] = true
			default:
				kinds["VARCHAR"] = true
			}
		default:
			kinds["JSON"] = true
		}
	}
	if len(kinds) == 1 {
		for k := range kinds {
			return k
		}
	}
	if len(kinds) == 2 && kinds["DATE"] && kinds["TIMESTAMP"] {
		return "TIMESTAMP"
	}
	return "VARCHAR"
}
