package chart_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/chart"
)

// TestRefusesWhatWouldFetch: every way a spec could make the page that
// draws it fetch something is refused with where it is and what to do.
// Each spec is otherwise a valid chart of the query.
func TestRefusesWhatWouldFetch(t *testing.T) {
	ws := open(t)
	tool := chart.New(ws.Query)
	byRegion := "SELECT region, sum(amount) AS total FROM sales GROUP BY region"
	const enc = `"encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"total","type":"quantitative"}}`
	cases := []struct {
		name, sql, spec string
		want            []string // in the message: what and where
	}{
		{"top-level data url", byRegion, `{"data":{"url":"https://evil.example/x.csv"},"mark":"bar",` + enc + `}`,
			[]string{`"url" at data.url`}},
		{"layer data url", byRegion, `{"layer":[{"mark":"bar",` + enc + `},{"data":{"url":"data/x.csv"},"mark":"rule"}]}`,
			[]string{`"url" at layer[1].data.url`}},
		{"concat data url", byRegion, `{"hconcat":[{"mark":"bar",` + enc + `},{"data":{"url":"x.json"},"mark":"bar",` + enc + `}]}`,
			[]string{`"url" at hconcat[1].data.url`}},
		{"facet data url", byRegion, `{"facet":{"field":"region","type":"nominal"},"spec":{"data":{"url":"x.json"},"mark":"bar",` + enc + `}}`,
			[]string{`"url" at spec.data.url`}},
		{"lookup from url", byRegion, `{"transform":[{"lookup":"region","from":{"data":{"url":"http://127.0.0.1:9/l.csv"},"key":"region","fields":["x"]}}],"mark":"bar",` + enc + `}`,
			[]string{`"url" at transform[0].from.data.url`}},
		{"image mark", byRegion, `{"mark":{"type":"image","width":10,"height":10},` + enc + `}`,
			[]string{`"image" at mark.type`, "another mark"}},
		{"image mark as string", byRegion, `{"mark":"image",` + enc + `}`,
			[]string{`"image" at mark:`}},
		{"url channel from a field", byRegion, `{"mark":"point","encoding":{"x":{"field":"region","type":"nominal"},"url":{"field":"region","type":"nominal"}}}`,
			[]string{`"url" at encoding.url`}},
		{"url channel from calculate", byRegion, `{"transform":[{"calculate":"'http://127.0.0.1:9/?d=' + datum.region","as":"u"}],"mark":"point","encoding":{"x":{"field":"region","type":"nominal"},"url":{"field":"u","type":"nominal"}}}`,
			[]string{`"url" at encoding.url`, `an address ("'http://127.0.0.1:9/?d=' + datum.region") at transform[0].calculate`}},
		{"url channel value", byRegion, `{"mark":"point","encoding":{"x":{"field":"region","type":"nominal"},"url":{"value":"x.png"}}}`,
			[]string{`"url" at encoding.url`}},
		{"mark url property", byRegion, `{"mark":{"type":"point","url":"x.png"},` + enc + `}`,
			[]string{`"url" at mark.url`}},
		{"href channel", byRegion, `{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"href":{"field":"region","type":"nominal"}}}`,
			[]string{`"href" at encoding.href`, "links"}},
		{"href mark property", byRegion, `{"mark":{"type":"bar","href":"x"},` + enc + `}`,
			[]string{`"href" at mark.href`}},
		{"href in config", byRegion, `{"config":{"mark":{"href":"x"}},"mark":"bar",` + enc + `}`,
			[]string{`"href" at config.mark.href`}},
		{"usermeta embed options with a url", byRegion, `{"usermeta":{"embedOptions":{"config":"http://127.0.0.1:9/c.json"}},"mark":"bar",` + enc + `}`,
			nil}, // dropped, not refused: see TestUsermetaIsDropped
		{"embedOptions at top", byRegion, `{"embedOptions":{"actions":true},"mark":"bar",` + enc + `}`,
			[]string{`"embedOptions" at embedOptions`}},
		{"loader", byRegion, `{"loader":{"baseURL":"x"},"mark":"bar",` + enc + `}`,
			[]string{`"loader" at loader`}},
		{"config as a url", byRegion, `{"config":"https://evil.example/config.json","mark":"bar",` + enc + `}`,
			[]string{`"config" at config is a string`}},
		{"datasets", byRegion, `{"datasets":{"d":[{"a":1}]},"mark":"bar",` + enc + `}`,
			[]string{`"datasets" at datasets`}},
		{"datasets with a url", byRegion, `{"datasets":{"d":{"url":"x"}},"mark":"bar",` + enc + `}`,
			[]string{`"datasets" at datasets`}},
		{"topojson url", byRegion, `{"layer":[{"mark":"bar",` + enc + `},{"data":{"url":"https://cdn.example/world.json","format":{"type":"topojson","feature":"countries"}},"projection":{"type":"mercator"},"mark":"geoshape"}]}`,
			[]string{`"url" at layer[1].data.url`}},
		{"css url in a style", byRegion, `{"config":{"style":{"cell":{"cursor":"url(http://127.0.0.1:9/c.png), auto"}}},"mark":"bar",` + enc + `}`,
			[]string{"config.style.cell.cursor"}},
		{"css url without scheme", byRegion, `{"mark":{"type":"bar","cursor":"url(/c.png), auto"},` + enc + `}`,
			[]string{`a CSS url(…) ("url(/c.png), auto") at mark.cursor`}},
		{"protocol-relative address in a title", byRegion, `{"title":{"text":"x","subtitle":"//evil.example/p"},"mark":"bar",` + enc + `}`,
			[]string{`an address ("//evil.example/p") at title.subtitle`}},
		{"file address", byRegion, `{"description":"file:///etc/passwd","mark":"bar",` + enc + `}`,
			[]string{"at description"}},
		{"websocket address", byRegion, `{"description":"ws://127.0.0.1:9/","mark":"bar",` + enc + `}`,
			[]string{"at description"}},
		{"javascript address", byRegion, `{"description":"javascript:alert(1)","mark":"bar",` + enc + `}`,
			[]string{"at description"}},
		{"data uri", byRegion, `{"layer":[{"mark":"bar",` + enc + `},{"data":{"values":[{"u":"data:image/svg+xml;base64,PHN2Zz4="}]},"mark":"rule"}]}`,
			[]string{`a data: URI`, "layer[1].data.values[0].u"}},
		{"tooltip image key in a signal", byRegion, `{"mark":{"type":"bar","tooltip":{"expr":"{image: 'x' + datum.region}"}},` + enc + `}`,
			[]string{`"image" key`, "mark.tooltip.expr"}},
		{"tooltip titled image", byRegion, `{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"total","type":"quantitative"},"tooltip":[{"field":"region","title":"image"}]}}`,
			[]string{`"image" at encoding.tooltip[0].title`}},
		{"calculate as image", byRegion, `{"transform":[{"calculate":"datum.region","as":"image"}],"mark":{"type":"bar","tooltip":{"content":"data"}},` + enc + `}`,
			[]string{`"image" at transform[0].as:`}},
		{"fold as image", byRegion, `{"transform":[{"fold":["total"],"as":["image","v"]}],"mark":{"type":"bar","tooltip":true},` + enc + `}`,
			[]string{`"image" at transform[0].as[0]`}},
		{"image key in inline values", byRegion, `{"layer":[{"mark":"bar",` + enc + `},{"data":{"values":[{"image":"p.png"}]},"mark":"rule"}]}`,
			[]string{`"image" at layer[1].data.values[0].image`}},
		{"column named image with a tooltip", "SELECT region, sum(amount) AS total, 'p.png' AS image FROM sales GROUP BY region",
			`{"mark":{"type":"bar","tooltip":{"content":"data"}},` + enc + `}`,
			[]string{`column named "image"`, "AS picture_url"}},
		{"pivot with a tooltip", "SELECT region, product, sum(amount) AS total FROM sales GROUP BY ALL",
			`{"transform":[{"pivot":"product","value":"total","groupby":["region"]}],"mark":{"type":"bar","tooltip":{"content":"data"}},"encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"Widget","type":"quantitative"}}}`,
			[]string{"pivot in the SQL"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, tool, chartArgs("t", c.sql, c.spec))
			if c.want == nil {
				return
			}
			if !res.Failed || res.Display.Kind != tools.KindError {
				t.Fatalf("not refused: %s", res.ForModel)
			}
			for _, w := range c.want {
				if !strings.Contains(res.ForModel, w) {
					t.Errorf("message lacks %q:\n%s", w, res.ForModel)
				}
			}
		})
	}
}

// TestUsermetaIsDropped: usermeta (where vega-embed reads embedOptions
// from) never reaches the page; the chart is still drawn and the model is
// told.
func TestUsermetaIsDropped(t *testing.T) {
	ws := open(t)
	res := run(t, chart.New(ws.Query), chartArgs("t", "SELECT region, sum(amount) AS total FROM sales GROUP BY region",
		`{"$schema":"https://evil.example/vega-lite/v6.json","usermeta":{"embedOptions":{"actions":true,"config":"http://127.0.0.1:9/c.json","sourceHeader":"<script>x()</script>"}},
		"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"total","type":"quantitative"}}}`))
	spec, _ := injected(t, res)
	if _, ok := spec["usermeta"]; ok {
		t.Errorf("usermeta kept: %v", spec["usermeta"])
	}
	if spec["$schema"] != chart.SchemaURL {
		t.Errorf("$schema = %v", spec["$schema"])
	}
	raw, _ := json.Marshal(spec)
	if strings.Contains(string(raw), "evil.example") || strings.Contains(string(raw), "127.0.0.1") {
		t.Errorf("an address survived: %s", raw)
	}
	if !strings.Contains(res.ForModel, `"usermeta" was removed`) || !strings.Contains(res.ForModel, "$schema") {
		t.Errorf("the model is not told: %s", res.ForModel)
	}
}

// TestLegitimateSpecsStillDraw: words that look like the refused ones in
// ordinary places do not trip the check.
func TestLegitimateSpecsStillDraw(t *testing.T) {
	ws := open(t)
	tool := chart.New(ws.Query)
	cases := []struct{ name, sql, spec string }{
		{"title mentioning data", "SELECT region, sum(amount) AS total FROM sales GROUP BY region",
			`{"title":{"text":"data: revenue by region","subtitle":"1/2 of sales, per region"},"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"total","type":"quantitative"}}}`},
		{"tooltip of fields", "SELECT region, sum(amount) AS total FROM sales GROUP BY region",
			`{"mark":{"type":"bar","tooltip":true},"encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"total","type":"quantitative"},"tooltip":[{"field":"region"},{"field":"total","format":",.2f"}]}}`},
		{"official v5 schema and a layer", "SELECT region, sum(amount) AS total FROM sales GROUP BY region",
			`{"$schema":"https://vega.github.io/schema/vega-lite/v5.json","layer":[{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"total","type":"quantitative"}}},{"mark":"rule","encoding":{"y":{"aggregate":"mean","field":"total","type":"quantitative"}}}]}`},
		{"expression with division", "SELECT region, sum(amount) AS total FROM sales GROUP BY region",
			`{"transform":[{"calculate":"datum.total / 1000","as":"k"}],"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"k","type":"quantitative"}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			injected(t, run(t, tool, chartArgs("t", c.sql, c.spec)))
		})
	}
}
