package status

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/config"
)

// Server is the model server the settings name, as the model check needs
// it.
type Server struct {
	// Settings are the settings, or Err why they cannot be read.
	Settings config.Settings
	Err      error
	// Open opens the server for listing (config.OpenListing).
	Open func() (llm.Provider, error)
	// HasKey says whether a key is sent to an OpenAI-compatible baseURL
	// (config.Store.KeyFor).
	HasKey func(baseURL string) bool
}

// CheckModel lists the server's models and looks for the chosen one.
func CheckModel(ctx context.Context, m Server) Check {
	if m.Err != nil {
		msg, hint, _ := explain(m.Err)
		return Check{Message: msg, Hint: hint}
	}
	s := m.Settings
	where := "Ollama at " + s.OllamaURL
	if s.Provider == provider.OpenAI {
		where = s.OpenAIBaseURL
	}
	if s.Model == "" {
		hint := "Pick a model in Settings."
		if s.Provider == provider.Ollama {
			hint = "Start Ollama, then pick an installed model (one that supports tools) in Settings."
		}
		return Check{Message: "No model chosen", Hint: hint}
	}
	p, err := m.Open()
	if err != nil {
		msg, hint, _ := explain(err)
		return Check{Message: msg, Hint: hint}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	models, err := p.Models(ctx)
	if err != nil {
		if c, ok := missingKey(m, err); ok {
			return c
		}
		msg, hint, unreachable := explain(err)
		if unreachable {
			msg = fmt.Sprintf("Cannot reach %s", where)
		} else {
			msg = fmt.Sprintf("%s: %s", where, msg)
		}
		if s.Provider == provider.Ollama && unreachable {
			hint = "Start Ollama (open the Ollama app, or run `ollama serve`), or fix its address in Settings."
		}
		return Check{Message: msg, Hint: hint}
	}
	if s.Provider == provider.Ollama && !slices.ContainsFunc(models, func(x llm.Model) bool { return SameModel(x.Name, s.Model) }) {
		return Check{Message: fmt.Sprintf("%s is not installed in Ollama", s.Model),
			Hint: fmt.Sprintf("Pull it in Settings (or run `ollama pull %s`), or pick an installed model.", s.Model)}
	}
	return Check{OK: true, Message: fmt.Sprintf("%s on %s", s.Model, where)}
}

// missingKey is the check for an OpenAI-compatible server that refused
// a listing sent without a key because it has none of its own: "No API key
// for HOST", and, when a key is stored for another host, that it is not
// sent here.
func missingKey(m Server, err error) (Check, bool) {
	st := m.Settings
	var le *llm.Error
	if st.Provider != provider.OpenAI || !errors.As(err, &le) || le.Kind != llm.Unauthorized {
		return Check{}, false
	}
	if m.HasKey(st.OpenAIBaseURL) {
		return Check{}, false // a key of its own, refused: the server's message says why
	}
	host := provider.Origin(st.OpenAIBaseURL)
	hint := "Enter the API key for " + host + " in Settings."
	if st.APIKeyFor != "" && st.APIKeyFor != host {
		hint = "The key you saved for " + st.APIKeyFor + " is not sent to " + host + ". " + hint
	}
	return Check{Message: "No API key for " + host, Hint: hint}, true
}

// SameModel compares Ollama names, where "llama3" means "llama3:latest".
func SameModel(a, b string) bool {
	norm := func(s string) string {
		if !strings.Contains(s, ":") {
			s += ":latest"
		}
		return strings.ToLower(s)
	}
	return norm(a) == norm(b)
}

// explain says err as the status bar does: what went wrong, what to do,
// and whether nothing answered at the server's address.
func explain(err error) (msg, hint string, unreachable bool) {
	var (
		ce  *config.Error
		le  *llm.Error
		pce *provider.ConfigError
	)
	switch {
	case errors.As(err, &ce):
		return ce.Message, ce.Hint, ce.Kind == config.KindUnreachable
	case errors.As(err, &le):
		return upperFirst(le.Message), le.Hint, le.Kind == llm.Unreachable
	case errors.As(err, &pce):
		return upperFirst(pce.Message), pce.Hint, false
	case errors.Is(err, context.Canceled):
		return "stopped", "", false
	}
	return upperFirst(err.Error()), "This looks like a bug or a problem with this computer; the log has details.", false
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
