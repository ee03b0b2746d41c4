package python

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/python/sandbox"
	"github.com/loupeapp/loupe/tools/python/sandbox/sandboxtest"
)

// newTool returns run_python over ws on the test daemon and image.
func newTool(t testing.TB, ws *workspace.Workspace, limits sandbox.Limits) *Tool {
	t.Helper()
	host, image := sandboxtest.Image(t)
	sb, err := sandbox.New(sandbox.Config{Host: host, Image: image, Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	tool := New(sb, ws.Engine, ws, Config{})
	t.Cleanup(func() {
		if err := tool.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
		sb.Close()
	})
	return tool
}

func call(t testing.TB, tool *Tool, args any) tools.Result {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Run(context.Background(), b)
	if err != nil {
		t.Fatalf("run_python: %v", err)
	}
	return res
}

func runDetail(t testing.TB, res tools.Result) detail {
	t.Helper()
	var d detail
	if err := json.Unmarshal(res.Display.Data, &d); err != nil {
		t.Fatalf("display data: %v\n%s", err, res.Display.Data)
	}
	return d
}

// A pandas analysis over a workspace table gives the numbers DuckDB gives.
func TestPandasOverTable(t *testing.T) {
	ws := openWorkspace(t)
	tool := newTool(t, ws, sandbox.Limits{})
	res := call(t, tool, map[string]any{"inputs": []string{"sales"}, "purpose": "total by region", "code": `
df = load("sales")
print(df["day"].dtype, df["region"].dtype, len(df))
totals = df.groupby("region")["amount"].sum().round(2)
for region, total in totals.items():
    print(region, f"{total:.2f}")
`})
	if res.Failed {
		t.Fatalf("failed: %s", res.ForModel)
	}
	want, err := ws.Query.Run(context.Background(), "SELECT region, printf('%.2f', sum(amount)) FROM sales GROUP BY region ORDER BY region", queryLimits)
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{"datetime64[ns] object 200"}
	for _, r := range want.Rows {
		lines = append(lines, fmt.Sprintf("%v %v", r[0], r[1]))
	}
	if !strings.Contains(res.ForModel, strings.Join(lines, "\n")) {
		t.Errorf("stdout does not match DuckDB's totals %q:\n%s", lines, res.ForModel)
	}
	d := runDetail(t, res)
	if res.Display.Kind != tools.KindText || len(d.Inputs) != 1 || d.Inputs[0].Rows != 200 || d.ExitCode != 0 {
		t.Errorf("display %s, detail %+v", res.Display.Kind, d)
	}
	if !strings.HasPrefix(res.Summary, "ran in") {
		t.Errorf("summary %q", res.Summary)
	}
}

// Figures become one chart (saved ones and ones left open), kept on disk
// too; the spec is valid Vega-Lite holding the PNGs.
func TestFigureBecomesChart(t *testing.T) {
	ws := openWorkspace(t)
	tool := newTool(t, ws, sandbox.Limits{})
	res := call(t, tool, map[string]any{"inputs": "sales", "purpose": "Sales by region", "code": "```python\n" + `import matplotlib.pyplot as plt
df = load("sales")
df.groupby("region")["amount"].sum().plot.bar()
plt.savefig("by_region.png")
plt.figure(figsize=(4, 3))
plt.plot(df["units"].cumsum())
plt.show()
` + "```"})
	if res.Failed {
		t.Fatalf("failed: %s", res.ForModel)
	}
	if res.Display.Kind != tools.KindChart || res.Display.Chart == nil || res.Display.Chart.Mark != "image" || res.Display.Chart.Rows != 2 {
		t.Fatalf("display: %+v", res.Display)
	}
	if res.Display.Chart.Title != "Sales by region" {
		t.Errorf("title %q", res.Display.Chart.Title)
	}
	validVegaLite(t, res.Display.Chart.Spec)
	var spec struct {
		VConcat []struct {
			Width int `json:"width"`
			Data  struct {
				Values []struct{ URL, Name string } `json:"values"`
			} `json:"data"`
		} `json:"vconcat"`
	}
	if err := json.Unmarshal(res.Display.Chart.Spec, &spec); err != nil || len(spec.VConcat) != 2 {
		t.Fatalf("spec: %v %s", err, clip(string(res.Display.Chart.Spec), 300))
	}
	for _, v := range spec.VConcat {
		b64, ok := strings.CutPrefix(v.Data.Values[0].URL, "data:image/png;base64,")
		raw, err := base64.StdEncoding.DecodeString(b64)
		if !ok || err != nil {
			t.Fatalf("url of %s: %v", v.Data.Values[0].Name, err)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil || img.Bounds().Dx() != v.Width {
			t.Errorf("%s: %v, %v wide, drawn %d wide", v.Data.Values[0].Name, err, img.Bounds().Dx(), v.Width)
		}
	}
	d := runDetail(t, res)
	names := map[string]fileInfo{}
	for _, f := range d.Files {
		names[f.Name] = f
		if _, err := os.Stat(f.Path); err != nil || f.Kind != "image" || !f.Inline {
			t.Errorf("file %+v: %v", f, err)
		}
	}
	if _, ok := names["by_region.png"]; !ok || len(names) != 2 {
		t.Errorf("files %v", names)
	}
	if !strings.Contains(res.ForModel, "by_region.png") || !strings.Contains(res.ForModel, "shown to the user as a chart") {
		t.Errorf("model text:\n%s", res.ForModel)
	}
}

// validVegaLite checks spec against the Vega-Lite schema vendored by the
// chart tool.
func validVegaLite(t *testing.T, spec []byte) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "chart", "schema", "vega-lite-schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("vl.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("vl.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("not valid Vega-Lite: %v", err)
	}
}

// Other files are kept and offered for download.
func TestFilesOfferedForDownload(t *testing.T) {
	ws := openWorkspace(t)
	tool := newTool(t, ws, sandbox.Limits{})
	res := call(t, tool, map[string]any{"inputs": []string{"SELECT region, count(*) AS n FROM sales GROUP BY region ORDER BY region"}, "code": `
df = load("query")
df.to_csv("counts.csv", index=False)
df.to_excel("counts.xlsx", index=False)
print("wrote", len(df), "rows")
`})
	if res.Failed {
		t.Fatalf("failed: %s", res.ForModel)
	}
	d := runDetail(t, res)
	if res.Display.Kind != tools.KindText || len(d.Files) != 2 || !strings.HasPrefix(res.Display.SQL, "SELECT region") {
		t.Fatalf("display %s sql %q files %+v", res.Display.Kind, res.Display.SQL, d.Files)
	}
	for _, f := range d.Files {
		if f.Kind != "download" {
			t.Errorf("%s kind %s", f.Name, f.Kind)
		}
	}
	csv, err := os.ReadFile(d.Files[0].Path)
	if err != nil || string(csv) != "region,n\nEast,50\nNorth,50\nSouth,50\nWest,50\n" {
		t.Errorf("counts.csv: %v %q", err, csv)
	}
	if xlsx, err := os.ReadFile(d.Files[1].Path); err != nil || !bytes.HasPrefix(xlsx, []byte("PK")) || d.Files[1].MediaType != mediaType("x.xlsx") {
		t.Errorf("counts.xlsx: %v %+v", err, d.Files[1])
	}
	if !strings.Contains(res.ForModel, "counts.csv") || strings.Count(res.ForModel, "offered to the user for download") != 2 {
		t.Errorf("model text:\n%s", res.ForModel)
	}
}

// A traceback goes back to the model as a failure it can fix.
func TestTracebackToModel(t *testing.T) {
	ws := openWorkspace(t)
	tool := newTool(t, ws, sandbox.Limits{})
	res := call(t, tool, map[string]any{"inputs": []string{"sales"}, "code": "df = load('sales')\nprint(df['revenue'].sum())\n"})
	if !res.Failed || res.Display.Kind != tools.KindError {
		t.Fatalf("not failed: %+v", res)
	}
	for _, want := range []string{"failed with exit status 1", "Traceback", `File "analysis.py", line 2`, "KeyError: 'revenue'", "Fix the code"} {
		if !strings.Contains(res.ForModel, want) {
			t.Errorf("model text lacks %q:\n%s", want, res.ForModel)
		}
	}
	if res.Summary != "KeyError: 'revenue'" {
		t.Errorf("summary %q", res.Summary)
	}
}

// Inputs the model got wrong fail before any code runs.
func TestBadInputs(t *testing.T) {
	ws := openWorkspace(t)
	tool := newTool(t, ws, sandbox.Limits{})
	for _, c := range []struct {
		inputs []string
		want   string
	}{
		{[]string{"salez"}, `There is no table "salez". Inputs are loaded tables (sales)`},
		{[]string{"SELECT * FROM sales; DROP TABLE sales"}, "refused"},
	} {
		res := call(t, tool, map[string]any{"inputs": c.inputs, "code": "print(1)"})
		if !res.Failed || !strings.Contains(res.ForModel, c.want) {
			t.Errorf("%v: %+v", c.inputs, res)
		}
	}
	res := call(t, tool, map[string]any{"script": "print(1)"}) // an alias
	if res.Failed || !strings.Contains(res.ForModel, "stdout (2 bytes):\n1") {
		t.Errorf("alias: %s", res.ForModel)
	}
}

// Runs stopped by a limit tell the model which limit and what to do.
func TestLimitsToModel(t *testing.T) {
	ws := openWorkspace(t)
	tool := newTool(t, ws, sandbox.Limits{Timeout: 3 * time.Second})
	for _, c := range []struct{ code, want, summary string }{
		{"import time\ntime.sleep(10)\n", "stopped after the 3s time limit", "timed out"},
		{"x = []\nwhile True:\n    x.append(bytearray(64 << 20))\n", "more than the 512 MB memory limit", "killed: out of memory"},
	} {
		res := call(t, tool, map[string]any{"code": c.code})
		if !res.Failed || !strings.Contains(res.ForModel, c.want) || !strings.HasPrefix(res.Summary, c.summary) {
			t.Errorf("%q: failed %v summary %q\n%s", c.code, res.Failed, res.Summary, res.ForModel)
		}
	}
	if res := call(t, tool, map[string]any{"code": "print('fine')"}); res.Failed {
		t.Errorf("after the limits: %s", res.ForModel)
	}
}

// Without Docker or the image, the tool says why and how to fix it, and a
// call fails in a way the model can work around.
func TestUnavailable(t *testing.T) {
	ws := openWorkspace(t)
	host, _ := sandboxtest.Image(t)
	for _, c := range []struct {
		name, host, image, reason, fix string
	}{
		{"no daemon", "unix://" + filepath.Join(t.TempDir(), "docker.sock"), "", "Docker is not running", "Start Docker"},
		{"no image", host, "loupe-sandbox:never-built", "not built yet", "loupe sandbox build"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sb, err := sandbox.New(sandbox.Config{Host: c.host, Image: c.image})
			if err != nil {
				t.Fatal(err)
			}
			defer sb.Close()
			tool := New(sb, ws.Engine, ws, Config{})
			defer tool.Close(context.Background())
			st := tool.Available(context.Background())
			if st.OK || !strings.Contains(st.Reason, c.reason) || !strings.Contains(st.Fix, c.fix) {
				t.Errorf("status %+v", st)
			}
			res := call(t, tool, map[string]any{"code": "print(1)"})
			if !res.Failed || !strings.Contains(res.ForModel, "Python is not available") || !strings.Contains(res.ForModel, c.reason) {
				t.Errorf("result %+v", res)
			}
		})
	}
}

// Close removes the container and the inputs folder.
func TestCloseRemovesItsFiles(t *testing.T) {
	ws := openWorkspace(t)
	tool := newTool(t, ws, sandbox.Limits{})
	if res := call(t, tool, map[string]any{"inputs": []string{"sales"}, "code": "print(len(load('sales')))"}); res.Failed {
		t.Fatal(res.ForModel)
	}
	dir := tool.dir
	if _, err := os.Stat(filepath.Join(dir, "sales.csv")); err != nil {
		t.Fatalf("inputs folder: %v", err)
	}
	if err := tool.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the inputs folder is still there: %v", err)
	}
	if _, err := tool.Run(context.Background(), json.RawMessage(`{"code":"print(1)"}`)); err == nil {
		t.Error("a closed tool ran code")
	}
}

// Open connects as configured, removes containers that dead Loupe
// processes left behind, and returns a working tool with a ready status.
func TestOpen(t *testing.T) {
	cleaned = sync.Once{} // Open sweeps once per process; an earlier Open (or -count) used it up
	ws := openWorkspace(t)
	host, image := sandboxtest.Image(t)
	cli, err := client.New(client.WithHost(host))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	// A container as a Loupe that no longer runs would have left it.
	hostname, _ := os.Hostname()
	dead := hostname + "/999999999"
	c, err := cli.ContainerCreate(context.Background(), client.ContainerCreateOptions{Image: image,
		Config: &container.Config{Cmd: []string{"true"}, Labels: map[string]string{sandbox.LabelSandbox: "1", sandbox.LabelOwner: dead}}})
	if err != nil {
		t.Fatal(err)
	}
	tool, st, err := Open(context.Background(), ws.Engine, ws, Config{Sandbox: sandbox.Config{Host: host, Image: image}})
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close(context.Background())
	if !st.OK || st.Image != image {
		t.Fatalf("status %+v", st)
	}
	if _, err := cli.ContainerInspect(context.Background(), c.ID, client.ContainerInspectOptions{}); err == nil {
		t.Error("the dead process's container is still there")
	}
	if res := call(t, tool, map[string]any{"code": "print(6 * 7)"}); res.Failed || !strings.Contains(res.ForModel, "42") {
		t.Errorf("run: %s", res.ForModel)
	}
}
