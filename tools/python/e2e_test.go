package python_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/python"
	"github.com/loupeapp/loupe/tools/python/sandbox"
	"github.com/loupeapp/loupe/tools/python/sandbox/sandboxtest"
	"github.com/loupeapp/loupe/tools/sqltool"
)

// End to end through the real agent, the Ollama adapter and the fake
// model: the model answers with a chart it draws in Python, the chart is
// evidence its finding cites, and the exported report places it (the
// HTML report carries the figure itself).
func TestQuestionAnsweredWithAPythonChart(t *testing.T) {
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Loader.Load(ctx, filepath.Join("testdata", "sales.csv"), load.Options{}); err != nil {
		t.Fatal(err)
	}
	host, image := sandboxtest.Image(t)
	py, st, err := python.Open(ctx, ws.Engine, ws, python.Config{Sandbox: sandbox.Config{Host: host, Image: image}})
	if err != nil || !st.OK {
		t.Fatalf("open: %v %+v", err, st)
	}
	defer py.Close(ctx)
	set, err := tools.NewSet(sqltool.New(ws.Query, ws, results.New(results.Config{}), sqltool.Config{}), py)
	if err != nil {
		t.Fatal(err)
	}
	code := "import matplotlib.pyplot as plt\n" +
		"df = load('sales')\n" +
		"totals = df.groupby('region')['amount'].sum().sort_values()\n" +
		"print(totals.round(2).to_string())\n" +
		"totals.plot.barh(title='Sales by region')\n" +
		"plt.tight_layout()\n" +
		"plt.savefig('sales_by_region.png')\n"
	args, err := json.Marshal(map[string]any{"code": code, "inputs": []string{"sales"}, "purpose": "Sales by region"})
	if err != nil {
		t.Fatal(err)
	}
	srv := fake.Start(t, fake.Options{Turns: []fake.Turn{
		fake.Calls(fake.Call{Name: "run_python", Args: string(args)}),
		fake.Text("West sells the most.\n\nFindings:\n- West has the highest total sales [c1]"),
		fake.Text("# Sales by region\n\nWest leads the regions.\n\n{{chart:c1}}\n\nThe other regions follow closely."),
	}})
	p, err := provider.Open(provider.Config{Provider: provider.Ollama, Model: "qwen3:8b", BaseURL: srv.OllamaURL()})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Provider: p, Model: "qwen3:8b", Tools: set})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := assemble.WorkspaceSchema(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	const question = "Which region sells the most? Draw it with Python."
	out := a.Run(ctx, agent.Input{RunID: "run_py", Question: question, Schema: sch}, agent.Discard)
	if out.Status != agent.Done {
		t.Fatalf("status %s: %s", out.Status, out.Reason)
	}
	if len(out.Evidence) != 1 || out.Evidence[0].Ref != "c1" || out.Evidence[0].Chart == nil || out.Evidence[0].Chart.Mark != "image" {
		t.Fatalf("evidence %+v", out.Evidence)
	}
	if len(out.Findings) != 1 || strings.Join(out.Findings[0].Evidence, ",") != "c1" {
		t.Errorf("findings %+v", out.Findings)
	}
	// The model read the totals the code printed.
	tool := srv.Requests()[1].Messages
	if last := tool[len(tool)-1]; !strings.Contains(last.Content, "West") || !strings.Contains(last.Content, "shown to the user as a chart") {
		t.Errorf("the tool result the model read:\n%s", last.Content)
	}

	rep, err := report.Write(ctx, p, "qwen3:8b", assemble.Exploration(question, out), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "report")
	files, err := report.Export(ctx, rep, dir)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(files.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	// The figure is placed with its caption. Drawing it into charts/c1.svg
	// waits for agent/report/vega to accept inline image data (data:image
	// URLs); until then report.md says it could not be drawn.
	if !strings.Contains(string(md), "Figure 1. Sales by region") {
		t.Errorf("report.md does not place the chart:\n%s", md)
	}
	html, err := os.ReadFile(files.HTML)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "data:image/png;base64,") {
		t.Errorf("report.html does not carry the figure")
	}
	if len(files.Charts) != 1 {
		t.Fatalf("chart files %+v", files.Charts)
	}
	t.Logf("chart file: %+v", files.Charts[0])
}
