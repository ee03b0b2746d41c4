package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
)

// Refresh lists the models of the address in the field, not the saved one.
func TestListModelsForTheURLInTheField(t *testing.T) {
	e := newEnv(t, setup{models: []fake.Model{{Name: "qwen3:8b", Tools: true}}})
	other := fake.Start(t, fake.Options{Models: []fake.Model{{Name: "llama3.1:8b", Tools: true}, {Name: "nomic-embed-text", Embedding: true}}})
	saved, _ := e.app.GetSettings()
	form := *saved
	form.OllamaURL = other.OllamaURL()
	models, err := e.app.ListModelsFor(app.SettingsUpdate{Settings: form})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range models {
		names = append(names, m.Name)
		if m.Name == "nomic-embed-text" && !m.Embedding {
			t.Errorf("the embedding model is not marked: %+v", m)
		}
	}
	if strings.Join(names, ",") != "llama3.1:8b,nomic-embed-text" {
		t.Errorf("models of the field's address: %v", names)
	}
	if now, _ := e.app.GetSettings(); now.OllamaURL != saved.OllamaURL {
		t.Errorf("listing saved the address: %s", now.OllamaURL)
	}
}

// Save with Test keeps only settings that work; the error says what does not, once.
func TestSaveTestsTheModelSettingsFirst(t *testing.T) {
	e := newEnv(t, setup{models: []fake.Model{{Name: "qwen3:8b", Tools: true}, {Name: "nomic-embed-text", Embedding: true}}})
	saved, _ := e.app.GetSettings()
	keyed := fake.Start(t, fake.Options{APIKey: "sk-right", Models: []fake.Model{{Name: "gpt-oss-20b", Tools: true}}})
	key, wrong := "sk-right", "sk-wrong"
	openai := func(base, model string) app.Settings {
		s := *saved
		s.Provider, s.OpenAIBaseURL, s.Model = "openai", base, model
		return s
	}
	embed := *saved
	embed.Model = "nomic-embed-text"
	for _, tc := range []struct {
		name string
		u    app.SettingsUpdate
		msg  string // in the error; "" for none
		once string // said at most once in the message
	}{
		{"embedding model as the chat model", app.SettingsUpdate{Settings: embed, Test: true}, "nomic-embed-text only makes embeddings", ""},
		{"wrong base URL", app.SettingsUpdate{Settings: openai(keyed.URL()+"/wrong/v1", "gpt-oss-20b"), APIKey: &key, Test: true}, "Not saved: ", keyed.URL()},
		{"wrong key", app.SettingsUpdate{Settings: openai(keyed.OpenAIURL(), "gpt-oss-20b"), APIKey: &wrong, Test: true}, "Not saved: ", keyed.URL()},
		{"a model the server does not offer", app.SettingsUpdate{Settings: openai(keyed.OpenAIURL(), "gpt-4.1"), APIKey: &key, Test: true}, "does not offer gpt-4.1", ""},
		{"nothing listens", app.SettingsUpdate{Settings: openai("http://127.0.0.1:1/v1", "gpt-oss-20b"), APIKey: &key, Test: true}, "Cannot reach http://127.0.0.1:1/v1", ""},
		{"a working server", app.SettingsUpdate{Settings: openai(keyed.OpenAIURL(), "gpt-oss-20b"), APIKey: &key, Test: true}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := e.app.GetSettings()
			err := e.app.SaveSettings(tc.u)
			after, _ := e.app.GetSettings()
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if after.Model != tc.u.Model || after.Provider != tc.u.Provider {
					t.Errorf("not saved: %+v", after)
				}
				return
			}
			if codeOf(t, err) != app.CodeModel {
				t.Fatalf("error %v, want code %s", err, app.CodeModel)
			}
			ae := app.AsError(err)
			if !strings.Contains(ae.Message, tc.msg) || !strings.Contains(ae.Hint, "Save anyway") {
				t.Errorf("error %q (%q), want %q", ae.Message, ae.Hint, tc.msg)
			}
			if tc.once != "" && strings.Count(strings.ToLower(ae.Message), strings.ToLower(tc.once)) > 1 {
				t.Errorf("the address is said twice: %q", ae.Message)
			}
			if *after != *before {
				t.Errorf("a refused save changed the settings:\n%+v\n%+v", before, after)
			}
			// Save anyway: without Test the settings are kept as they are.
			anyway := tc.u
			anyway.Test = false
			if err := e.app.SaveSettings(anyway); err != nil {
				t.Errorf("save anyway: %v", err)
			}
			if now, _ := e.app.GetSettings(); now.Model != tc.u.Model {
				t.Errorf("save anyway kept %q", now.Model)
			}
		})
	}
}

// TestSettings is the OpenAI-compatible tab's Test: the typed key, the field's address.
func TestTestSettingsUsesTheForm(t *testing.T) {
	e := newEnv(t, setup{})
	keyed := fake.Start(t, fake.Options{APIKey: "sk-right", Models: []fake.Model{{Name: "gpt-oss-20b", Tools: true}}})
	s, _ := e.app.GetSettings()
	s.Provider, s.OpenAIBaseURL, s.Model = "openai", keyed.OpenAIURL(), "gpt-oss-20b"
	key := "sk-right"
	c, err := e.app.TestSettings(app.SettingsUpdate{Settings: *s, APIKey: &key})
	if err != nil || !c.OK || c.Message != "gpt-oss-20b on "+keyed.OpenAIURL() {
		t.Errorf("typed key: %+v, %v", c, err)
	}
	c, _ = e.app.TestSettings(app.SettingsUpdate{Settings: *s})
	if c.OK || !strings.Contains(c.Message, "No API key for "+keyed.URL()) {
		t.Errorf("no key typed or stored: %+v", c)
	}
	if now, _ := e.app.GetSettings(); now.Provider != "ollama" {
		t.Errorf("a test saved the settings: %+v", now)
	}
}

// A failed answer turns the model's status to the failure; the next answer back to ready.
func TestStatusFollowsTheLastRealCall(t *testing.T) {
	e := newEnv(t, setup{models: []fake.Model{{Name: "qwen3:8b", Tools: true}}, turns: []fake.Turn{
		fake.Failing(fake.Status(400, "model runner has unexpectedly stopped")),
		fake.Text("Fine now."),
	}})
	if st, _ := e.app.Status(); !st.Model.OK {
		t.Fatalf("before: %+v", st.Model)
	}
	chat := e.chat(t)
	res, err := e.app.Ask(chat, "How many orders?")
	if err != nil {
		t.Fatal(err)
	}
	if out := e.rec.waitFinished(t, res.RunID, 30*time.Second); out.Status != agent.Failed {
		t.Fatalf("outcome %s", out.Status)
	}
	last := func() app.Status {
		pushed := e.rec.of(app.EventStatusChanged)
		return pushed[len(pushed)-1].(app.Status)
	}
	if st := last(); st.Model.OK || !strings.Contains(st.Model.Message, "The last answer failed") || !strings.Contains(st.Model.Message, "model runner has unexpectedly stopped") {
		t.Errorf("after a failed run: %+v", st.Model)
	}
	e.answered(t, chat, "And now?")
	if st := last(); !st.Model.OK || st.Model.Message != "qwen3:8b on Ollama at "+e.srv.OllamaURL() {
		t.Errorf("after an answer: %+v", st.Model)
	}
}
