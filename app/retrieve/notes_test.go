package retrieve_test

import (
	"context"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/app/retrieve"
	"os"
	"path/filepath"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
)

// TestRetrieveByNote: a table whose name and columns say nothing is found
// by a question worded like the user's note on it, the note reaches the
// model's system prompt, and changing the note re-indexes the table.
func TestRetrieveByNote(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ws, err := workspace.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	idx, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	files := map[string]string{
		"t_x17.csv":  "k1,v2,v3\na,1,2\nb,3,4\n",
		"sales.csv":  "region,amount,day\nEMEA,3,2024-01-01\n",
		"people.csv": "name,team,started\nAda,data,2020-01-01\n",
		"stock.csv":  "sku,warehouse,units\nA1,north,3\n",
	}
	src := t.TempDir()
	for name, body := range files {
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ws.Loader.Load(ctx, p, load.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	setNote := func(n catalog.Notes) {
		t.Helper()
		err := ws.Engine.Write(ctx, func(c *duckdb.Conn) error {
			_, err := catalog.SetNotes(ctx, c, "t_x17", n)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	const note = "Monthly churn of subscribers by acquisition channel"
	question := "What was subscriber churn per acquisition channel?"
	retrieve := func(q string) (agent.Schema, retrieve.Meta) {
		t.Helper()
		s, meta, err := retrieve.Retrieve(ctx, ws, idx, q, retrieve.Budget{Tables: 2, ListOthers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return s, meta
	}
	if _, meta := retrieve(question); len(meta.Tables) > 0 && meta.Tables[0].Name == "t_x17" && meta.Tables[0].Score > 0 {
		t.Fatalf("t_x17 ranks first before it has a note: %+v", meta.Tables)
	}
	setNote(catalog.Notes{Table: new(note), Columns: map[string]string{"v3": "churned subscribers"}})
	s, meta := retrieve(question)
	if len(meta.Tables) == 0 || meta.Tables[0].Name != "t_x17" {
		t.Fatalf("with the note: %+v", meta.Tables)
	}
	if s.Tables[0].Description != note || s.Tables[0].Columns[2].Description != "churned subscribers" {
		t.Errorf("schema table %+v", s.Tables[0])
	}

	// The note is in the system prompt the model receives.
	var system string
	srv := fake.Start(t, fake.Options{Respond: func(r fake.Request) fake.Turn {
		system = agenttest.Prompt(r)
		return fake.Text("Churn was flat.")
	}})
	p := qwenAt(t, srv)
	a, err := assemble.Agent(ws, results.New(results.Config{}), p, "qwen3:8b", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := a.Run(ctx, agent.Input{RunID: "note", Question: question, Schema: s}, &agenttest.Recorder{})
	if out.Status != agent.Done {
		t.Fatalf("run: %s %s", out.Status, out.Reason)
	}
	if !strings.Contains(system, note) || !strings.Contains(system, "v3 BIGINT") || !strings.Contains(system, "— churned subscribers") {
		t.Errorf("system prompt lacks the notes:\n%s", system)
	}

	// A changed note re-indexes the table: the old wording no longer
	// finds it, the new one does.
	setNote(catalog.Notes{Table: new("Warehouse shrinkage audit findings"), Columns: map[string]string{"v3": ""}})
	// (With no match the latest tables stand in, score 0: t_x17 may be one.)
	if _, meta := retrieve(question); len(meta.Tables) > 0 && meta.Tables[0].Name == "t_x17" && meta.Tables[0].Score > 0 {
		t.Errorf("the old note still finds t_x17: %+v", meta.Tables)
	}
	if _, meta := retrieve("shrinkage audit findings"); len(meta.Tables) == 0 || meta.Tables[0].Name != "t_x17" {
		t.Errorf("the new note does not find t_x17: %+v", meta.Tables)
	}
}

// qwenAt is the Ollama provider of model qwen3:8b served by srv, through
// the real Ollama client.
func qwenAt(t *testing.T, srv *fake.Server) llm.Provider {
	t.Helper()
	p, err := provider.Open(provider.Config{Provider: provider.Ollama, Model: "qwen3:8b", BaseURL: srv.OllamaURL()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
