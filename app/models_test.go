package app_test

import (
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
)

func TestListModelsMarksRecommendedAndToolless(t *testing.T) {
	e := newEnv(t, setup{models: []fake.Model{
		{Name: "qwen3:8b", Tools: true, ContextLength: 40960, Size: 5 << 30},
		{Name: "llama3.2:3b", Tools: true},
		fake.WithoutTools("gemma:2b"),
		{Name: "devstral:latest", Tools: true},
	}})
	ms, err := e.app.ListModels()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]app.ModelInfo{}
	for _, m := range ms {
		got[m.Name] = m
	}
	if m := got["qwen3:8b"]; !m.Recommended || !m.Tools || !m.ToolsKnown || m.ContextLength != 40960 || m.Size != 5<<30 || m.Warning != "" {
		t.Errorf("qwen3:8b %+v", m)
	}
	if m := got["devstral:latest"]; !m.Recommended {
		t.Errorf("devstral %+v", m)
	}
	if m := got["llama3.2:3b"]; m.Recommended || m.Warning != "" {
		t.Errorf("llama3.2 %+v", m)
	}
	if m := got["gemma:2b"]; m.Tools || !m.ToolsKnown || m.Warning == "" || m.Recommended {
		t.Errorf("gemma %+v", m)
	}
}

// TestPullModelStreamsProgress pulls through the fake server's /api/pull
// (the real SDK client): model:pull events from "pulling manifest" to
// "success", thinned, and the pulled model then listed.
func TestPullModelStreamsProgress(t *testing.T) {
	srv := fake.Start(t, fake.Options{Models: []fake.Model{{Name: "qwen3:8b", Tools: true}}, PullStep: 10 * time.Millisecond})
	e := newEnv(t, setup{})
	s, _ := e.app.GetSettings()
	s.OllamaURL = srv.OllamaURL()
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: *s}); err != nil {
		t.Fatal(err)
	}
	if err := e.app.PullModel("nomic-embed-text"); err != nil {
		t.Fatal(err)
	}
	var evs []app.PullProgress
	for _, d := range e.rec.of(app.EventModelPull) {
		evs = append(evs, d.(app.PullProgress))
	}
	if len(evs) < 4 || evs[0].Status != "pulling manifest" || evs[len(evs)-1].Status != "success" {
		t.Fatalf("pull events %+v", evs)
	}
	// the weights layer sends 11 lines ~10 ms apart: thinned to about ten
	// a second, its first line always sent
	layer, statuses := 0, map[string]bool{}
	for _, ev := range evs {
		statuses[ev.Status] = true
		if ev.Name != "nomic-embed-text" || ev.Completed > ev.Total {
			t.Errorf("progress %+v", ev)
		}
		if ev.Total == 1_000_000 {
			layer++
		}
	}
	if layer == 0 || layer > 4 {
		t.Errorf("%d progress events for the weights' 11 lines in ~110 ms", layer)
	}
	for _, st := range []string{"verifying sha256 digest", "writing manifest"} {
		if !statuses[st] {
			t.Errorf("status %q not sent: %v", st, statuses)
		}
	}
	ms, err := e.app.ListModels()
	if err != nil || len(ms) != 2 || ms[1].Name != "nomic-embed-text" || !ms[1].Embedding || ms[1].Warning != "" || ms[0].Embedding {
		t.Errorf("after the pull: %+v, %v", ms, err)
	}
	if err := e.app.PullModel("nonsense:1b"); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("unknown model: %v", err)
	}
	if err := e.app.PullModel(""); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("empty name: %v", err)
	}
	srv.Close()
	if err := e.app.PullModel("qwen3:14b"); codeOf(t, err) != app.CodeModelUnreachable {
		t.Errorf("Ollama gone: %v", err)
	}
	s.Provider = "openai"
	_ = e.app.SaveSettings(app.SettingsUpdate{Settings: *s})
	if err := e.app.PullModel("qwen3:8b"); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("pull with the openai provider: %v", err)
	}
}
