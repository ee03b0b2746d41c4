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
	if s.Model == "" && s.Provider != provider.Ollama {
		return Check{Message: "No model chosen", Hint: "Pick a model in Settings."}
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
		switch {
		case unreachable:
			msg = fmt.Sprintf("Cannot reach %s", where)
		case !strings.Contains(strings.ToLower(msg), strings.ToLower(where)):
			// The server's message names the address already: said once.
			msg = fmt.Sprintf("%s: %s", where, msg)
		}
		if s.Provider == provider.Ollama && unreachable {
			hint = InstallOllama
		}
		return Check{Message: msg, Hint: hint}
	}
	if s.Model == "" {
		return Check{Message: "No model chosen", Hint: pickOrPull(models)}
	}
	i := slices.IndexFunc(models, func(x llm.Model) bool { return SameModel(x.Name, s.Model) })
	if s.Provider == provider.Ollama && i < 0 {
		return Check{Message: fmt.Sprintf("%s is not installed in Ollama", s.Model),
			Hint: fmt.Sprintf("Pull it in Settings (or run `ollama pull %s`), or pick an installed model.", s.Model)}
	}
	if (i >= 0 && models[i].Embedding) || (i < 0 && IsEmbedding(s.Model)) {
		return Check{Message: fmt.Sprintf("%s only makes embeddings: it cannot answer questions", s.Model),
			Hint: "Pick a chat model (one marked “tools”) as the model; an embedding model belongs in “Embedding model”."}
	}
	if s.Provider == provider.OpenAI && i < 0 && len(models) > 0 {
		return Check{Message: fmt.Sprintf("%s does not offer %s", where, s.Model),
			Hint: fmt.Sprintf("Pick one of its models in Settings (it offers %s).", sample(models))}
	}
	return Check{OK: true, Message: fmt.Sprintf("%s on %s", s.Model, where)}
}

// IsEmbedding says whether a model, by its name, only makes embeddings
// (nomic-embed-text, text-embedding-3-small): servers that do not say so
// in their listing still name them so.
func IsEmbedding(name string) bool { return strings.Contains(strings.ToLower(name), "embed") }

// sample names a few of models, for a hint.
func sample(models []llm.Model) string {
	names := make([]string, 0, 3)
	for _, m := range models {
		if len(names) == 3 {
			names = append(names, "…")
			break
		}
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}

// AfterCall is the model's check after a real call to it (an answer's
// model call): OK when it answered, else what the failure says, so that
// the status bar shows the last real call rather than the last probe.
// ok is false when the call says nothing about the server (it was
// stopped, or the question did not fit).
func AfterCall(s config.Settings, err error) (c Check, ok bool) {
	where := "Ollama at " + s.OllamaURL
	if s.Provider == provider.OpenAI {
		where = s.OpenAIBaseURL
	}
	if err == nil {
		return Check{OK: true, Message: fmt.Sprintf("%s on %s", s.Model, where)}, true
	}
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind == llm.ContextTooLong {
		return Check{}, false
	}
	msg, hint, unreachable := explain(err)
	if unreachable {
		msg = fmt.Sprintf("Cannot reach %s", where)
	}
	return Check{Message: "The last answer failed: " + msg, Hint: hint}, true
}

// InstallOllama is what to do when no Ollama answers, as a first start
// without it says: install it, pull the suggested model, or use a hosted
// one instead; each step can be done without a terminal.
var InstallOllama = "Install Ollama from ollama.com/download and open it (if it is installed, open the Ollama app or run `ollama serve`), " +
	"then pull " + config.SuggestedModel + " in Settings (" + config.SuggestedModelSize + "). " +
	"Or use a hosted model: choose OpenAI-compatible in Settings and enter its address and key. If Ollama runs elsewhere, fix its address in Settings."

// pickOrPull says what to do when Ollama answers but no model is chosen:
// pick one of those installed, or pull the suggested one.
func pickOrPull(installed []llm.Model) string {
	pull := "pull " + config.SuggestedModel + " in Settings (" + config.SuggestedModelSize + "; it works well with Loupe's tools)"
	if len(installed) == 0 {
		return "Ollama has no model yet: " + pull + "."
	}
	return "Pick an installed model that supports tools in Settings, or " + pull + "."
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
	if s == "" || strings.HasPrefix(s, "http") {
		return s // an address stays as written
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
