package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
)

// EventStatusChanged carries a Status whenever a check gives a new answer.
const EventStatusChanged = "status:changed"

// Check is one thing the status bar shows: whether it works, what was
// found, and how to fix it.
type Check struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
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
	cfg := a.settings.providerConfig(s)
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

// checkDocker pings the daemon at host (unix:// or tcp://) with
// GET /_ping. The Python sandbox needs it; nothing else does.
func checkDocker(ctx context.Context, host string) Check {
	const hint = "Python analysis needs Docker: start Docker Desktop (or the docker service). Everything else works without it."
	u, err := url.Parse(host)
	if err != nil {
		return Check{Message: fmt.Sprintf("DOCKER_HOST %q is not valid", host), Hint: "Use unix:///path/to/docker.sock or tcp://host:port."}
	}
	var network, addr string
	switch u.Scheme {
	case "unix":
		network, addr = "unix", u.Path
	case "tcp", "http":
		network, addr = "tcp", u.Host
	default:
		return Check{Message: "Docker at " + host + " is not checked", Hint: hint}
	}
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, addr)
	if errors.Is(err, fs.ErrPermission) {
		return Check{Message: "Docker runs, but you may not use it (" + addr + ")",
			Hint: "Add your user to the docker group (then log in again), or use Docker Desktop."}
	}
	if err != nil {
		return Check{Message: "Docker is not running", Hint: hint}
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://docker/_ping", nil)
	if err := req.Write(conn); err != nil {
		return Check{Message: "Docker does not answer", Hint: hint}
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		return Check{Message: "Docker does not answer", Hint: hint}
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return Check{Message: fmt.Sprintf("Docker answers %s", res.Status), Hint: hint}
	}
	return Check{OK: true, Message: "Docker is running"}
}
