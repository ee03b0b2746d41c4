package provider

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/ollama"
	"github.com/loupeapp/loupe/agent/llm/openai"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want Config
	}{
		{"nothing set", nil, Config{Provider: Ollama}},
		{"ollama with OLLAMA_HOST", map[string]string{"LOUPE_MODEL": "qwen3:8b", "OLLAMA_HOST": "10.0.0.5:11434", "OPENAI_API_KEY": "sk-unused"},
			Config{Provider: Ollama, Model: "qwen3:8b", BaseURL: "10.0.0.5:11434"}},
		{"LOUPE_BASE_URL wins over OLLAMA_HOST", map[string]string{"LOUPE_BASE_URL": "http://gpu:11434", "OLLAMA_HOST": "x"},
			Config{Provider: Ollama, BaseURL: "http://gpu:11434"}},
		{"openai", map[string]string{"LOUPE_PROVIDER": " OpenAI ", "LOUPE_MODEL": "gpt-4o-mini", "OPENAI_API_KEY": "sk-1", "OLLAMA_HOST": "unused"},
			Config{Provider: OpenAI, Model: "gpt-4o-mini", APIKey: "sk-1", KeyFor: "https://api.openai.com/v1"}},
		{"openai with OPENAI_BASE_URL", map[string]string{"LOUPE_PROVIDER": "openai", "OPENAI_BASE_URL": "http://localhost:1234/v1"},
			Config{Provider: OpenAI, BaseURL: "http://localhost:1234/v1"}},
		{"openai key beside LOUPE_BASE_URL", map[string]string{"LOUPE_PROVIDER": "openai", "LOUPE_BASE_URL": "http://gpu:8000/v1", "OPENAI_API_KEY": "sk-2"},
			Config{Provider: OpenAI, BaseURL: "http://gpu:8000/v1", APIKey: "sk-2", KeyFor: "http://gpu:8000/v1"}},
		{"keep-alive and max context", map[string]string{"OLLAMA_KEEP_ALIVE": "1h", "LOUPE_MAX_CONTEXT": "16384"},
			Config{Provider: Ollama, KeepAlive: "1h", MaxContext: 16384}},
		{"bad max context ignored", map[string]string{"LOUPE_MAX_CONTEXT": "lots"}, Config{Provider: Ollama}},
		{"embedding model", map[string]string{"LOUPE_EMBED_MODEL": " nomic-embed-text "}, Config{Provider: Ollama, EmbedModel: "nomic-embed-text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FromEnv(env(tt.env)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FromEnv = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		err  error
		hint string
	}{
		{"unknown provider", Config{Provider: "anthropic", Model: "m"}, ErrUnknownProvider, `"ollama"`},
		{"no model for ollama", Config{}, ErrNoModel, "ollama list"},
		{"no model for openai", Config{Provider: OpenAI}, ErrNoModel, "LOUPE_MODEL"},
		{"bad keep-alive", Config{Model: "m", KeepAlive: "forever"}, ErrBadSetting, "5m"},
		{"bad ollama host", Config{Model: "m", BaseURL: "ftp://x"}, ErrBadSetting, "host:port"},
		{"bad openai url", Config{Provider: OpenAI, Model: "m", BaseURL: "localhost:1234"}, ErrBadSetting, "/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Open(tt.cfg)
			var ce *ConfigError
			if p != nil || !errors.Is(err, tt.err) || !errors.As(err, &ce) || !strings.Contains(ce.Hint, tt.hint) {
				t.Errorf("Open = %v, %v; want %v with a hint mentioning %s", p, err, tt.err, tt.hint)
			}
		})
	}
}

func TestOpenBothProvidersAgainstTheFake(t *testing.T) {
	s := fake.New(t, fake.Text("from ollama"), fake.Text("from openai"))
	quiet := slog.New(slog.DiscardHandler)
	tests := []struct {
		cfg      Config
		wantType any
		want     string
	}{
		{Config{Model: "qwen3:8b", BaseURL: s.OllamaURL(), KeepAlive: "-1", MaxContext: 2048, Logger: quiet}, &ollama.Provider{}, "from ollama"},
		{Config{Provider: OpenAI, Model: "qwen3:8b", BaseURL: s.OpenAIURL(), APIKey: "sk-x", Logger: quiet}, &openai.Provider{}, "from openai"},
	}
	for _, tt := range tests {
		p, err := Open(tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if reflect.TypeOf(p) != reflect.TypeOf(tt.wantType) {
			t.Errorf("Open(%s) gave %T", tt.cfg.Provider, p)
		}
		// No model in the request: the configured one is used.
		res, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
		if err != nil || res.Message.Content != tt.want {
			t.Errorf("%s: %q, %v", p.Name(), res.Message.Content, err)
		}
	}
	r := s.Requests()
	if r[0].Model != "qwen3:8b" || r[0].NumCtx != 2048 || string(r[0].KeepAlive) != "-1" {
		t.Errorf("ollama request: model %q num_ctx %d keep_alive %s", r[0].Model, r[0].NumCtx, r[0].KeepAlive)
	}
	if r[1].Model != "qwen3:8b" || r[1].Header.Get("Authorization") != "Bearer sk-x" {
		t.Errorf("openai request: model %q auth %q", r[1].Model, r[1].Header.Get("Authorization"))
	}
}

func TestParseKeepAlive(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{{"5m", 5 * time.Minute}, {"1h30m", 90 * time.Minute}, {"3600", time.Hour}, {"-1", -time.Second}, {"0", 0}}
	for _, tt := range tests {
		if got, err := ParseKeepAlive(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseKeepAlive(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	if _, err := ParseKeepAlive("soon"); err == nil {
		t.Error("ParseKeepAlive accepted \"soon\"")
	}
}

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.openai.com/v1":        "https://api.openai.com",
		"HTTPS://API.OpenAI.com:443/v1/":   "https://api.openai.com",
		"http://localhost:1234/v1":         "http://localhost:1234",
		"http://localhost:80":              "http://localhost",
		"https://localhost:80":             "https://localhost:80",
		"http://[::1]:8080/v1":             "http://[::1]:8080",
		"http://[::1]/v1":                  "http://[::1]",
		"https://api.openai.com.evil.test": "https://api.openai.com.evil.test",
		"localhost:1234":                   "",
		"":                                 "",
	} {
		if got := Origin(in); got != want {
			t.Errorf("Origin(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKeyGoesOnlyToItsServer: OPENAI_API_KEY set beside server A's address
// is sent to A, and never to B when the base URL is changed to B (as
// --base-url does), whose request log shows no credentials at all.
func TestKeyGoesOnlyToItsServer(t *testing.T) {
	a := fake.Start(t, fake.Options{APIKey: "sk-for-a", Turns: []fake.Turn{fake.Text("from a")}})
	b := fake.New(t, fake.Text("from b"))
	cfg := FromEnv(env(map[string]string{"LOUPE_PROVIDER": "openai", "LOUPE_MODEL": "m", "OPENAI_API_KEY": "sk-for-a", "OPENAI_BASE_URL": a.OpenAIURL()}))
	cfg.Logger = slog.New(slog.DiscardHandler)
	chat := func(cfg Config) string {
		p, err := Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Models(context.Background()); err != nil {
			t.Fatalf("list models at %s: %v", cfg.BaseURL, err)
		}
		res, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
		if err != nil {
			t.Fatalf("chat at %s: %v", cfg.BaseURL, err)
		}
		return res.Message.Content
	}
	if got := chat(cfg); got != "from a" {
		t.Errorf("A answered %q", got)
	}
	cfg.BaseURL = b.OpenAIURL()
	if got := chat(cfg); got != "from b" {
		t.Errorf("B answered %q", got)
	}
	if auth := b.Authorizations(); len(auth) != 0 || len(b.Seen()) < 2 {
		t.Errorf("B saw credentials %q in %d requests", auth, len(b.Seen()))
	}
	if auth := a.Authorizations(); len(auth) != 2 || auth[0] != "Authorization: Bearer sk-for-a" {
		t.Errorf("A saw %q", auth)
	}
	// The same host on another port or scheme is another server.
	for _, base := range []string{"http://127.0.0.1:1/v1", strings.Replace(a.OpenAIURL(), "http:", "https:", 1)} {
		c := cfg
		c.BaseURL = base
		if key, withheld := c.Key(); key != "" || !withheld {
			t.Errorf("the key for %s goes to %s", a.OpenAIURL(), base)
		}
	}
	// The default server gets the key when nothing names another.
	def := FromEnv(env(map[string]string{"LOUPE_PROVIDER": "openai", "OPENAI_API_KEY": "sk-d"}))
	if key, _ := def.Key(); key != "sk-d" {
		t.Errorf("api.openai.com does not get OPENAI_API_KEY: %q", key)
	}
	def.BaseURL = "https://openrouter.ai/api/v1"
	if key, withheld := def.Key(); key != "" || !withheld {
		t.Errorf("OPENAI_API_KEY (for api.openai.com) goes to %s", def.BaseURL)
	}
}
