package assemble_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

// The canaries: every value of a private column is unique and searchable;
// plainCanary is in a column that is not private and must still reach the
// model under masked.
var (
	privateCanaries = []string{
		"Quillon Vexbridge", "Zarathea Mundlequist", "Orrin Plaskett",
		"qv.canary7@example.org", "zm.canary8@example.net", "op.canary9@example.com",
		"+44 20 7946 0958", "+44 20 7946 0777", "+44 20 7946 0123",
		// contact is private by its values (emails), not its name.
		"backup.qv@canary-mail.org", "backup.zm@canary-mail.org", "backup.op@canary-mail.org",
		// Parts of names: a query's substr must not carry them out.
		"Quillon", "Vexbridge", "Zarathea", "Mundlequist", "Plaskett",
	}
	plainCanary = "Plainmarkton"
)

// canaryWorkspace loads a customers table whose full_name, email and phone
// columns Loupe proposes as private by name, and contact by its values.
func canaryWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	csv := "id,full_name,email,phone,contact,city,amount\n" +
		"1,Quillon Vexbridge,qv.canary7@example.org,+44 20 7946 0958,backup.qv@canary-mail.org,Plainmarkton,900\n" +
		"2,Zarathea Mundlequist,zm.canary8@example.net,+44 20 7946 0777,backup.zm@canary-mail.org,Oslo,500\n" +
		"3,Orrin Plaskett,op.canary9@example.com,+44 20 7946 0123,backup.op@canary-mail.org,Lima,100\n"
	path := filepath.Join(t.TempDir(), "customers.csv")
	if err := os.WriteFile(path, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := tooltest.Empty(t)
	tooltest.Load(t, ws, path)
	return ws
}

var placeholderRe = regexp.MustCompile(`<(name|email|phone)_\d+>`)

// canaryModel scripts a model that reads the private rows, runs a query
// that fails quoting a private value, filters by a placeholder it saw,
// profiles the table, calls a free-text tool, and answers naming the
// customers by the placeholders it was given. In text mode the calls are
// written as text.
type canaryModel struct {
	mu     sync.Mutex
	step   int
	text   bool
	seen   []string // placeholders in the last request, in order of appearance
	answer string
}

func (m *canaryModel) respond(r fake.Request) fake.Turn {
	m.mu.Lock()
	defer m.mu.Unlock()
	// The placeholders of the first query's rows, biggest customer first
	// (decoded messages: the Ollama wire escapes < and >).
	m.seen = nil
	for _, msg := range r.Messages {
		if i := strings.Index(msg.Content, "full_name | email | phone"); i >= 0 {
			m.seen = placeholderRe.FindAllString(msg.Content[i:], -1)
			break
		}
	}
	if m.seen == nil { // the report stage: its prompt opens with the answer
		for _, msg := range r.Messages {
			if msg.Role != llm.System {
				m.seen = append(m.seen, placeholderRe.FindAllString(msg.Content, -1)...)
			}
		}
	}
	first := func(kind string) string {
		for _, p := range m.seen {
			if strings.HasPrefix(p, "<"+kind+"_") {
				return p
			}
		}
		return "nobody@example.invalid"
	}
	m.step++
	call := func(name string, args any) fake.Turn {
		var buf strings.Builder
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // a model writes <email_1>, not \u003c…
		_ = enc.Encode(args)
		b := strings.TrimSpace(buf.String())
		if m.text {
			return fake.Text(fmt.Sprintf(`{"name": %q, "arguments": %s}`, name, b))
		}
		return fake.Calls(fake.Call{Name: name, Args: b})
	}
	switch m.step {
	case 1:
		return call("run_sql", map[string]string{"sql": "SELECT full_name, email, phone, contact, city, amount FROM customers ORDER BY amount DESC"})
	case 2:
		return call("run_sql", map[string]string{"sql": "SELECT CAST(full_name AS INTEGER) AS n FROM customers"})
	case 3:
		return call("run_sql", map[string]string{"sql": "SELECT lower(full_name) AS lowered, upper(email) AS shout, count(*) AS n FROM customers WHERE email = '" + first("email") + "' GROUP BY ALL"})
	case 4:
		return call("profile_data", map[string]any{"table": "customers"})
	case 5:
		return call("sample_rows", map[string]any{"table": "customers", "n": 3})
	case 6:
		return call("echo_output", map[string]any{})
	case 8:
		return call("describe_table", map[string]any{"table": "customers"})
	case 7:
		return call("run_sql", map[string]string{"sql": "WITH t AS (SELECT substr(full_name, 1, 8) AS stub, amount FROM customers) SELECT stub || '…' AS short, amount FROM t ORDER BY amount DESC"})
	}
	m.answer = "The biggest customer is " + first("name") + " (" + first("email") + ") in " + plainCanary + "."
	return fake.Text(m.answer)
}

// echoTool stands for run_python's output: free text quoting private
// values, derived ones included.
type echoTool struct{}

func (echoTool) Spec() tools.Spec {
	return tools.Spec{Name: "echo_output", Description: "prints what a script printed", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (echoTool) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{ForModel: "stdout:\nquillon vexbridge spent 900\nZM.CANARY8@EXAMPLE.NET\n+44 20 7946 0777\n", Summary: "printed"}, nil
}

type canaryRun struct {
	srv   *fake.Server
	model *canaryModel
	out   *agent.Outcome
	p     llm.Provider
	wire  string
	name  string
}

func runCanary(t *testing.T, ws *workspace.Workspace, wire string, text bool, level privacy.Level, chat string, history []llm.Message) *canaryRun {
	t.Helper()
	m := &canaryModel{text: text}
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
	a, err := assemble.Agent(ws, results.New(results.Config{}), p, name, assemble.Options{MaxSteps: 12, Privacy: level}, echoTool{})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := assemble.WorkspaceSchema(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	ctx := tools.WithChat(context.Background(), chat)
	out := a.Run(ctx, agent.Input{RunID: "run_" + chat, ChatID: chat, Question: "Who are our biggest customers? Mention Quillon Vexbridge if relevant.", Schema: sch, History: history}, nil)
	if out.Status != agent.Done {
		t.Fatalf("run ended %s: %s", out.Status, out.Reason)
	}
	return &canaryRun{srv: srv, model: m, out: out, p: p, wire: wire, name: name}
}

// leaks returns the private canaries found in any request body the server
// received.
func leaks(srv *fake.Server) []string {
	var found []string
	for _, r := range srv.Requests() {
		body := strings.ToLower(string(r.Body))
		for _, c := range privateCanaries {
			for _, form := range []string{c, jsonEscaped(c)} {
				if strings.Contains(body, strings.ToLower(form)) {
					found = append(found, fmt.Sprintf("request %d: %q", r.N, c))
				}
			}
		}
	}
	return found
}

func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

func bodiesContain(srv *fake.Server, s string) bool {
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), s) {
			return true
		}
	}
	return false
}

func TestMaskedSendsNoPrivateValue(t *testing.T) {
	for _, wire := range wires {
		for _, text := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/text=%v", wire, text), func(t *testing.T) {
				ws := canaryWorkspace(t)
				chat := "chat_" + wire + fmt.Sprint(text)
				r := runCanary(t, ws, wire, text, privacy.Masked, chat, nil)
				if l := leaks(r.srv); len(l) > 0 {
					t.Fatalf("private values reached the model:\n%s", strings.Join(l, "\n"))
				}
				if !bodiesContain(r.srv, plainCanary) {
					t.Error("a value of a column that is not private must still reach the model")
				}
				// The user sees the real values the placeholders stood for.
				if !strings.Contains(r.out.Answer, "Quillon Vexbridge") || !strings.Contains(r.out.Answer, "qv.canary7@example.org") {
					t.Errorf("the answer must show real values, got %q (the model wrote %q)", r.out.Answer, r.model.answer)
				}
				if !strings.Contains(r.model.answer, "<name_") {
					t.Errorf("the model should have answered with placeholders: %q", r.model.answer)
				}
				// The placeholder filter ran as the real value: one row came back.
				checkFilterRan(t, r.out)

				// A follow-up in the same conversation, its history holding
				// the first answer's real values, keeps the placeholders.
				f := runCanary(t, ws, wire, text, privacy.Masked, chat, r.out.Transcript)
				if l := leaks(f.srv); len(l) > 0 {
					t.Fatalf("the follow-up leaked:\n%s", strings.Join(l, "\n"))
				}
				if f.model.answer != r.model.answer {
					t.Errorf("placeholders changed between turns: %q then %q", r.model.answer, f.model.answer)
				}

				// The report stage, through the same gate.
				rp, err := assemble.Guard(r.p, privacy.Masked, assemble.WorkspacePrivate{WS: ws})
				if err != nil {
					t.Fatal(err)
				}
				r.srv.Push()
				rep := writeReport(t, rp, r, chat)
				if l := leaks(r.srv); len(l) > 0 {
					t.Fatalf("the report stage leaked:\n%s", strings.Join(l, "\n"))
				}
				if !strings.Contains(rep.Body, "Quillon Vexbridge") {
					t.Errorf("the report must show the real name: %q", rep.Body)
				}
			})
		}
	}
}

// writeReport writes the report of r's answer; the scripted model (still
// answering) writes a report naming the first customer by placeholder.
func writeReport(t *testing.T, p llm.Provider, r *canaryRun, chat string) *report.Report {
	t.Helper()
	ctx := tools.WithChat(context.Background(), chat)
	rep, err := report.Write(ctx, p, r.name, assemble.Exploration("Who are our biggest customers?", r.out), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func checkFilterRan(t *testing.T, out *agent.Outcome) {
	t.Helper()
	for _, m := range out.Transcript {
		if m.Role == llm.Tool && strings.Contains(m.Content, "lowered") {
			if !strings.Contains(m.Content, "quillon vexbridge") {
				t.Errorf("the query filtering by a placeholder should find the real row: %q", m.Content)
			}
			return
		}
	}
	// Text mode sends results as user messages.
	for _, m := range out.Transcript {
		if strings.Contains(m.Content, "lowered") && strings.Contains(m.Content, "quillon vexbridge") {
			return
		}
	}
	t.Error("the filtered query's result is not in the transcript")
}

// At open the same script sends the private values: the check above can
// fail.
func TestOpenSendsPrivateValues(t *testing.T) {
	ws := canaryWorkspace(t)
	r := runCanary(t, ws, provider.Ollama, false, privacy.Open, "chat_open", nil)
	if len(leaks(r.srv)) == 0 {
		t.Fatal("at open the private canaries must reach the model (else the masked test proves nothing)")
	}
}

// A column the user marks private is masked like a proposed one.
func TestMaskedHonoursUserMarks(t *testing.T) {
	ws := canaryWorkspace(t)
	if _, err := (assemble.WorkspacePrivate{WS: ws}).SetPrivate(context.Background(), "customers", "CITY", true); err != nil {
		t.Fatal(err)
	}
	r := runCanary(t, ws, provider.OpenAI, false, privacy.Masked, "chat_marks", nil)
	if bodiesContain(r.srv, plainCanary) {
		t.Error("a column the user marked private reached the model")
	}
	// The trace the user reads keeps the real values.
	if !strings.Contains(r.out.Transcript[2].Content, plainCanary) {
		t.Errorf("the first result in the trace must show the city: %q", r.out.Transcript[2].Content)
	}
}

func TestWorkspacePrivateProposes(t *testing.T) {
	ws := canaryWorkspace(t)
	cs, err := assemble.WorkspacePrivate{WS: ws}.Columns(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]privacy.Kind{}
	for _, c := range cs {
		if c.Private {
			got[c.Column] = c.Kind
		}
	}
	want := map[string]privacy.Kind{"full_name": privacy.Name, "email": privacy.Email, "phone": privacy.Phone, "contact": privacy.Email}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("private columns %v, want %v", got, want)
	}
}
