package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
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

// pullServer speaks Ollama's streaming /api/pull: a manifest line, layer
// progress, then success — or an error line for an unknown model.
func pullServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/pull" {
			http.NotFound(w, r)
			return
		}
		var req struct{ Model string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/x-ndjson")
		fl := w.(http.Flusher)
		line := func(v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "%s\n", b)
			fl.Flush()
		}
		if req.Model != "qwen3:8b" {
			line(map[string]any{"error": "pull model manifest: file does not exist"})
			return
		}
		line(map[string]any{"status": "pulling manifest"})
		for done := int64(0); done <= 1000; done += 50 {
			line(map[string]any{"status": "pulling abc123", "digest": "sha256:abc123", "total": 1000, "completed": done})
			time.Sleep(10 * time.Millisecond)
		}
		line(map[string]any{"status": "verifying sha256 digest"})
		line(map[string]any{"status": "success"})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPullModelStreamsProgress(t *testing.T) {
	e := newEnv(t, setup{})
	s, _ := e.app.GetSettings()
	s.OllamaURL = pullServer(t).URL
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: *s}); err != nil {
		t.Fatal(err)
	}
	if err := e.app.PullModel("qwen3:8b"); err != nil {
		t.Fatal(err)
	}
	var evs []app.PullProgress
	for _, d := range e.rec.of(app.EventModelPull) {
		evs = append(evs, d.(app.PullProgress))
	}
	if len(evs) < 4 || evs[0].Status != "pulling manifest" || evs[len(evs)-1].Status != "success" {
		t.Fatalf("pull events %+v", evs)
	}
	// 21 progress lines over ~200 ms are thinned to about 10 a second.
	layer := 0
	for _, ev := range evs {
		if ev.Status == "pulling abc123" {
			layer++
			if ev.Total != 1000 || ev.Name != "qwen3:8b" {
				t.Errorf("progress %+v", ev)
			}
		}
	}
	if layer == 0 || layer > 6 {
		t.Errorf("%d layer progress events for 21 lines in ~210 ms", layer)
	}
	if err := e.app.PullModel("nonsense:1b"); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("unknown model: %v", err)
	}
	if err := e.app.PullModel(""); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("empty name: %v", err)
	}
	s.Provider = "openai"
	_ = e.app.SaveSettings(app.SettingsUpdate{Settings: *s})
	if err := e.app.PullModel("qwen3:8b"); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("pull with the openai provider: %v", err)
	}
}
