package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// published is one event the app sent to the frontend.
type published struct {
	name string
	data any
	at   time.Time
}

// recorder keeps every event the app publishes (Options.Emit).
type recorder struct {
	mu     sync.Mutex
	events []published
	notify chan struct{}
}

func newRecorder() *recorder { return &recorder{notify: make(chan struct{}, 1)} }

func (r *recorder) emit(name string, data any) {
	r.mu.Lock()
	r.events = append(r.events, published{name, data, time.Now()})
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

// of returns the data of every event called name.
func (r *recorder) of(name string) []any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []any
	for _, e := range r.events {
		if e.name == name {
			out = append(out, e.data)
		}
	}
	return out
}

// batches returns the run:events batches of runID.
func (r *recorder) batches(runID string) []app.RunEvents {
	var out []app.RunEvents
	for _, d := range r.of(app.EventRunEvents) {
		if b := d.(app.RunEvents); b.RunID == runID {
			out = append(out, b)
		}
	}
	return out
}

// waitFinished waits for runID's run_finished and returns its outcome and
// how long after start it arrived.
func (r *recorder) waitFinished(t *testing.T, runID string, within time.Duration) *agent.Outcome {
	t.Helper()
	deadline := time.After(within)
	for {
		for _, b := range r.batches(runID) {
			for _, e := range b.Events {
				if e.Type == agent.RunFinished {
					return e.Finished
				}
			}
		}
		select {
		case <-r.notify:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("run %s did not finish within %s", runID, within)
		}
	}
}

// env is an App over a temporary workspace and config folder, talking to
// a fake model server, with its events recorded.
type env struct {
	app     *app.App
	rec     *recorder
	srv     *fake.Server
	keys    *app.MemoryKeychain
	config  string
	saveDir string
	wsDir   string
}

type setup struct {
	turns   []fake.Turn
	respond func(fake.Request) fake.Turn
	models  []fake.Model
	model   string // default qwen3:8b; "-" for none chosen
	getenv  map[string]string
	docker  string
	// wsDir and config, when set, are the workspace and config folders
	// (t.TempDir's are made 0700 already; a test of what Loupe creates
	// names folders that do not exist yet).
	wsDir, config string
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	e := &env{rec: newRecorder(), keys: app.NewMemoryKeychain(), config: t.TempDir(), saveDir: t.TempDir()}
	e.srv = fake.Start(t, fake.Options{Turns: s.turns, Respond: s.respond, Models: s.models})
	getenv := func(k string) string { return s.getenv[k] }
	docker := s.docker
	if docker == "" {
		docker = "unix://" + t.TempDir() + "/no-docker.sock"
	}
	e.wsDir = t.TempDir()
	if s.wsDir != "" {
		e.wsDir = s.wsDir
	}
	if s.config != "" {
		e.config = s.config
	}
	e.app = app.New(app.Options{WorkspaceDir: e.wsDir, ConfigDir: e.config, Keychain: e.keys,
		Dialogs: app.SaveInto{Dir: e.saveDir}, Emit: e.rec.emit, Getenv: getenv, DockerHost: docker})
	t.Cleanup(func() { e.app.Shutdown(context.Background()) })
	model := s.model
	if model == "" {
		model = "qwen3:8b"
	}
	if model != "-" {
		err := e.app.SaveSettings(app.SettingsUpdate{Settings: app.Settings{Provider: "ollama", Model: model,
			OllamaURL: e.srv.OllamaURL(), OpenAIBaseURL: "https://api.openai.com/v1", MaxSteps: 8, TimeoutSeconds: 60, Theme: "system"}})
		if err != nil {
			t.Fatalf("save settings: %v", err)
		}
	}
	return e
}

// load opens the tooltest fixtures (orders, customers).
func (e *env) load(t *testing.T) {
	t.Helper()
	reps, err := e.app.OpenFiles([]string{tooltest.Fixture("orders.csv"), tooltest.Fixture("customers.csv")})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reps {
		if r.Error != nil {
			t.Fatalf("load %s: %v", r.File, r.Error)
		}
	}
}

// answered asks question in chat chatID and waits (30 s at most) for the
// run to finish; it fails the test unless the run is Done.
func (e *env) answered(t *testing.T, chatID, question string) *agent.Outcome {
	t.Helper()
	res, err := e.app.Ask(chatID, question)
	if err != nil {
		t.Fatal(err)
	}
	out := e.rec.waitFinished(t, res.RunID, 30*time.Second)
	if out.Status != agent.Done {
		t.Fatalf("outcome %s: %s", out.Status, out.Reason)
	}
	return out
}

// chat starts a conversation.
func (e *env) chat(t *testing.T) string {
	t.Helper()
	c, err := e.app.NewChat()
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// codeOf is err's app error code ("" when err is nil), failing the test
// when err is not an *app.Error.
func codeOf(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *app.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *app.Error", err, err)
	}
	return e.Code
}

// call is a fake tool call with args encoded as JSON.
func call(name string, args map[string]any) fake.Call {
	b, _ := json.Marshal(args)
	return fake.Call{Name: name, Args: string(b)}
}
