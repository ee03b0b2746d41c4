package cli

import (
	"flag"
	"io"
	"testing"
)

func TestProviderFlagReadsTheOpenAIEnvironment(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		env                   map[string]string
		args                  []string
		wantKey, wantFor, url string
	}{
		{"flag chooses openai: env key for the default host",
			map[string]string{"OPENAI_API_KEY": "sk-1"}, []string{"--provider", "openai"},
			"sk-1", "https://api.openai.com/v1", ""},
		{"OPENAI_BASE_URL comes with the key",
			map[string]string{"OPENAI_API_KEY": "sk-2", "OPENAI_BASE_URL": "http://gpu:8000/v1"}, []string{"--provider", "OpenAI"},
			"sk-2", "http://gpu:8000/v1", "http://gpu:8000/v1"},
		{"--base-url after the flag wins; the key stays bound to its own host",
			map[string]string{"OPENAI_API_KEY": "sk-3"}, []string{"--provider", "openai", "--base-url", "http://other:9/v1"},
			"sk-3", "https://api.openai.com/v1", "http://other:9/v1"},
		{"--base-url before the flag wins too",
			map[string]string{"OPENAI_API_KEY": "sk-4", "OPENAI_BASE_URL": "http://gpu:8000/v1"}, []string{"--base-url", "http://other:9/v1", "--provider", "openai"},
			"sk-4", "http://gpu:8000/v1", "http://other:9/v1"},
		{"ollama reads no key", map[string]string{"OPENAI_API_KEY": "sk-5"}, []string{"--provider", "ollama"}, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"LOUPE_PROVIDER", "LOUPE_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST"} {
				t.Setenv(k, tc.env[k])
			}
			fs := flag.NewFlagSet("ask", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			cfg, _ := agentFlags(fs, "the run")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if cfg.APIKey != tc.wantKey || cfg.KeyFor != tc.wantFor || cfg.BaseURL != tc.url {
				t.Errorf("key %q for %q, base URL %q; want %q for %q, %q", cfg.APIKey, cfg.KeyFor, cfg.BaseURL, tc.wantKey, tc.wantFor, tc.url)
			}
		})
	}
}
