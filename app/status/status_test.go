package status_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/status"
)

func TestCacheSaysWhenTheStatusChanged(t *testing.T) {
	var c status.Cache
	a := status.Status{Model: status.Check{OK: true, Message: "m"}}
	b := status.Status{Model: status.Check{Message: "down"}}
	for i, tc := range []struct {
		st   status.Status
		want bool
	}{{a, true}, {a, false}, {b, true}, {b, false}, {a, true}} {
		if got := c.Note(tc.st); got != tc.want {
			t.Errorf("note %d: changed %v, want %v", i, got, tc.want)
		}
	}
}

// server is the model server s names, opened for listing as the window
// does, with key as the only key sent to an OpenAI-compatible server.
func server(s config.Settings, key string) status.Server {
	return status.Server{Settings: s, HasKey: func(string) bool { return key != "" },
		Open: func() (llm.Provider, error) {
			cfg := provider.Config{Provider: s.Provider, Model: s.Model, BaseURL: s.OllamaURL, APIKey: key}
			if s.Provider == provider.OpenAI {
				cfg.BaseURL = s.OpenAIBaseURL
			}
			return config.OpenListing(config.Spec{Config: cfg})
		}}
}

func TestCheckModel(t *testing.T) {
	ollama := fake.Start(t, fake.Options{Models: []fake.Model{{Name: "qwen3:8b", Tools: true}, {Name: "llama3", Tools: true}, {Name: "nomic-embed-text", Embedding: true}}})
	keyed := fake.Start(t, fake.Options{APIKey: "sk-right"})
	dead := "http://127.0.0.1:1"
	for _, tc := range []struct {
		name     string
		srv      status.Server
		ok       bool
		msg, fix string
	}{
		{"installed", server(config.Settings{Provider: "ollama", Model: "qwen3:8b", OllamaURL: ollama.OllamaURL()}, ""), true, "qwen3:8b on Ollama at " + ollama.OllamaURL(), ""},
		{"latest tag", server(config.Settings{Provider: "ollama", Model: "llama3:latest", OllamaURL: ollama.OllamaURL()}, ""), true, "llama3:latest on", ""},
		{"not installed", server(config.Settings{Provider: "ollama", Model: "mistral-nemo", OllamaURL: ollama.OllamaURL()}, ""), false, "mistral-nemo is not installed in Ollama", "ollama pull mistral-nemo"},
		{"no model", server(config.Settings{Provider: "ollama", OllamaURL: ollama.OllamaURL()}, ""), false, "No model chosen", "Pick an installed model that supports tools in Settings, or pull qwen3:8b in Settings"},
		{"unreachable", server(config.Settings{Provider: "ollama", Model: "qwen3:8b", OllamaURL: dead}, ""), false, "Cannot reach Ollama at " + dead, "ollama serve"},
		// A first start on a machine without Ollama: no model chosen and
		// nothing listening. Say how to install it and what to pull.
		{"first start without Ollama", server(config.Settings{Provider: "ollama", OllamaURL: dead}, ""), false, "Cannot reach Ollama at " + dead,
			"Install Ollama from ollama.com/download and open it (if it is installed, open the Ollama app or run `ollama serve`), then pull qwen3:8b in Settings"},
		{"first start without Ollama, hosted fallback", server(config.Settings{Provider: "ollama", OllamaURL: dead}, ""), false, "Cannot reach", "choose OpenAI-compatible in Settings"},
		{"no hosted model", server(config.Settings{Provider: "openai", OpenAIBaseURL: keyed.OpenAIURL()}, "sk-right"), false, "No model chosen", "Pick a model in Settings."},
		{"no key", server(config.Settings{Provider: "openai", Model: "m", OpenAIBaseURL: keyed.OpenAIURL(), APIKeyFor: "https://other.example"}, ""), false,
			"No API key for " + keyed.URL(), "The key you saved for https://other.example is not sent to " + keyed.URL()},
		{"wrong key", server(config.Settings{Provider: "openai", Model: "m", OpenAIBaseURL: keyed.OpenAIURL()}, "sk-wrong"), false, keyed.OpenAIURL() + " answered 401", ""},
		{"embedding model", server(config.Settings{Provider: "ollama", Model: "nomic-embed-text", OllamaURL: ollama.OllamaURL()}, ""), false, "nomic-embed-text only makes embeddings", "Pick a chat model"},
		{"settings", status.Server{Err: &config.Error{Kind: config.KindFile, Message: "settings.json is damaged", Hint: "Fix or delete the file"}}, false, "settings.json is damaged", "Fix or delete"},
		{"internal", status.Server{Err: errors.New("no home folder")}, false, "No home folder", "looks like a bug"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := status.CheckModel(context.Background(), tc.srv)
			if c.OK != tc.ok || !strings.Contains(c.Message, tc.msg) || !strings.Contains(c.Hint, tc.fix) {
				t.Errorf("got %+v, want ok %v, message with %q, hint with %q", c, tc.ok, tc.msg, tc.fix)
			}
		})
	}
}

func TestSameModel(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{{"llama3", "llama3:latest", true}, {"Qwen3:8B", "qwen3:8b", true}, {"qwen3:8b", "qwen3:14b", false}, {"llama3", "llama3:8b", false}} {
		if got := status.SameModel(tc.a, tc.b); got != tc.want {
			t.Errorf("SameModel(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

func TestDockerHost(t *testing.T) {
	getenv := func(k string) string { return map[string]string{"DOCKER_HOST": "tcp://env:2375"}[k] }
	if h := status.DockerHost("tcp://mine:2375", getenv); h != "tcp://mine:2375" {
		t.Errorf("override: %s", h)
	}
	if h := status.DockerHost("", getenv); h != "tcp://env:2375" {
		t.Errorf("env: %s", h)
	}
}

// Without a daemon the Docker check says so and offers no build; a build
// fails with a DockerError and reports how it ended.
func TestWithoutDocker(t *testing.T) {
	host := "unix://" + filepath.Join(t.TempDir(), "docker.sock")
	c := status.CheckDocker(context.Background(), host)
	if c.OK || c.Action != "" || !strings.Contains(c.Message, "not running") {
		t.Errorf("check %+v", c)
	}
	var evs []status.Progress
	_, err := status.Build(context.Background(), host, false, nil, func(p status.Progress) { evs = append(evs, p) })
	var de *status.DockerError
	if !errors.As(err, &de) || de.Hint == "" {
		t.Fatalf("build: %v", err)
	}
	if len(evs) != 2 || evs[0].Phase != status.BuildStarting || evs[1].Phase != status.BuildFailed || evs[1].Message != de.Message {
		t.Errorf("progress %+v", evs)
	}
}
