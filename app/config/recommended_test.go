package config

import "testing"

func TestIsRecommended(t *testing.T) {
	for name, want := range map[string]bool{
		"qwen3:8b": true, "qwen3:8b-q4_K_M": true, "qwen3:4b": false, "QWEN3:14b": true,
		"gpt-oss:20b": true, "openai/gpt-oss-20b": true, "mistral-nemo:latest": true, "devstral": true,
		"llama3.2:3b": false, "gemma:2b": false,
	} {
		if got := isRecommended(name); got != want {
			t.Errorf("isRecommended(%q) = %v", name, got)
		}
	}
}
