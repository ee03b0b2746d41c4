package cli

import (
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/config"
)

// providerFlag is the --provider flag: config.SetProvider, which reads the
// environment's OpenAI settings when the flag is what chooses openai.
type providerFlag struct {
	c      *provider.Config
	getenv func(string) string
}

func (f providerFlag) String() string {
	if f.c == nil {
		return ""
	}
	return f.c.Provider
}

func (f providerFlag) Set(s string) error {
	config.SetProvider(f.c, s, f.getenv)
	return nil
}
