package provider

import (
	"strings"

	"github.com/loupeapp/loupe/agent/llm/ollama"
	"github.com/loupeapp/loupe/agent/llm/openai"
)

// ServerURL is the address cfg's requests go to, defaults applied: what
// privacy.IsLocal and privacy.Default judge. An Ollama address that does
// not parse is returned as given (Open rejects it).
func ServerURL(cfg Config) string {
	base := strings.TrimSpace(cfg.BaseURL)
	if strings.EqualFold(strings.TrimSpace(cfg.Provider), OpenAI) {
		if base == "" {
			return openai.DefaultBaseURL
		}
		return base
	}
	u, err := ollama.ParseHost(base)
	if err != nil {
		return base
	}
	return u.String()
}
