package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/data/privacy"
)

func TestChoicesPerServer(t *testing.T) {
	dir := t.TempDir()
	c := config.NewChoices(func() (string, error) { return dir, nil })
	local := provider.Config{Provider: "ollama", BaseURL: "http://127.0.0.1:11434"}
	hosted := provider.Config{Provider: "openai", BaseURL: "https://a.example/v1"}
	other := provider.Config{Provider: "openai", BaseURL: "https://b.example/v1"}

	if l, err := c.InForce(local); err != nil || l != privacy.Open {
		t.Errorf("local: %q %v", l, err)
	}
	_, err := c.InForce(hosted)
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Kind != config.KindUnchosen || !strings.Contains(ce.Message, "a.example") {
		t.Fatalf("a hosted server with no level chosen: %v", err)
	}
	if l, err := c.Loose(hosted); err != nil || l != privacy.Masked {
		t.Errorf("loose level before a choice: %q %v", l, err)
	}
	if err := c.Choose(hosted, privacy.Schema); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.State(hosted); !st.Chosen || st.Level != privacy.Schema || st.Local || st.Host != "a.example" {
		t.Errorf("state %+v", st)
	}
	if _, err := c.InForce(other); err == nil {
		t.Error("another server took a.example's level")
	}
	// A second Choices over the same folder reads the choice back.
	again := config.NewChoices(func() (string, error) { return dir, nil })
	if l, err := again.InForce(hosted); err != nil || l != privacy.Schema {
		t.Errorf("read back: %q %v", l, err)
	}
	if _, err := config.ParseLevel("secret"); !errors.As(err, &ce) || ce.Kind != config.KindInvalid {
		t.Errorf("ParseLevel(secret): %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "privacy.json"), []byte("["), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := again.State(hosted); !errors.As(err, &ce) || ce.Kind != config.KindFile {
		t.Errorf("damaged privacy.json: %v", err)
	}
}

func TestFlaggedLevel(t *testing.T) {
	for _, tc := range []struct {
		name, flag, env string
		cfg             provider.Config
		want            privacy.Level
		says            string
	}{
		{"local ollama", "", "", provider.Config{}, privacy.Open, ""},
		{"hosted", "", "", provider.Config{Provider: provider.OpenAI}, privacy.Masked, "https://api.openai.com/v1 is not on this machine, so it gets level masked"},
		{"ollama elsewhere", "", "", provider.Config{BaseURL: "10.0.0.5:11434"}, privacy.Masked, "--privacy open|masked|schema or LOUPE_PRIVACY"},
		{"env", "", " Schema ", provider.Config{Provider: provider.OpenAI}, privacy.Schema, ""},
		{"flag wins", "open", "schema", provider.Config{Provider: provider.OpenAI}, privacy.Open, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w strings.Builder
			f := &config.Flagged{Level: privacy.Level(tc.flag), Getenv: env(map[string]string{config.EnvPrivacy: tc.env}), Notice: &w}
			if l, err := f.InForce(tc.cfg); err != nil || l != tc.want || f.Level != tc.want {
				t.Fatalf("level %q (%v), want %q", l, err, tc.want)
			}
			if (tc.says == "") != (w.Len() == 0) || !strings.Contains(w.String(), tc.says) {
				t.Errorf("printed %q, want %q", w.String(), tc.says)
			}
		})
	}
	f := &config.Flagged{Getenv: env(map[string]string{config.EnvPrivacy: "hidden"})}
	if _, err := f.InForce(provider.Config{}); err == nil || !strings.Contains(err.Error(), "LOUPE_PRIVACY") {
		t.Errorf("LOUPE_PRIVACY=hidden: %v", err)
	}
}
