package chart_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/tools/chart"
)

// drawn is a chart as the model's create_chart drew it over the real sales
// data: revenue by region and month.
func drawn(t *testing.T) json.RawMessage {
	t.Helper()
	res := run(t, chart.New(open(t).Query), chartArgs("Revenue by region",
		"SELECT region, date_trunc('month', day) AS month, sum(amount) AS revenue FROM sales GROUP BY ALL ORDER BY ALL",
		`{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"revenue","type":"quantitative"}}}`))
	if res.Failed {
		t.Fatalf("the model's chart failed: %s", res.ForModel)
	}
	return res.Display.Chart.Spec
}

func TestReviseDrawsTheChartsOwnData(t *testing.T) {
	d := drawn(t)
	var before struct {
		Data struct{ Values []map[string]any } `json:"data"`
	}
	if err := json.Unmarshal(d, &before); err != nil {
		t.Fatal(err)
	}
	// A line by month, a series per region; the spec's own data is ignored.
	spec := `{"mark":"line","data":{"values":[{"region":"X","revenue":1e9}]},"encoding":{"x":{"field":"month","type":"temporal"},
		"y":{"field":"revenue","type":"quantitative"},"color":{"field":"region","type":"nominal"}}}`
	c, err := chart.Revise(d, json.RawMessage(spec), "Revenue by region")
	if err != nil {
		t.Fatal(err)
	}
	if c.Mark != "line" || c.Rows != len(before.Data.Values) || c.Title != "Revenue by region" {
		t.Errorf("chart %+v, want a line of %d rows", c, len(before.Data.Values))
	}
	var after map[string]any
	if err := json.Unmarshal(c.Spec, &after); err != nil {
		t.Fatal(err)
	}
	vals := after["data"].(map[string]any)["values"].([]any)
	if len(vals) != len(before.Data.Values) || strings.Contains(string(c.Spec), "1e+09") || strings.Contains(string(c.Spec), `"X"`) {
		t.Errorf("the edited chart must draw the drawn chart's %d rows, got %d: %s", len(before.Data.Values), len(vals), c.Spec[:200])
	}
	if after["$schema"] != chart.SchemaURL || after["title"] != "Revenue by region" {
		t.Errorf("schema %v title %v", after["$schema"], after["title"])
	}
}

func TestReviseRefusesWhatModelSpecsCannotDo(t *testing.T) {
	d := drawn(t)
	for _, tc := range []struct {
		name, spec, want string
	}{
		{"not JSON", `{"mark":`, "not a JSON object"},
		{"a data URL", `{"mark":"bar","data":{"url":"https://example.com/x.csv"},"encoding":{"x":{"field":"region","type":"nominal"}}}`, "fetch from outside"},
		{"an image mark", `{"mark":"image","encoding":{"url":{"field":"region"}}}`, "fetch from outside"},
		{"a link", `{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"href":{"value":"http://evil.example"}}}`, "fetch from outside"},
		{"a field not in the data", `{"mark":"bar","encoding":{"x":{"field":"product","type":"nominal"},"y":{"field":"revenue","type":"quantitative"}}}`, `"product"`},
		{"not Vega-Lite", `{"mark":"pyramid","encoding":{}}`, "schema"},
		{"a Vega spec", `{"marks":[]}`, "Vega spec"},
		{"too large", `{"mark":"bar","description":"` + strings.Repeat("x", chart.MaxEditBytes) + `"}`, "at most 256 KB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := chart.Revise(d, json.RawMessage(tc.spec), "t")
			var p *chart.EditProblem
			if !errors.As(err, &p) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Revise: %v, want an EditProblem saying %q", err, tc.want)
			}
		})
	}
}
