package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
)

// A model server that redirects to another server does not take the
// request, its body or the key there. Go's client keeps Azure's api-key
// header on any redirect, and Authorization when only the port changes;
// the OpenAI SDK refuses such redirects itself (kept here as a guard), the
// Ollama client followed them, so a server on this machine (level open)
// could send the data on to another.
func TestNoRedirectToAnotherServer(t *testing.T) {
	var mu sync.Mutex
	var got []string // what the other server received
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization")+" api-key="+r.Header.Get("api-key"))
		mu.Unlock()
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer other.Close()
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer server.Close()
	for name, cfg := range map[string]Config{
		"openai": {Provider: OpenAI, BaseURL: server.URL + "/v1", APIKey: "sk-redirect-canary"},
		"azure":  {Provider: OpenAI, BaseURL: server.URL + "/openai", APIKey: "sk-redirect-canary", APIVersion: "2024-06-01"},
		"ollama": {BaseURL: server.URL},
	} {
		t.Run(name, func(t *testing.T) {
			cfg.Model, cfg.Retry = "m", llm.RetryPolicy{Retries: -1}
			p, err := Open(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "canary"}}}, nil)
			if err == nil || (name == "ollama" && !strings.Contains(err.Error(), "redirected to another server")) {
				t.Errorf("error %v, want the redirect refused", err)
			}
			if _, err := p.Models(context.Background()); err == nil {
				t.Error("listing models through the redirect worked")
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 0 {
				t.Errorf("the other server received %q", got)
			}
			got = nil
		})
	}
}
