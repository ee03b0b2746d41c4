package app_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
)

// The window's answers and their report keep exactly what the model
// received, with the level chosen; SentOf shows it.
func TestWindowKeepsWhatWasSent(t *testing.T) {
	e := newEnv(t, setup{getenv: map[string]string{assemble.EnvOutboxAll: "1"}, turns: []fake.Turn{
		fake.Calls(call("run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1]"),
		fake.Text("# Orders\n\n## Summary\n\nWest leads.\n\n{{table:q1}}"),
		fake.Text("Still West."),
	}})
	e.load(t)
	if err := e.app.SetPrivacy("masked"); err != nil {
		t.Fatal(err)
	}
	chat := e.chat(t)
	res, err := e.app.Ask(chat, "Where do orders come from?")
	if err != nil {
		t.Fatal(err)
	}
	if out := e.rec.waitFinished(t, res.RunID, 20*time.Second); out.Status != agent.Done {
		t.Fatalf("run: %s %s", out.Status, out.Reason)
	}
	if _, err := e.app.WriteReport(chat, res.RunID, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.app.SetPrivacy("open"); err != nil { // schema is refused until it is built
		t.Fatal(err)
	}
	res2, err := e.app.Ask(chat, "And now?")
	if err != nil {
		t.Fatal(err)
	}
	e.rec.waitFinished(t, res2.RunID, 20*time.Second)

	var kept [][]byte
	var levels []string
	for _, run := range []string{res.RunID, res2.RunID} {
		s, err := e.app.SentOf(run)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range s.Requests {
			if strings.HasSuffix(r.URL, "/api/chat") {
				kept = append(kept, []byte(r.Body))
				levels = append(levels, s.Level)
			}
		}
	}
	reqs := e.srv.Requests()
	if len(reqs) != 4 || len(kept) != 4 {
		t.Fatalf("the server got %d chat requests, the outbox kept %d", len(reqs), len(kept))
	}
	for i, r := range reqs {
		if !bytes.Equal(kept[i], r.Body) {
			t.Errorf("request %d differs", i)
		}
	}
	if got := strings.Join(levels, " "); got != "masked masked masked open" {
		t.Errorf("levels %s", got)
	}
	if _, err := e.app.SentOf("run_nope"); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("unknown run: %v", err)
	}
	// A model listing is made for no conversation: kept without one.
	if _, err := e.app.ListModels(); err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenDir(context.Background(), e.wsDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	loose, err := st.SentLoose(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, r := range loose {
		listed = listed || (strings.HasSuffix(r.URL, "/api/tags") && r.Level == "open" && r.MessageID == "")
	}
	if !listed {
		t.Errorf("no model listing among the requests for no conversation: %+v", loose)
	}
}

// A local model: nothing is recorded, and the answer says where it ran.
func TestWindowLocalModelSendsNothing(t *testing.T) {
	e := newEnv(t, setup{turns: []fake.Turn{fake.Text("No data needed.")}})
	chat := e.chat(t)
	out := e.answered(t, chat, "Hello?")
	s, err := e.app.SentOf(out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Local || len(s.Requests) != 0 || s.Level != "open" ||
		s.Summary != "Nothing left this machine: the model runs on "+e.srv.Addr()+"." {
		t.Errorf("sent %+v: %s", s, s.Summary)
	}
}

// The level defaults by where the server is; a hosted server with no level
// chosen is refused before anything is sent, until the user chooses.
func TestPrivacyDefaultsAndFirstQuestion(t *testing.T) {
	e := newEnv(t, setup{})
	save := func(provider, ollama, openai string) {
		t.Helper()
		err := e.app.SaveSettings(app.SettingsUpdate{Settings: app.Settings{Provider: provider, Model: "m",
			OllamaURL: ollama, OpenAIBaseURL: openai, MaxSteps: 8, TimeoutSeconds: 60, Theme: "system"}})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		provider, ollama, openai string
		want                     privacy.Level
		local                    bool
	}{
		{"ollama", "http://127.0.0.1:11434", "https://api.openai.com/v1", privacy.Open, true},
		{"ollama", "10.0.0.5:11434", "https://api.openai.com/v1", privacy.Masked, false},
		{"openai", "http://127.0.0.1:11434", "http://localhost:1234/v1", privacy.Open, true},
		{"openai", "http://127.0.0.1:11434", "https://api.openai.com/v1", privacy.Masked, false},
	} {
		save(tc.provider, tc.ollama, tc.openai)
		p, err := e.app.GetPrivacy()
		if err != nil {
			t.Fatal(err)
		}
		if p.Level != tc.want || p.Local != tc.local || p.Chosen || len(p.Levels) != 3 {
			t.Errorf("%s %s %s: %+v", tc.provider, tc.ollama, tc.openai, p)
		}
	}
	// Still on api.openai.com: the first question waits for a choice.
	chat := e.chat(t)
	if _, err := e.app.Ask(chat, "Hello?"); codeOf(t, err) != app.CodePrivacy {
		t.Fatalf("first question to a hosted server: %v", err)
	}
	if err := e.app.SetPrivacy("secret"); codeOf(t, err) != app.CodeInvalid || !strings.Contains(err.Error(), "open, masked or schema") {
		t.Errorf("SetPrivacy(secret): %v", err)
	}
	if err := e.app.SetPrivacy("schema"); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.app.GetPrivacy(); p.Level != privacy.Schema || !p.Chosen || p.Host != "api.openai.com" {
		t.Errorf("after choosing: %+v", p)
	}
	// Another server starts from its own default.
	save("openai", "http://127.0.0.1:11434", "https://llm.example.com/v1")
	if p, _ := e.app.GetPrivacy(); p.Level != privacy.Masked || p.Chosen {
		t.Errorf("a new server: %+v", p)
	}
}
