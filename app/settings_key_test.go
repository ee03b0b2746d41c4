package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app"
)

// openaiAt are settings for the OpenAI-compatible server at base.
func openaiAt(base string) app.Settings {
	return app.Settings{Provider: "openai", Model: "qwen3:8b", OllamaURL: "http://127.0.0.1:11434",
		OpenAIBaseURL: base, MaxSteps: 8, TimeoutSeconds: 60, Theme: "system"}
}

// keyServers are two fake OpenAI servers: A wants keyA, B wants its own.
func keyServers(t *testing.T) (a, b *fake.Server) {
	return fake.Start(t, fake.Options{APIKey: keyA}), fake.Start(t, fake.Options{APIKey: "sk-for-b"})
}

const keyA = "sk-for-a-0123456789"

// sawKeyA says whether any request s received carried A's key.
func sawKeyA(s *fake.Server) bool {
	for _, h := range s.Authorizations() {
		if strings.Contains(h, keyA) {
			return true
		}
	}
	return false
}

// TestKeyStaysWithItsHost is issue 16 §4: a key entered for server A was
// sent to server B at the next status check once the base URL changed.
func TestKeyStaysWithItsHost(t *testing.T) {
	srvA, srvB := keyServers(t)
	e := newEnv(t, setup{model: "-"})
	key := keyA
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: openaiAt(srvA.OpenAIURL()), APIKey: &key}); err != nil {
		t.Fatal(err)
	}
	st, _ := e.app.Status()
	s, _ := e.app.GetSettings()
	if !st.Model.OK || !s.HasAPIKey || s.APIKeyFor != provider.Origin(srvA.URL()) {
		t.Fatalf("with the key at A: status %+v, settings %+v", st.Model, s)
	}

	// The base URL moves to B, the key is not given again.
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: openaiAt(srvB.OpenAIURL())}); err != nil {
		t.Fatal(err)
	}
	st, _ = e.app.Status()
	hostB := provider.Origin(srvB.URL())
	if st.Model.OK || st.Model.Message != "No API key for "+hostB ||
		!strings.Contains(st.Model.Hint, "The key you saved for "+provider.Origin(srvA.URL())+" is not sent to "+hostB) {
		t.Errorf("status at B: %+v", st.Model)
	}
	if _, err := e.app.ListModels(); err == nil {
		t.Error("B listed its models without its key")
	}
	s, _ = e.app.GetSettings()
	if s.HasAPIKey || s.APIKeyFor != provider.Origin(srvA.URL()) {
		t.Errorf("settings at B: %+v", s)
	}
	if len(srvB.Seen()) == 0 || sawKeyA(srvB) {
		t.Errorf("B saw A's key (or nothing at all): %q in %d requests", srvB.Authorizations(), len(srvB.Seen()))
	}

	// Back to A (same origin, another path): its key is there again.
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: openaiAt(srvA.URL() + "/v1/")}); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.app.Status(); !st.Model.OK {
		t.Errorf("back at A: %+v", st.Model)
	}
	// B's own key replaces A's and goes to B only.
	keyB := "sk-for-b"
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: openaiAt(srvB.OpenAIURL()), APIKey: &keyB}); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.app.Status(); !st.Model.OK {
		t.Errorf("B with its key: %+v", st.Model)
	}
	if sawKeyA(srvB) {
		t.Errorf("B saw A's key: %q", srvB.Authorizations())
	}
}

// TestKeyFromTheEnvironmentGoesToItsHostOnly: OPENAI_API_KEY is for the
// base URL set beside it, not for whatever base URL Settings name.
func TestKeyFromTheEnvironmentGoesToItsHostOnly(t *testing.T) {
	srvA, srvB := keyServers(t)
	e := newEnv(t, setup{model: "-", getenv: map[string]string{"OPENAI_API_KEY": keyA, "OPENAI_BASE_URL": srvA.OpenAIURL()}})
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: openaiAt(srvA.OpenAIURL())}); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.app.Status(); !st.Model.OK {
		t.Errorf("A with OPENAI_API_KEY: %+v", st.Model)
	}
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: openaiAt(srvB.OpenAIURL())}); err != nil {
		t.Fatal(err)
	}
	st, _ := e.app.Status()
	if st.Model.OK || st.Model.Message != "No API key for "+provider.Origin(srvB.URL()) {
		t.Errorf("B without a key: %+v", st.Model)
	}
	if len(srvB.Seen()) == 0 || sawKeyA(srvB) {
		t.Errorf("B saw OPENAI_API_KEY (or nothing): %q", srvB.Authorizations())
	}
}

// TestStoredKeyFromBeforeBindingIsBoundToItsBaseURL: a key saved by an
// older Loupe (no host recorded) belongs to the base URL saved with it.
func TestStoredKeyFromBeforeBindingIsBoundToItsBaseURL(t *testing.T) {
	srvA, srvB := keyServers(t)
	keys := app.NewMemoryKeychain()
	if _, err := keys.Set("openai-api-key", keyA); err != nil {
		t.Fatal(err)
	}
	config := t.TempDir()
	old := `{"provider":"openai","model":"qwen3:8b","ollamaURL":"http://127.0.0.1:11434","openaiBaseURL":"` + srvA.OpenAIURL() +
		`","maxSteps":8,"timeoutSeconds":60,"theme":"system"}`
	if err := os.WriteFile(filepath.Join(config, "settings.json"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, first := range []string{"save", "get"} {
		t.Run("first "+first, func(t *testing.T) {
			_ = keys.Delete("openai-api-key-origin")
			a := app.New(app.Options{WorkspaceDir: t.TempDir(), ConfigDir: config, Keychain: keys,
				Getenv: func(string) string { return "" }, DockerHost: "unix:///nonexistent.sock"})
			defer a.Shutdown(t.Context())
			if first == "get" {
				if s, _ := a.GetSettings(); !s.HasAPIKey || s.APIKeyFor != provider.Origin(srvA.URL()) {
					t.Errorf("migrated settings: %+v", s)
				}
			}
			// The first thing the user does may be to point it at B.
			if err := a.SaveSettings(app.SettingsUpdate{Settings: openaiAt(srvB.OpenAIURL())}); err != nil {
				t.Fatal(err)
			}
			if st, _ := a.Status(); st.Model.OK {
				t.Errorf("B answered with A's key: %+v", st.Model)
			}
			if sawKeyA(srvB) {
				t.Errorf("B saw the migrated key: %q", srvB.Authorizations())
			}
			if origin, _, _ := keys.Get("openai-api-key-origin"); origin != provider.Origin(srvA.URL()) {
				t.Errorf("the key is bound to %q", origin)
			}
			// Restore A for the next case.
			if err := a.SaveSettings(app.SettingsUpdate{Settings: openaiAt(srvA.OpenAIURL())}); err != nil {
				t.Fatal(err)
			}
			if st, _ := a.Status(); !st.Model.OK {
				t.Errorf("A with its migrated key: %+v", st.Model)
			}
		})
	}
}
