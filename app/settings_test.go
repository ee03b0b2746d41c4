package app_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/data/secret"
)

func TestSettingsRoundTripKeepsTheKeyOutOfTheFile(t *testing.T) {
	e := newEnv(t, setup{model: "-", getenv: map[string]string{
		"LOUPE_PROVIDER": "openai", "LOUPE_MODEL": "gpt-oss-20b", "LOUPE_BASE_URL": "http://127.0.0.1:1234/v1"}})
	s, err := e.app.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	want := app.Settings{Provider: "openai", Model: "gpt-oss-20b", OllamaURL: "http://127.0.0.1:11434",
		OpenAIBaseURL: "http://127.0.0.1:1234/v1", MaxSteps: 15, TimeoutSeconds: 600, Theme: "system"}
	if *s != want {
		t.Errorf("defaults from the environment:\n got %+v\nwant %+v", *s, want)
	}

	const secret = "sk-test-0123456789"
	key := secret
	s.Model, s.Theme, s.MaxSteps = "gpt-4.1-mini", "dark", 9
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: *s, APIKey: &key}); err != nil {
		t.Fatal(err)
	}
	got, _ := e.app.GetSettings()
	want.Model, want.Theme, want.MaxSteps, want.HasAPIKey, want.APIKeyFor = "gpt-4.1-mini", "dark", 9, true, "http://127.0.0.1:1234"
	if *got != want {
		t.Errorf("after save:\n got %+v\nwant %+v", *got, want)
	}
	path := filepath.Join(e.config, "settings.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) || strings.Contains(strings.ToLower(string(b)), "apikey") {
		t.Errorf("settings.json holds the key:\n%s", b)
	}
	var onDisk map[string]any
	if err := json.Unmarshal(b, &onDisk); err != nil || onDisk["model"] != "gpt-4.1-mini" {
		t.Errorf("settings.json %s: %v", b, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("settings.json mode %v", st.Mode().Perm())
	}
	if k, _, err := e.keys.Get("openai-api-key"); err != nil || k != secret {
		t.Errorf("keychain holds %q, %v", k, err)
	}
	// Saving without a key keeps it; an empty key forgets it.
	got.Theme = "light"
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: *got}); err != nil {
		t.Fatal(err)
	}
	if s, _ := e.app.GetSettings(); !s.HasAPIKey || s.Theme != "light" {
		t.Errorf("key lost on a save without one: %+v", s)
	}
	empty := ""
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: *got, APIKey: &empty}); err != nil {
		t.Fatal(err)
	}
	if s, _ := e.app.GetSettings(); s.HasAPIKey {
		t.Error("an empty key should forget the stored one")
	}
	// A new App over the same folder reads the same settings.
	again := app.New(app.Options{WorkspaceDir: t.TempDir(), ConfigDir: e.config, Keychain: app.NewMemoryKeychain(),
		Getenv: func(string) string { return "" }})
	defer again.Shutdown(t.Context())
	if s, _ := again.GetSettings(); s.Model != "gpt-4.1-mini" || s.Provider != "openai" || s.Theme != "light" {
		t.Errorf("reloaded %+v", s)
	}
}

func TestSaveSettingsRejectsNonsense(t *testing.T) {
	e := newEnv(t, setup{})
	base, _ := e.app.GetSettings()
	for name, change := range map[string]func(s *app.Settings){
		"provider": func(s *app.Settings) { s.Provider = "bard" },
		"theme":    func(s *app.Settings) { s.Theme = "purple" },
		"steps":    func(s *app.Settings) { s.MaxSteps = 0 },
		"timeout":  func(s *app.Settings) { s.TimeoutSeconds = 1 },
		"ollama":   func(s *app.Settings) { s.OllamaURL = "ftp://x" },
		"openai":   func(s *app.Settings) { s.OpenAIBaseURL = "not a url" },
	} {
		s := *base
		change(&s)
		if err := e.app.SaveSettings(app.SettingsUpdate{Settings: s}); codeOf(t, err) != app.CodeInvalid {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
	if s, _ := e.app.GetSettings(); *s != *base {
		t.Errorf("a rejected save changed the settings: %+v", s)
	}
	// A damaged file is reported, not silently replaced by defaults.
	if err := os.WriteFile(filepath.Join(e.config, "settings.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.app.GetSettings(); codeOf(t, err) != app.CodeFile {
		t.Errorf("damaged settings: %v", err)
	}
}

// dockerd answers on a unix socket the calls the sandbox check makes, like
// the Docker daemon: ping, version, and the inspection of the sandbox
// image, which exists when withImage.
func dockerd(t *testing.T, withImage bool) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Api-Version", "1.47")
		p := r.URL.Path
		switch {
		case strings.HasSuffix(p, "/_ping"):
			_, _ = w.Write([]byte("OK"))
		case strings.HasSuffix(p, "/version"):
			_, _ = w.Write([]byte(`{"Version":"27.5.1","ApiVersion":"1.47","Os":"linux"}`))
		case strings.Contains(p, "/images/") && strings.HasSuffix(p, "/json") && withImage:
			_, _ = w.Write([]byte(`{"Id":"sha256:0123","Size":830000000,"Config":{"Labels":{}}}`))
		case strings.Contains(p, "/images/"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"No such image"}`))
		default:
			http.NotFound(w, r)
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "unix://" + sock
}

func TestStatus(t *testing.T) {
	e := newEnv(t, setup{docker: dockerd(t, true), models: []fake.Model{{Name: "qwen3:8b", Tools: true}}})
	st, err := e.app.Status()
	if err != nil {
		t.Fatal(err)
	}
	if !st.Model.OK || !strings.Contains(st.Model.Message, "qwen3:8b") || !st.Docker.OK {
		t.Errorf("all up: %+v", st)
	}
	pushed := e.rec.of(app.EventStatusChanged)
	if len(pushed) == 0 || pushed[len(pushed)-1].(app.Status) != *st {
		t.Errorf("status:changed %v", pushed)
	}

	// A model that is not installed, and no Docker.
	e2 := newEnv(t, setup{model: "llama3:70b", models: []fake.Model{{Name: "qwen3:8b", Tools: true}}})
	st, _ = e2.app.Status()
	if st.Model.OK || !strings.Contains(st.Model.Message, "not installed") || !strings.Contains(st.Model.Hint, "ollama pull llama3:70b") {
		t.Errorf("missing model: %+v", st.Model)
	}
	if st.Docker.OK || st.Docker.Hint == "" {
		t.Errorf("no docker: %+v", st.Docker)
	}

	// Docker without the sandbox image: say how to build it.
	noImage := newEnv(t, setup{docker: dockerd(t, false), models: []fake.Model{{Name: "qwen3:8b", Tools: true}}})
	st, _ = noImage.app.Status()
	if st.Docker.OK || !strings.Contains(st.Docker.Message, "not built") || !strings.Contains(st.Docker.Hint, "loupe sandbox build") {
		t.Errorf("no image: %+v", st.Docker)
	}

	// Nothing listening.
	e3 := newEnv(t, setup{})
	e3.srv.Close()
	st, _ = e3.app.Status()
	if st.Model.OK || !strings.Contains(st.Model.Message, "Cannot reach") || !strings.Contains(st.Model.Hint, "ollama serve") {
		t.Errorf("unreachable: %+v", st.Model)
	}

	// A first start: no model chosen and no Ollama at its default address
	// (nothing listens there on these machines). Say how to get one.
	e4 := newEnv(t, setup{model: "-"})
	st, _ = e4.app.Status()
	if st.Model.OK || !strings.HasPrefix(st.Model.Message, "Cannot reach Ollama") || !strings.Contains(st.Model.Hint, "Install Ollama from ollama.com/download") ||
		!strings.Contains(st.Model.Hint, "pull qwen3:8b in Settings") {
		t.Errorf("first start without Ollama: %+v", st.Model)
	}
	// Ollama answers, and no model is chosen yet.
	err = e4.app.SaveSettings(app.SettingsUpdate{Settings: app.Settings{Provider: "ollama", OllamaURL: e4.srv.OllamaURL(),
		OpenAIBaseURL: "https://api.openai.com/v1", MaxSteps: 8, TimeoutSeconds: 60, Theme: "system"}})
	if err != nil {
		t.Fatal(err)
	}
	st, _ = e4.app.Status()
	if st.Model.OK || st.Model.Message != "No model chosen" || !strings.Contains(st.Model.Hint, "pull qwen3:8b") {
		t.Errorf("no model: %+v", st.Model)
	}
}

// Without an OS keychain the key goes to data/secret's private file, and
// the settings say so.
func TestAPIKeyWithoutAKeychain(t *testing.T) {
	dir := t.TempDir()
	keys := app.Keeper{K: secret.NewWith(nil, filepath.Join(dir, "secrets.json"), func(string) string { return "" })}
	a := app.New(app.Options{WorkspaceDir: t.TempDir(), ConfigDir: dir, Keychain: keys, Getenv: func(string) string { return "" }})
	defer a.Shutdown(t.Context())
	s, _ := a.GetSettings()
	key := "sk-file-only"
	if err := a.SaveSettings(app.SettingsUpdate{Settings: *s, APIKey: &key}); err != nil {
		t.Fatal(err)
	}
	s, _ = a.GetSettings()
	if !s.HasAPIKey || !strings.Contains(s.APIKeyWarning, "secrets.json") {
		t.Errorf("settings %+v", s)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "settings.json"))
	if strings.Contains(string(b), key) {
		t.Errorf("settings.json holds the key: %s", b)
	}
}

// TestEmbedModelSetting: the semantic boost's model is off by default,
// comes from LOUPE_EMBED_MODEL before anything is saved, and once saved
// (even as off) survives a restart and wins over the environment.
func TestEmbedModelSetting(t *testing.T) {
	e := newEnv(t, setup{model: "-"})
	if s, _ := e.app.GetSettings(); s.EmbedModel != "" {
		t.Errorf("default %q, want off", s.EmbedModel)
	}
	env := map[string]string{"LOUPE_EMBED_MODEL": "nomic-embed-text"}
	e = newEnv(t, setup{model: "-", getenv: env})
	s, err := e.app.GetSettings()
	if err != nil || s.EmbedModel != "nomic-embed-text" {
		t.Fatalf("from the environment: %q, %v", s.EmbedModel, err)
	}
	b, _ := json.Marshal(s)
	if !strings.Contains(string(b), `"embedModel":"nomic-embed-text"`) {
		t.Errorf("the frontend's JSON: %s", b)
	}
	s.EmbedModel = "  mxbai-embed-large "
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: *s}); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.app.GetSettings(); got.EmbedModel != "mxbai-embed-large" {
		t.Errorf("saved: %q", got.EmbedModel)
	}
	s.EmbedModel = ""
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: *s}); err != nil {
		t.Fatal(err)
	}
	again := app.New(app.Options{ConfigDir: e.config, Keychain: e.keys, Getenv: func(k string) string { return env[k] }})
	defer again.Shutdown(context.Background())
	if got, _ := again.GetSettings(); got.EmbedModel != "" {
		t.Errorf("turned off, then restarted with LOUPE_EMBED_MODEL set: %q", got.EmbedModel)
	}
	s.EmbedModel = "nomic embed"
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: *s}); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("a name with a space: %v", err)
	}
}
