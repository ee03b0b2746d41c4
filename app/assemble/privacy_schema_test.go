package assemble_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// cellCanaries are every cell of the sales table below: each unique and
// searchable, so that any of them in a request body is a leak. The
// amounts are the only numbers; each city has one row, so each total is
// an amount too.
var cellCanaries = []string{
	"cv-7f3a-0001", "cv-7f3a-0002", "cv-7f3a-0003",
	"Cvquillon Northgate", "Cvzarathea Southmere", "Cvorrin Eastvale",
	"cv-city-7f3a-ost", "cv-city-7f3a-wes", "cv-city-7f3a-nor",
	"cv.mail.0001@example.org", "cv.mail.0002@example.org", "cv.mail.0003@example.org",
	"7345111", "6152372", "5123983",
	"cv-note-alpha-7f3a", "cv-note-beta-7f3a", "cv-note-gamma-7f3a",
}

func schemaWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	csv := "id,full_name,city,email,amount,note\n" +
		"cv-7f3a-0001,Cvquillon Northgate,cv-city-7f3a-ost,cv.mail.0001@example.org,7345111,cv-note-alpha-7f3a\n" +
		"cv-7f3a-0002,Cvzarathea Southmere,cv-city-7f3a-wes,cv.mail.0002@example.org,6152372,cv-note-beta-7f3a\n" +
		"cv-7f3a-0003,Cvorrin Eastvale,cv-city-7f3a-nor,cv.mail.0003@example.org,5123983,cv-note-gamma-7f3a\n"
	path := filepath.Join(t.TempDir(), "sales.csv")
	if err := os.WriteFile(path, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := tooltest.Empty(t)
	tooltest.Load(t, ws, path)
	return ws
}

// schemaModel scripts a model that works at the schema level: it queries,
// makes a query fail on a value, samples, profiles, describes, calls a
// free-text tool, draws a chart, and answers with references. Asked for a
// report, it writes one with references too.
type schemaModel struct {
	mu   sync.Mutex
	step int
	text bool
}

const schemaAnswer = "The biggest city is {{q1.city[0]}} with {{q1.total[0]}} in sales; the smallest is {{q1.city[2]}} ({{q1.total[2]}}).\n\n{{q1}}\n\n{{c1}}\n\nFindings:\n- {{q1.city[0]}} leads with {{q1.total[0]}} [q1]\n- Unknown: {{q9.total[0]}}"

func (m *schemaModel) respond(r fake.Request) fake.Turn {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range r.Messages {
		if strings.Contains(msg.Content, "Placeholders you may use") {
			return fake.Text("# {{q1.city[0]}} leads\n\n## Executive summary\n{{q1.city[0]}} sold {{q1.total[0]}}.\n\n{{table:q1}}\n")
		}
	}
	m.step++
	call := func(name string, args any) fake.Turn {
		b, _ := json.Marshal(args)
		if m.text {
			return fake.Text(fmt.Sprintf(`{"name": %q, "arguments": %s}`, name, b))
		}
		return fake.Calls(fake.Call{Name: name, Args: string(b)})
	}
	switch m.step {
	case 1:
		return call("run_sql", map[string]string{"sql": "SELECT city, sum(amount) AS total, count(*) AS n FROM sales GROUP BY city ORDER BY total DESC"})
	case 2:
		return call("run_sql", map[string]string{"sql": "SELECT CAST(full_name AS INTEGER) AS x FROM sales"})
	case 3:
		return call("run_sql", map[string]string{"sql": "SELECT CAST(note AS DATE) AS d FROM sales"})
	case 4:
		return call("sample_rows", map[string]any{"table": "sales", "n": 3})
	case 5:
		return call("profile_data", map[string]any{"table": "sales"})
	case 6:
		return call("describe_table", map[string]any{"table": "sales"})
	case 7:
		return call("echo_output", map[string]any{})
	case 8:
		return call("list_datasets", map[string]any{})
	case 9:
		return call("create_chart", map[string]any{"title": "Sales by city", "sql": "SELECT city, sum(amount) AS total FROM sales GROUP BY city",
			"spec": map[string]any{"mark": "bar", "encoding": map[string]any{
				"x": map[string]any{"field": "city", "type": "nominal"}, "y": map[string]any{"field": "total", "type": "quantitative"}}}})
	}
	return fake.Text(schemaAnswer)
}

// valueEcho stands for run_python: its output quotes cell values.
type valueEcho struct{}

func (valueEcho) Spec() tools.Spec {
	return tools.Spec{Name: "echo_output", Description: "prints what a script printed", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (valueEcho) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{ForModel: "stdout:\ncv-city-7f3a-ost 7345111\ncv-note-beta-7f3a\n", Summary: "printed"}, nil
}

func runSchema(t *testing.T, ws *workspace.Workspace, wire string, text bool, chat string, history []llm.Message) (*fake.Server, *agent.Outcome, llm.Provider, string) {
	t.Helper()
	m := &schemaModel{text: text}
	opts := fake.Options{Respond: m.respond}
	name := "qwen3:8b"
	if text {
		name = "gemma:2b"
		opts.Models = []fake.Model{fake.WithoutTools(name)}
	}
	srv := fake.Start(t, opts)
	cfg := provider.Config{Provider: wire, Model: name, APIKey: "sk-test", BaseURL: srv.OllamaURL()}
	if wire == provider.OpenAI {
		cfg.BaseURL = srv.OpenAIURL()
	}
	p, err := provider.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := assemble.Agent(ws, results.New(results.Config{}), p, name, assemble.Options{MaxSteps: 14, Privacy: privacy.Schema}, valueEcho{})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := assemble.WorkspaceSchema(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	ctx := tools.WithChat(context.Background(), chat)
	out := a.Run(ctx, agent.Input{RunID: "run_" + chat, ChatID: chat, Question: "Which city sells the most?", Schema: sch, History: history}, nil)
	if out.Status != agent.Done {
		t.Fatalf("run ended %s: %s", out.Status, out.Reason)
	}
	return srv, out, p, name
}

// cellLeaks returns the canaries found in any request body.
func cellLeaks(srv *fake.Server) []string {
	var found []string
	for _, r := range srv.Requests() {
		body := strings.ToLower(string(r.Body))
		for _, c := range cellCanaries {
			if strings.Contains(body, strings.ToLower(c)) || strings.Contains(body, strings.ToLower(jsonEscaped(c))) {
				found = append(found, fmt.Sprintf("request %d: %q", r.N, c))
			}
		}
	}
	return found
}

func TestSchemaSendsNoCellValue(t *testing.T) {
	for _, wire := range wires {
		for _, text := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/text=%v", wire, text), func(t *testing.T) {
				ws := schemaWorkspace(t)
				chat := "chat_schema_" + wire + fmt.Sprint(text)
				srv, out, p, name := runSchema(t, ws, wire, text, chat, nil)
				if l := cellLeaks(srv); len(l) > 0 {
					t.Fatalf("cell values reached the model:\n%s", strings.Join(l, "\n"))
				}
				if n := len(srv.Requests()); n < 10 {
					t.Fatalf("the script should have made 10 requests, made %d", n)
				}
				// The model was told each result's shape and how to refer to it.
				if !bodiesContain(srv, "[q1] 3 columns (city VARCHAR, total") || !bodiesContain(srv, "{{q1.city[0]}}") {
					t.Errorf("the model should read the result's shape and reference; first bodies: %.600s", srv.Requests()[1].Body)
				}
				// The user reads the real values, filled in locally.
				for _, want := range []string{"The biggest city is cv-city-7f3a-ost with 7345111 in sales", "the smallest is cv-city-7f3a-nor (5123983)",
					"| cv-city-7f3a-wes | 6152372 | 1 |", "(chart c1)", "[unknown reference q9.total[0]]"} {
					if !strings.Contains(out.Answer, want) {
						t.Errorf("the answer lacks %q:\n%s", want, out.Answer)
					}
				}
				if len(out.Findings) == 0 || !strings.Contains(out.Findings[0].Text, "cv-city-7f3a-ost leads with 7345111") {
					t.Errorf("findings must be filled in: %+v", out.Findings)
				}
				if out.Written != schemaAnswer {
					t.Errorf("the written answer must keep the references: %q", out.Written)
				}

				// A follow-up in the same conversation: the history holds
				// what the model read and wrote, never the filled values.
				fsrv, _, _, _ := runSchema(t, ws, wire, text, chat, out.Transcript)
				if l := cellLeaks(fsrv); len(l) > 0 {
					t.Fatalf("the follow-up leaked:\n%s", strings.Join(l, "\n"))
				}

				// The report stage, behind the same gate.
				rp, err := assemble.Guard(p, privacy.Schema, assemble.WorkspacePrivate{WS: ws})
				if err != nil {
					t.Fatal(err)
				}
				srv.Push()
				rep := writeReport(t, rp, &canaryRun{out: out, name: name}, chat)
				if l := cellLeaks(srv); len(l) > 0 {
					t.Fatalf("the report stage leaked:\n%s", strings.Join(l, "\n"))
				}
				if !strings.Contains(rep.Title+rep.Body, "cv-city-7f3a-ost sold 7345111") {
					t.Errorf("the report must show the real values: %q %q", rep.Title, rep.Body)
				}
			})
		}
	}
}

// A report written at schema from an answer made at open sends neither
// the answer (it holds values) nor the rows.
func TestSchemaReportOfAnOpenAnswer(t *testing.T) {
	ws := schemaWorkspace(t)
	srv := fake.Start(t, fake.Options{Respond: (&schemaModel{}).respond})
	p, err := provider.Open(provider.Config{Provider: provider.Ollama, Model: "qwen3:8b", BaseURL: srv.OllamaURL()})
	if err != nil {
		t.Fatal(err)
	}
	out := &agent.Outcome{Status: agent.Done, Answer: "cv-city-7f3a-ost sold 7345111.", Summary: "cv-city-7f3a-ost sold 7345111.",
		Findings: []agent.Finding{{Text: "cv-city-7f3a-ost leads", Evidence: []string{"q1"}}},
		Evidence: []agent.Evidence{{Ref: "q1", Tool: "run_sql", SQL: "SELECT city, sum(amount) AS total FROM sales GROUP BY city ORDER BY total DESC",
			Table: &tools.Table{Columns: []tools.Column{{Name: "city", Type: "VARCHAR"}, {Name: "total", Type: "HUGEINT"}}, Rows: 3,
				Preview: [][]any{{"cv-city-7f3a-ost", float64(7345111)}, {"cv-city-7f3a-wes", float64(6152372)}, {"cv-city-7f3a-nor", float64(5123983)}}}}}}
	rp, err := assemble.Guard(p, privacy.Schema, assemble.WorkspacePrivate{WS: ws})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.Write(context.Background(), rp, "qwen3:8b", assemble.ExplorationAt("Which city sells the most?", out, privacy.Schema), nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := cellLeaks(srv); len(l) > 0 {
		t.Fatalf("the report stage leaked:\n%s", strings.Join(l, "\n"))
	}
	if !strings.Contains(rep.Body, "cv-city-7f3a-ost sold 7345111") {
		t.Errorf("the report must show the real values: %q", rep.Body)
	}
}
