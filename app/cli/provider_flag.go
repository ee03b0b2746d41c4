package cli

import (
	"strings"

	"github.com/loupeapp/loupe/agent/llm/provider"
)

// providerFlag is the --provider flag. The environment's OpenAI settings
// (OPENAI_API_KEY, bound to its own host, and OPENAI_BASE_URL) are read by
// provider.FromEnv only when LOUPE_PROVIDER says openai; when the flag is
// what chooses openai, Set reads them then, filling only what is still
// empty, so a --base-url given on either side of it wins and the key still
// goes only to the host it is for.
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
	f.c.Provider = strings.ToLower(strings.TrimSpace(s))
	if f.c.Provider != provider.OpenAI {
		return nil
	}
	if f.c.APIKey == "" {
		f.c.APIKey, f.c.KeyFor = provider.EnvKey(f.getenv)
	}
	if f.c.BaseURL == "" {
		f.c.BaseURL = strings.TrimSpace(f.getenv("OPENAI_BASE_URL"))
	}
	return nil
}
