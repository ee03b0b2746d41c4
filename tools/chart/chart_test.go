package chart_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/chart"
)

// open returns a workspace with testdata/sales.csv loaded as "sales".
func open(t testing.TB) *workspace.Workspace {
	t.Helper()
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	ds, err := ws.Loader.Load(ctx, filepath.Join("testdata", "sales.csv"), load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Name != "sales" {
		t.Fatalf("loaded %+v, want one dataset named sales", ds)
	}
	return ws
}

func run(t testing.TB, tool tools.Tool, args string) tools.Result {
	t.Helper()
	res, err := tool.Run(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("Run(%s): %v", args, err)
	}
	return res
}

// chartArgs builds create_chart arguments.
func chartArgs(title, sql, spec string) string {
	b, _ := json.Marshal(map[string]any{"title": title, "sql": sql, "spec": json.RawMessage(spec)})
	return string(b)
}

// injected decodes the chart's spec and its data values.
func injected(t *testing.T, res tools.Result) (map[string]any, []map[string]any) {
	t.Helper()
	if res.Failed {
		t.Fatalf("failed: %s", res.ForModel)
	}
	if res.Display.Kind != tools.KindChart || res.Display.Chart == nil {
		t.Fatalf("display = %+v, want a chart", res.Display)
	}
	var spec map[string]any
	if err := json.Unmarshal(res.Display.Chart.Spec, &spec); err != nil {
		t.Fatal(err)
	}
	data, _ := spec["data"].(map[string]any)
	vals, _ := data["values"].([]any)
	out := make([]map[string]any, len(vals))
	for i, v := range vals {
		out[i], _ = v.(map[string]any)
	}
	return spec, out
}

func TestMarks(t *testing.T) {
	ws := open(t)
	tool := chart.New(ws.Query)
	byRegion := "SELECT region, sum(amount) AS total, sum(units) AS units FROM sales GROUP BY region ORDER BY region"
	cases := []struct {
		name, sql, spec, mark string
		rows                  int
	}{
		{"bar", byRegion, `{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal","sort":"-y"},"y":{"field":"total","type":"quantitative"}}}`, "bar", 4},
		{"bar mark object", byRegion, `{"mark":{"type":"bar","tooltip":true},"encoding":{"y":{"field":"region","type":"nominal"},"x":{"field":"total","type":"quantitative"}}}`, "bar", 4},
		{"line", "SELECT date_trunc('month', day) AS month, sum(amount) AS total FROM sales GROUP BY 1 ORDER BY 1", `{"mark":"line","encoding":{"x":{"field":"month","type":"temporal"},"y":{"field":"total","type":"quantitative"}}}`, "line", 6},
		{"area", "SELECT day, region, amount FROM sales", `{"mark":"area","encoding":{"x":{"field":"day","type":"temporal","timeUnit":"yearmonth"},"y":{"aggregate":"sum","field":"amount","type":"quantitative"},"color":{"field":"region","type":"nominal"}}}`, "area", 60},
		{"scatter", "SELECT units, amount, region FROM sales", `{"mark":"point","encoding":{"x":{"field":"units","type":"quantitative"},"y":{"field":"amount","type":"quantitative"},"color":{"field":"region","type":"nominal"},"tooltip":[{"field":"region","type":"nominal"},{"field":"amount","type":"quantitative"}]}}`, "point", 60},
		{"pie", byRegion, `{"mark":"arc","encoding":{"theta":{"field":"total","type":"quantitative"},"color":{"field":"region","type":"nominal"}}}`, "arc", 4},
		{"pie alias", byRegion, `{"mark":"pie","encoding":{"theta":{"field":"total","type":"quantitative"},"color":{"field":"region","type":"nominal"}}}`, "arc", 4},
		{"histogram", "SELECT amount FROM sales", `{"mark":"bar","encoding":{"x":{"field":"amount","bin":{"maxbins":20},"type":"quantitative"},"y":{"aggregate":"count","type":"quantitative"}}}`, "bar", 60},
		{"heatmap", "SELECT region, product, sum(units) AS units FROM sales GROUP BY ALL", `{"mark":"rect","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"product","type":"nominal"},"color":{"field":"units","type":"quantitative"}}}`, "rect", 12},
		{"layer with transforms", byRegion, `{"transform":[{"calculate":"datum.total / 1000","as":"thousands"}],"layer":[{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"thousands","type":"quantitative"}}},{"mark":"rule","encoding":{"y":{"aggregate":"mean","field":"thousands","type":"quantitative"}}}]}`, "bar", 4},
		{"fold", byRegion, `{"transform":[{"fold":["total","units"]}],"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"value","type":"quantitative"},"color":{"field":"key","type":"nominal"}}}`, "bar", 4},
		{"facet", "SELECT region, product, sum(amount) AS total FROM sales GROUP BY ALL", `{"facet":{"column":{"field":"region","type":"nominal"}},"spec":{"mark":"bar","encoding":{"x":{"field":"product","type":"nominal"},"y":{"field":"total","type":"quantitative"}}}}`, "bar", 12},
		{"repeat", "SELECT units, amount FROM sales", `{"repeat":["units","amount"],"spec":{"mark":"bar","encoding":{"x":{"field":{"repeat":"repeat"},"bin":true,"type":"quantitative"},"y":{"aggregate":"count","type":"quantitative"}}}}`, "bar", 60},
		{"hconcat", byRegion, `{"hconcat":[{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"total","type":"quantitative"}}},{"mark":"arc","encoding":{"theta":{"field":"units","type":"quantitative"},"color":{"field":"region","type":"nominal"}}}]}`, "hconcat", 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, tool, chartArgs("Sales: "+c.name, c.sql, c.spec))
			spec, vals := injected(t, res)
			if res.Display.Chart.Mark != c.mark {
				t.Errorf("mark = %q, want %q", res.Display.Chart.Mark, c.mark)
			}
			if res.Display.Chart.Rows != c.rows || len(vals) != c.rows {
				t.Errorf("rows = %d, %d values; want %d", res.Display.Chart.Rows, len(vals), c.rows)
			}
			if spec["$schema"] != chart.SchemaURL {
				t.Errorf("$schema = %v", spec["$schema"])
			}
			if res.Display.SQL != c.sql {
				t.Errorf("display SQL = %q", res.Display.SQL)
			}
			if !strings.Contains(res.ForModel, c.mark) || !strings.Contains(res.ForModel, "rows of data") {
				t.Errorf("ForModel = %q", res.ForModel)
			}
		})
	}
}

func TestInjectsData(t *testing.T) {
	ws := open(t)
	tool := chart.New(ws.Query)
	ctx := context.Background()
	sql := "SELECT region, sum(amount) AS total, min(day) AS first_day FROM sales GROUP BY region ORDER BY region"
	want, err := ws.Query.Run(ctx, sql, query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	spec := `{"$schema":"https://vega.github.io/schema/vega-lite/v5.json","mark":"bar","data":{"values":[{"region":"fake"}]},
		"encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"total","type":"quantitative"},"tooltip":[{"field":"first_day","type":"temporal"}]}}`
	res := run(t, tool, chartArgs("Revenue by region", sql, spec))
	got, vals := injected(t, res)
	if len(vals) != len(want.Rows) {
		t.Fatalf("%d values, want %d", len(vals), len(want.Rows))
	}
	for i, row := range want.Rows {
		if vals[i]["region"] != row[0] {
			t.Errorf("row %d region = %v, want %v", i, vals[i]["region"], row[0])
		}
		if f, _ := vals[i]["total"].(float64); f != row[1] {
			t.Errorf("row %d total = %v, want %v", i, vals[i]["total"], row[1])
		}
		// A DATE used as time is written as local midnight.
		if vals[i]["first_day"] != row[2].(string)+"T00:00:00" {
			t.Errorf("row %d first_day = %v, want %vT00:00:00", i, vals[i]["first_day"], row[2])
		}
	}
	if got["$schema"] != chart.SchemaURL {
		t.Errorf("$schema = %v, want the v6 one", got["$schema"])
	}
	if got["title"] != "Revenue by region" || got["width"] == nil || got["height"] == nil || got["autosize"] == nil {
		t.Errorf("defaults missing: title %v width %v height %v autosize %v", got["title"], got["width"], got["height"], got["autosize"])
	}
	if res.Display.Chart.Title != "Revenue by region" {
		t.Errorf("title = %q", res.Display.Chart.Title)
	}
	if !strings.Contains(res.ForModel, "x=region (nominal)") || !strings.Contains(res.ForModel, "4 rows") {
		t.Errorf("ForModel = %q", res.ForModel)
	}
}

func TestMissingTypesAreInferred(t *testing.T) {
	ws := open(t)
	res := run(t, chart.New(ws.Query), chartArgs("Daily", "SELECT day, region, amount FROM sales",
		`{"mark":"line","encoding":{"x":{"field":"day"},"y":{"field":"amount"},"color":{"field":"region"}}}`))
	spec, vals := injected(t, res)
	enc := spec["encoding"].(map[string]any)
	for ch, want := range map[string]string{"x": "temporal", "y": "quantitative", "color": "nominal"} {
		if got := enc[ch].(map[string]any)["type"]; got != want {
			t.Errorf("%s type = %v, want %s", ch, got, want)
		}
	}
	if vals[0]["day"] != "2024-01-01T00:00:00" {
		t.Errorf("day = %v, want it written as a date-time once typed temporal", vals[0]["day"])
	}
}

func TestDottedColumnIsEscaped(t *testing.T) {
	ws := open(t)
	res := run(t, chart.New(ws.Query), chartArgs("Price", `SELECT product, avg("unit.price") AS "unit.price" FROM sales GROUP BY 1`,
		`{"mark":"bar","encoding":{"x":{"field":"product","type":"nominal"},"y":{"field":"unit.price","type":"quantitative"}}}`))
	spec, vals := injected(t, res)
	y := spec["encoding"].(map[string]any)["y"].(map[string]any)
	if y["field"] != `unit\.price` {
		t.Errorf("field = %v, want the escaped name", y["field"])
	}
	if _, ok := vals[0]["unit.price"]; !ok {
		t.Errorf("values keyed %v", vals[0])
	}
}

func TestSpecAsString(t *testing.T) {
	ws := open(t)
	tool := chart.New(ws.Query)
	spec := `{"mark":"line","encoding":{"x":{"field":"day","type":"temporal"},"y":{"field":"amount","type":"quantitative"}}}`
	inner, _ := json.Marshal(map[string]any{"title": "Daily", "sql": "SELECT day, amount FROM sales", "spec": spec})
	outer, _ := json.Marshal(string(inner))
	for name, args := range map[string]string{"spec as string": string(inner), "arguments as string": string(outer)} {
		t.Run(name, func(t *testing.T) {
			_, vals := injected(t, run(t, tool, args))
			if len(vals) != 60 {
				t.Fatalf("%d values", len(vals))
			}
			if d, _ := vals[0]["day"].(string); d != "2024-01-01T00:00:00" {
				t.Errorf("day = %v", vals[0]["day"])
			}
		})
	}
}

func TestFailures(t *testing.T) {
	ws := open(t)
	tool := chart.New(ws.Query)
	byRegion := "SELECT region, sum(amount) AS total FROM sales GROUP BY region"
	cases := []struct {
		name, args string
		want       []string
		maxLen     int
	}{
		{"unknown mark", chartArgs("t", byRegion, `{"mark":"barz","encoding":{"x":{"field":"region","type":"nominal"}}}`),
			[]string{`at mark: "barz" is not allowed`, `"bar"`, `"line"`}, 600},
		{"bad encoding type", chartArgs("t", byRegion, `{"mark":"bar","encoding":{"x":{"field":"region","type":"numeric"}}}`),
			[]string{`at encoding.x.type: "numeric" is not allowed`, `"quantitative"`, `"nominal"`}, 500},
		{"unknown property", chartArgs("t", byRegion, `{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal","colour":"red"}}}`),
			[]string{`encoding.x`, `"colour"`}, 500},
		{"unknown channel", chartArgs("t", byRegion, `{"mark":"bar","encodings":{"x":{"field":"region","type":"nominal"}}}`),
			[]string{`"encodings"`}, 500},
		{"unknown field", chartArgs("t", byRegion, `{"mark":"bar","encoding":{"x":{"field":"regoin","type":"nominal"},"y":{"field":"total","type":"quantitative"}}}`),
			[]string{`field "regoin" (encoding.x) is not a column of the query result; columns are: region, total`, `Did you mean "region"?`}, 0},
		{"unknown field in transform", chartArgs("t", byRegion, `{"transform":[{"calculate":"datum.totl * 2","as":"double"}],"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"double","type":"quantitative"}}}`),
			[]string{`field "totl" (transform[0].calculate)`, `Did you mean "total"?`}, 0},
		{"quantitative on text", chartArgs("t", byRegion, `{"mark":"bar","encoding":{"x":{"field":"total","type":"quantitative"},"y":{"field":"region","type":"quantitative"}}}`),
			[]string{`encoding.y uses field "region" as quantitative, but the column is VARCHAR`, `"nominal"`}, 0},
		{"sum of text", chartArgs("t", byRegion, `{"mark":"bar","encoding":{"x":{"field":"total","type":"quantitative"},"y":{"field":"region","aggregate":"sum","type":"quantitative"}}}`),
			[]string{`aggregates field "region" with "sum"`}, 0},
		{"temporal on a year number", chartArgs("t", "SELECT year, sum(amount) AS total FROM sales GROUP BY year", `{"mark":"line","encoding":{"x":{"field":"year","type":"temporal"},"y":{"field":"total","type":"quantitative"}}}`),
			[]string{`uses field "year" as temporal, but it holds numbers`, "make_date"}, 0},
		{"temporal on non-date text", chartArgs("t", "SELECT code, sum(amount) AS total FROM sales GROUP BY code", `{"mark":"line","encoding":{"x":{"field":"code","type":"temporal"},"y":{"field":"total","type":"quantitative"}}}`),
			[]string{`uses field "code" as temporal, but value`, "is not a date"}, 0},
		{"missing arguments", `{"title":"x"}`, []string{`create_chart needs {"title": string, "sql": string, "spec": object}`, `missing "sql" and "spec"`}, 0},
		{"not an object", `[1,2]`, []string{`create_chart needs`}, 0},
		{"spec not json", chartArgs("t", byRegion, `"{mark: bar}"`), []string{`"spec" must be a Vega-Lite object`}, 0},
		{"sql error", chartArgs("t", "SELECT regio FROM sales", `{"mark":"bar","encoding":{"x":{"field":"regio","type":"nominal"}}}`),
			[]string{"The chart's SQL failed", "regio"}, 0},
		{"refused sql", chartArgs("t", "DROP TABLE sales", `{"mark":"bar"}`), []string{"refused"}, 0},
		{"too many rows", chartArgs("t", "SELECT range AS x FROM range(12000)", `{"mark":"point","encoding":{"x":{"field":"x","type":"quantitative"}}}`),
			[]string{"returns 12000 rows", "at most 10000", "USING SAMPLE"}, 0},
		{"url data", chartArgs("t", byRegion, `{"layer":[{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"}}},{"data":{"url":"https://example.com/x.csv"},"mark":"rule"}]}`),
			[]string{`"url" at layer[1].data.url`, "query's rows"}, 0},
		{"named data in a layer", chartArgs("t", byRegion, `{"layer":[{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"}}},{"data":{"name":"other"},"mark":"rule"}]}`),
			[]string{"remove the data at layer[1].data"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, tool, c.args)
			if !res.Failed {
				t.Fatalf("not failed: %s", res.ForModel)
			}
			if res.Display.Kind != tools.KindError {
				t.Errorf("display kind = %q", res.Display.Kind)
			}
			for _, w := range c.want {
				if !strings.Contains(res.ForModel, w) {
					t.Errorf("ForModel lacks %q:\n%s", w, res.ForModel)
				}
			}
			t.Logf("%s", res.ForModel)
			if c.maxLen > 0 && len(res.ForModel) > c.maxLen {
				t.Errorf("ForModel is %d bytes, want ≤ %d:\n%s", len(res.ForModel), c.maxLen, res.ForModel)
			}
		})
	}
}

// TestEmptyResult: no rows is an answer, said plainly, not a failure.
func TestEmptyResult(t *testing.T) {
	ws := open(t)
	res := run(t, chart.New(ws.Query), chartArgs("t", "SELECT region FROM sales WHERE false", `{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"}}}`))
	if res.Failed || res.Display.Chart != nil || !strings.Contains(res.ForModel, "returned no rows, so no chart was drawn") {
		t.Errorf("result %+v", res)
	}
}

func TestCancel(t *testing.T) {
	ws := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := chart.New(ws.Query).Run(ctx, json.RawMessage(chartArgs("t", "SELECT region FROM sales", `{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"}}}`)))
	if err == nil {
		t.Fatal("no error after cancel")
	}
}
