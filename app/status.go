package app

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// EventStatusChanged carries a Status whenever a check gives a new answer.
const EventStatusChanged = "status:changed"

// Check is one thing the status bar shows: whether it works, what was
// found, and how to fix it.
type Check struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
	// Action, when set, names what the app itself can do to fix it
	// (ActionBuildSandbox).
	Action string `json:"action,omitempty"`
}

// Status is the model's and Docker's availability.
type Status struct {
	Model  Check `json:"model"`
	Docker Check `json:"docker"`
}

// statusTimeout bounds each probe.
const statusTimeout = 3 * time.Second

// statusCache remembers the last status published.
type statusCache struct {
	mu   sync.Mutex
	last *Status
}

// Status checks whether the chosen model answers and whether Docker runs,
// and publishes status:changed when the answer changed.
func (a *App) Status() (*Status, error) {
	st := a.checkStatus(a.life)
	a.noteStatus(st)
	return &st, nil
}

func (a *App) refreshStatus(ctx context.Context) {
	a.noteStatus(a.checkStatus(ctx))
}

func (a *App) noteStatus(st Status) {
	a.status.mu.Lock()
	changed := a.status.last == nil || *a.status.last != st
	a.status.last = &st
	a.status.mu.Unlock()
	if changed {
		a.publish(EventStatusChanged, st)
	}
}

func (a *App) checkStatus(ctx context.Context) Status {
	var st Status
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); st.Model = a.checkModel(ctx) }()
	go func() { defer wg.Done(); st.Docker = checkDocker(ctx, a.dockerHost()) }()
	wg.Wait()
	return st
}

// checkModel lists the server's models and looks for the chosen one.
func (a *App) checkModel(ctx context.Context) Check {
	s, err := a.settings.get()
	if err != nil {
		e := AsError(err)
		return Check{Message: e.Message, Hint: e.Hint}
	}
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
	p, err := a.listingProvider(s)
	if err != nil {
		e := AsError(err)
		return Check{Message: e.Message, Hint: e.Hint}
	}
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	models, err := p.Models(ctx)
	if err != nil {
		if c, ok := a.settings.missingKey(s, err); ok {
			return c
		}
		e := AsError(err)
		msg := fmt.Sprintf("Cannot reach %s", where)
		if e.Code != CodeModelUnreachable {
			msg = fmt.Sprintf("%s: %s", where, e.Message)
		}
		hint := e.Hint
		if s.Provider == provider.Ollama && e.Code == CodeModelUnreachable {
			hint = "Start Ollama (open the Ollama app, or run `ollama serve`), or fix its address in Settings."
		}
		return Check{Message: msg, Hint: hint}
	}
	if s.Provider == provider.Ollama && !slices.ContainsFunc(models, func(m llm.Model) bool { return sameModel(m.Name, s.Model) }) {
		return Check{Message: fmt.Sprintf("%s is not installed in Ollama", s.Model),
			Hint: fmt.Sprintf("Pull it in Settings (or run `ollama pull %s`), or pick an installed model.", s.Model)}
	}
	return Check{OK: true, Message: fmt.Sprintf("%s on %s", s.Model, where)}
}

// missingKey is the check for an OpenAI-compatible server that refused
// a listing sent without a key because it has none of its own: "No API key
// for HOST", and, when a key is stored for another host, that it is not
// sent here.
func (s *settingsStore) missingKey(st Settings, err error) (Check, bool) {
	var le *llm.Error
	if st.Provider != provider.OpenAI || !errors.As(err, &le) || le.Kind != llm.Unauthorized {
		return Check{}, false
	}
	if key, _ := s.keyFor(st.OpenAIBaseURL); key != "" {
		return Check{}, false // a key of its own, refused: the server's message says why
	}
	host := provider.Origin(st.OpenAIBaseURL)
	hint := "Enter the API key for " + host + " in Settings."
	if st.APIKeyFor != "" && st.APIKeyFor != host {
		hint = "The key you saved for " + st.APIKeyFor + " is not sent to " + host + ". " + hint
	}
	return Check{Message: "No API key for " + host, Hint: hint}, true
}

// sameModel compares Ollama names, where "llama3" means "llama3:latest".
func sameModel(a, b string) bool {
	norm := func(s string) string {
		if !strings.Contains(s, ":") {
			s += ":latest"
		}
		return strings.ToLower(s)
	}
	return norm(a) == norm(b)
}

// listingProvider opens the provider the settings name for listing models:
// it fails fast (no retries), and works before a model is chosen.
func (a *App) listingProvider(s Settings) (llm.Provider, error) {
	cfg := a.modelConfig(s)
	if cfg.Model == "" {
		cfg.Model = "none" // listing needs no model; Open insists on one
	}
	cfg.Retry = llm.RetryPolicy{Retries: -1}
	return provider.Open(cfg)
}

func (a *App) dockerHost() string {
	if a.opts.DockerHost != "" {
		return a.opts.DockerHost
	}
	if h := a.opts.Getenv("DOCKER_HOST"); h != "" {
		return h
	}
	if runtime.GOOS == "windows" {
		return "npipe:////./pipe/docker_engine"
	}
	return "unix:///var/run/docker.sock"
}

// checkDocker checks what run_python needs: the Docker daemon at host and
// the sandbox image (tools/python/sandbox says why not and how to fix it).
// Nothing else in Loupe needs Docker.
func checkDocker(ctx context.Context, host string) Check {
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	sb, err := sandbox.New(sandbox.Config{Host: host})
	if err != nil {
		return Check{Message: "Docker at " + host + " cannot be used: " + err.Error(), Hint: "Python analysis needs Docker; everything else works without it."}
	}
	defer sb.Close()
	st := sb.Check(ctx)
	switch {
	case !st.OK && st.DockerVersion != "" && !strings.HasPrefix(st.Reason, "Docker"):
		// Docker answers (its own problems, such as Windows containers,
		// are said "Docker …"): the image is missing.
		return Check{Message: "Docker is running, but " + st.Reason, Action: ActionBuildSandbox,
			Hint: "Build the sandbox image (about 2 minutes with internet), or run `loupe sandbox build`. Python analysis needs it; everything else works without it."}
	case !st.OK:
		return Check{Message: st.Reason, Hint: st.Fix}
	case st.Stale:
		return Check{OK: true, Message: "Docker is running and the Python sandbox is ready (" + st.Image + ", built by an older recipe)",
			Hint: "Rebuild the sandbox image to bring it up to date.", Action: ActionBuildSandbox}
	}
	return Check{OK: true, Message: "Docker is running and the Python sandbox is ready (" + st.Image + ")"}
}
