package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// newStore is a Store in a fresh folder, with the environment m.
func newStore(t *testing.T, m map[string]string) (*config.Store, *config.MemoryKeychain, string) {
	t.Helper()
	dir := t.TempDir()
	keys := config.NewMemoryKeychain()
	return config.NewStore(func() (string, error) { return dir, nil }, env(m), keys), keys, dir
}

func openai(base string) config.Settings {
	return config.Settings{Provider: "openai", Model: "gpt-oss-20b", OllamaURL: "http://127.0.0.1:11434",
		OpenAIBaseURL: base, MaxSteps: 10, TimeoutSeconds: 60, Theme: "dark"}
}

func ptr(s string) *string { return &s }

func TestSettingsKeepTheKeyOutOfTheFile(t *testing.T) {
	s, _, dir := newStore(t, map[string]string{"LOUPE_PROVIDER": "openai", "LOUPE_MODEL": "m1", "LOUPE_BASE_URL": "http://127.0.0.1:1234/v1"})
	got, err := s.Get()
	if err != nil {
		t.Fatal(err)
	}
	if got.Provider != "openai" || got.Model != "m1" || got.OpenAIBaseURL != "http://127.0.0.1:1234/v1" || got.Theme != "system" || got.HasAPIKey {
		t.Fatalf("defaults from the environment: %+v", got)
	}
	if err := s.Save(config.Update{Settings: openai("https://a.example/v1"), APIKey: ptr("sk-secret")}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sk-secret") || !strings.Contains(string(b), "a.example") {
		t.Errorf("settings.json:\n%s", b)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "settings.json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("settings.json mode %v", fi.Mode().Perm())
	}
	got, _ = s.Get()
	if !got.HasAPIKey || got.APIKeyFor != "https://a.example" || got.Theme != "dark" {
		t.Errorf("after save: %+v", got)
	}
}

func TestSaveRejectsNonsense(t *testing.T) {
	s, _, dir := newStore(t, nil)
	for _, tc := range []struct {
		name string
		edit func(*config.Settings)
		says string
	}{
		{"provider", func(c *config.Settings) { c.Provider = "gemini" }, "Unknown provider"},
		{"theme", func(c *config.Settings) { c.Theme = "pink" }, "Unknown theme"},
		{"steps", func(c *config.Settings) { c.MaxSteps = 0 }, "out of range"},
		{"timeout", func(c *config.Settings) { c.TimeoutSeconds = 5 }, "time limit"},
		{"embed", func(c *config.Settings) { c.EmbedModel = "nomic embed" }, "not a model name"},
		{"ollama", func(c *config.Settings) { c.OllamaURL = "ftp://x" }, "Ollama address"},
		{"base", func(c *config.Settings) { c.OpenAIBaseURL = "api.example.com" }, "base URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openai("https://a.example/v1")
			tc.edit(&st)
			err := s.Save(config.Update{Settings: st})
			var ce *config.Error
			if !errors.As(err, &ce) || ce.Kind != config.KindInvalid || !strings.Contains(ce.Message, tc.says) || ce.Hint == "" {
				t.Fatalf("got %v, want an invalid error saying %q", err, tc.says)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "settings.json")); !os.IsNotExist(err) {
		t.Errorf("a rejected save wrote the file: %v", err)
	}
}

func TestDamagedSettingsAreAnError(t *testing.T) {
	s, _, dir := newStore(t, nil)
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte("{nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get()
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Kind != config.KindFile || !strings.Contains(ce.Message, "is damaged") {
		t.Fatalf("got %v", err)
	}
	if err := s.Save(config.Update{Settings: openai("https://a.example/v1")}); err != nil {
		t.Fatal(err) // saving replaces the damaged file with good settings
	}
}

func TestKeyStaysWithItsHost(t *testing.T) {
	s, _, _ := newStore(t, nil)
	if err := s.Save(config.Update{Settings: openai("https://a.example/v1"), APIKey: ptr("sk-a")}); err != nil {
		t.Fatal(err)
	}
	if k, _ := s.KeyFor("https://a.example/v1/"); k != "sk-a" {
		t.Errorf("key for a: %q", k)
	}
	// The base URL moves: the key stays with a.example, b gets none.
	if err := s.Save(config.Update{Settings: openai("https://b.example/v1")}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Get()
	if got.HasAPIKey || got.APIKeyFor != "https://a.example" {
		t.Errorf("after the move: %+v", got)
	}
	if cfg := s.ProviderConfig(got); cfg.APIKey != "" || cfg.BaseURL != "https://b.example/v1" {
		t.Errorf("b's config carries %q", cfg.APIKey)
	}
	// Back to a: its key again. An empty key forgets it.
	if err := s.Save(config.Update{Settings: openai("https://a.example/v1")}); err != nil {
		t.Fatal(err)
	}
	if cfg := s.ProviderConfig(openai("https://a.example/v1")); cfg.APIKey != "sk-a" {
		t.Errorf("a's key lost: %q", cfg.APIKey)
	}
	if err := s.Save(config.Update{Settings: openai("https://a.example/v1"), APIKey: ptr("")}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(); got.HasAPIKey || got.APIKeyFor != "" {
		t.Errorf("forgotten key still there: %+v", got)
	}
}

func TestEnvironmentKeyGoesToItsHostOnly(t *testing.T) {
	s, _, _ := newStore(t, map[string]string{"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": "https://env.example/v1"})
	if k, _ := s.KeyFor("https://env.example/v1"); k != "sk-env" {
		t.Errorf("env host: %q", k)
	}
	if k, _ := s.KeyFor("https://other.example/v1"); k != "" {
		t.Errorf("another host got %q", k)
	}
}

func TestKeyStoredBeforeBindingIsBoundToItsBaseURL(t *testing.T) {
	s, keys, _ := newStore(t, nil)
	if err := s.Save(config.Update{Settings: openai("https://old.example/v1")}); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Set(config.APIKeyName, "sk-old"); err != nil { // as an older Loupe stored it: no origin
		t.Fatal(err)
	}
	if got, _ := s.Get(); !got.HasAPIKey || got.APIKeyFor != "https://old.example" {
		t.Fatalf("not bound: %+v", got)
	}
	if origin, _, _ := keys.Get("openai-api-key-origin"); origin != "https://old.example" {
		t.Errorf("the binding was not kept: %q", origin)
	}
}

func TestAKeychainThatFailsIsSaid(t *testing.T) {
	dir := t.TempDir()
	s := config.NewStore(func() (string, error) { return dir, nil }, env(nil), failing{})
	err := s.Save(config.Update{Settings: openai("https://a.example/v1"), APIKey: ptr("sk")})
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Kind != config.KindKeychain || !strings.Contains(ce.Hint, "OPENAI_API_KEY") {
		t.Fatalf("got %v", err)
	}
}

// failing is a keychain that cannot store anything (no keychain service).
type failing struct{}

func (failing) Get(string) (string, string, error) { return "", "", config.ErrNoSecret }
func (failing) Set(string, string) (string, error) { return "", errors.New("no keychain service") }
func (failing) Delete(string) error                { return nil }
