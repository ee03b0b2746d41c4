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
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/python"
	"github.com/loupeapp/loupe/tools/python/sandbox"
	"github.com/loupeapp/loupe/tools/python/sandbox/sandboxtest"
)

// At the masked level, what a script prints — private values as they are,
// lower-cased, and emails it builds — reaches the model only as
// placeholders, while the trace keeps the real output.
func TestMaskedPythonOutput(t *testing.T) {
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	csv := filepath.Join(t.TempDir(), "members.csv")
	if err := os.WriteFile(csv, []byte("id,full_name,email,visits\n1,Quillon Vexbridge,qv.canary7@example.org,3\n2,Zarathea Mundlequist,zm.canary8@example.net,5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Loader.Load(ctx, csv, load.Options{}); err != nil {
		t.Fatal(err)
	}
	host, image := sandboxtest.Image(t)
	py, st, err := python.Open(ctx, ws.Engine, ws, python.Config{Sandbox: sandbox.Config{Host: host, Image: image}})
	if err != nil || !st.OK {
		t.Fatalf("open: %v %+v", err, st)
	}
	defer py.Close(ctx)
	code := "df = load('members')\n" +
		"print(df[['full_name', 'email', 'visits']].to_string())\n" +
		"print(df['full_name'].str.lower().tolist())\n" +
		"print([n.split()[0].lower() + '.x@mail.example.com' for n in df['full_name']])\n"
	args, _ := json.Marshal(map[string]any{"code": code, "inputs": []string{"members"}, "purpose": "members"})
	srv := fake.Start(t, fake.Options{Turns: []fake.Turn{
		fake.Calls(fake.Call{Name: "run_python", Args: string(args)}),
		fake.Text("Two members."),
	}})
	p, err := provider.Open(provider.Config{Provider: provider.Ollama, Model: "qwen3:8b", BaseURL: srv.OllamaURL()})
	if err != nil {
		t.Fatal(err)
	}
	a, err := assemble.Agent(ws, results.New(results.Config{}), p, "qwen3:8b", assemble.Options{Privacy: privacy.Masked}, py)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := assemble.WorkspaceSchema(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	out := a.Run(tools.WithChat(ctx, "chat_py"), agent.Input{RunID: "run_py", ChatID: "chat_py", Question: "Who are the members?", Schema: sch}, agent.Discard)
	if out.Status != agent.Done {
		t.Fatalf("run: %s %s", out.Status, out.Reason)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	sent := strings.ToLower(string(reqs[1].Body))
	for _, c := range []string{"quillon", "vexbridge", "zarathea", "mundlequist", "canary7", "canary8", "mail.example.com"} {
		if strings.Contains(sent, c) {
			t.Errorf("%q reached the model", c)
		}
	}
	if !strings.Contains(sent, "visits") || !strings.Contains(sent, "\\u003cname_") && !strings.Contains(sent, "<name_") {
		t.Errorf("the output should reach the model with placeholders: %.600s", sent)
	}
	var trace string
	for _, m := range out.Transcript {
		trace += m.Content
	}
	if !strings.Contains(trace, "quillon vexbridge") {
		t.Errorf("the trace must keep the real output: %.600s", trace)
	}
}
