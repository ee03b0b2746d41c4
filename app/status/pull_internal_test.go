package status

import (
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
)

// An Ollama with no model yet is told which one to pull, not to pick.
func TestPickOrPull(t *testing.T) {
	if h := pickOrPull(nil); !strings.HasPrefix(h, "Ollama has no model yet: pull qwen3:8b in Settings") || strings.Contains(h, "Pick") {
		t.Errorf("no models: %q", h)
	}
	if h := pickOrPull([]llm.Model{{Name: "llama3"}}); !strings.HasPrefix(h, "Pick an installed model") || !strings.Contains(h, "pull qwen3:8b") {
		t.Errorf("some models: %q", h)
	}
}
