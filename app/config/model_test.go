package config_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "loupe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestModelsMarksRecommendedAndToolless(t *testing.T) {
	srv := fake.Start(t, fake.Options{Models: []fake.Model{
		{Name: "qwen3:8b", Tools: true, ContextLength: 40960},
		{Name: "llama3.2:3b", Tools: true},
		fake.WithoutTools("gemma:2b"),
		{Name: "devstral:latest", Tools: true},
	}})
	p, err := config.OpenListing(config.Spec{Config: provider.Config{BaseURL: srv.OllamaURL()}})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := config.Models(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]config.ModelInfo{}
	for _, m := range ms {
		got[m.Name] = m
	}
	if m := got["qwen3:8b"]; !m.Recommended || !m.Tools || m.ContextLength != 40960 || m.Warning != "" {
		t.Errorf("qwen3:8b %+v", m)
	}
	if m := got["devstral:latest"]; !m.Recommended {
		t.Errorf("devstral %+v", m)
	}
	if m := got["llama3.2:3b"]; m.Recommended || m.Warning != "" {
		t.Errorf("llama3.2 %+v", m)
	}
	if m := got["gemma:2b"]; m.Tools || !m.ToolsKnown || m.Warning == "" || m.Recommended {
		t.Errorf("gemma %+v", m)
	}
}

func TestPullReportsProgressAndSaysWhatFailed(t *testing.T) {
	srv := fake.Start(t, fake.Options{PullStep: 5 * time.Millisecond})
	s := config.Settings{Provider: "ollama", OllamaURL: srv.OllamaURL()}
	var evs []config.PullProgress
	if err := config.Pull(context.Background(), s, " nomic-embed-text ", func(p config.PullProgress) { evs = append(evs, p) }); err != nil {
		t.Fatal(err)
	}
	if len(evs) < 3 || evs[0].Status != "pulling manifest" || evs[len(evs)-1].Status != "success" || evs[0].Name != "nomic-embed-text" {
		t.Fatalf("progress %+v", evs)
	}
	for _, tc := range []struct {
		name string
		s    config.Settings
		kind config.Kind
	}{
		{"no-such-model", s, config.KindNotFound},
		{"", s, config.KindInvalid},
		{"qwen3:8b", config.Settings{Provider: "openai"}, config.KindInvalid},
		{"qwen3:8b", config.Settings{Provider: "ollama", OllamaURL: "http://127.0.0.1:1"}, config.KindUnreachable},
	} {
		err := config.Pull(context.Background(), tc.s, tc.name, func(config.PullProgress) {})
		var ce *config.Error
		if !errors.As(err, &ce) || ce.Kind != tc.kind || ce.Hint == "" {
			t.Errorf("pull %q from %+v: %v, want kind %s", tc.name, tc.s, err, tc.kind)
		}
	}
}

// OpenModel settles the level before anything is sent, and the requests
// made for no answer are kept in the store's outbox at the level then in
// force (EnvOutboxAll keeps the loopback fake server's too).
func TestOpenModelLevelAndOutbox(t *testing.T) {
	srv := fake.New(t, fake.Text("hello"))
	st := openStore(t)
	dir := t.TempDir()
	choices := config.NewChoices(func() (string, error) { return dir, nil })
	spec := config.Spec{Config: provider.Config{Provider: "openai", BaseURL: srv.OpenAIURL(), Model: "m"}, Levels: choices,
		Store: func() (*store.Store, error) { return st, nil }, Getenv: env(map[string]string{assemble.EnvOutboxAll: "1"})}

	hosted := spec
	hosted.Config.BaseURL = "https://models.example/v1" // nothing is sent: the level is settled first
	_, err := config.OpenModel(hosted)
	var le *config.LevelError
	var ce *config.Error
	if !errors.As(err, &le) || !errors.As(err, &ce) || ce.Kind != config.KindUnchosen {
		t.Fatalf("a server elsewhere with no level chosen opened: %v", err)
	}
	if err := choices.Choose(spec.Config, privacy.Schema); err != nil {
		t.Fatal(err)
	}
	m, err := config.OpenModel(spec)
	if err != nil {
		t.Fatal(err)
	}
	if m.Level != privacy.Schema || m.Server() != srv.OpenAIURL() {
		t.Errorf("level %q, server %q", m.Level, m.Server())
	}
	if _, err := m.Provider.Models(context.Background()); err != nil {
		t.Fatal(err)
	}
	loose, err := st.SentLoose(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(loose) != 1 || loose[0].Level != string(privacy.Schema) || !strings.HasSuffix(loose[0].URL, "/models") {
		t.Fatalf("kept %+v", loose)
	}
	// Guard: itself at open, the gate otherwise.
	open := &config.Model{Provider: m.Provider, Level: privacy.Open}
	if g, err := open.Guard(nil); err != nil || g != m.Provider {
		t.Errorf("open level guarded: %v", err)
	}
}

func TestSetProviderReadsTheEnvironmentForOpenAI(t *testing.T) {
	getenv := env(map[string]string{"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": "https://env.example/v1"})
	var cfg provider.Config
	config.SetProvider(&cfg, " OpenAI ", getenv)
	if cfg.Provider != "openai" || cfg.APIKey != "sk-env" || cfg.BaseURL != "https://env.example/v1" {
		t.Errorf("openai: %+v", cfg)
	}
	cfg = provider.Config{BaseURL: "https://mine.example/v1"}
	config.SetProvider(&cfg, "openai", getenv)
	if cfg.BaseURL != "https://mine.example/v1" {
		t.Errorf("a base URL given first was replaced: %+v", cfg)
	}
	cfg = provider.Config{}
	config.SetProvider(&cfg, "ollama", getenv)
	if cfg.APIKey != "" || cfg.BaseURL != "" {
		t.Errorf("ollama took OpenAI's settings: %+v", cfg)
	}
}
