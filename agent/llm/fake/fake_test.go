package fake

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
)

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestOllamaRequestDecoded(t *testing.T) {
	s := New(t, Text("ok"))
	post(t, s.OllamaURL()+"/api/chat", `{"model":"qwen3:8b","stream":false,"keep_alive":"5m","think":true,
		"options":{"num_ctx":8192,"num_predict":64,"temperature":0.1},
		"tools":[{"type":"function","function":{"name":"run_sql","description":"d","parameters":{"type":"object"}}}],
		"messages":[{"role":"user","content":"q"},
		  {"role":"assistant","content":"","tool_calls":[{"function":{"name":"run_sql","arguments":{"sql":"SELECT 1"}}}]},
		  {"role":"tool","content":"1","tool_name":"run_sql"}]}`)
	r := s.Requests()[0]
	want := []llm.Message{
		{Role: llm.User, Content: "q"},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{Name: "run_sql", Arguments: json.RawMessage(`{"sql":"SELECT 1"}`)}}},
		{Role: llm.Tool, Content: "1", Name: "run_sql"},
	}
	got, _ := json.Marshal(r.Messages)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Errorf("messages\n got %s\nwant %s", got, exp)
	}
	if r.Wire != "ollama" || r.NumCtx != 8192 || r.MaxTokens != 64 || *r.Temperature != 0.1 || r.Stream ||
		string(r.KeepAlive) != `"5m"` || string(r.Think) != "true" || len(r.Tools) != 1 || r.Tools[0].Description != "d" {
		t.Errorf("request decoded as %+v", r)
	}
}

func TestNonStreamingAnswers(t *testing.T) {
	s := New(t, Turn{Content: "hi", Thinking: "th", ToolCalls: []Call{{Name: "f", Args: `{"a":1}`}}, Chunks: 3},
		Turn{Content: "hi", ToolCalls: []Call{{Name: "f", Args: `{"a":1}`}}})
	_, body := post(t, s.OllamaURL()+"/api/chat", `{"model":"m","stream":false,"messages":[]}`)
	var o struct {
		Message struct {
			Content, Thinking string
			ToolCalls         []struct{ Function struct{ Name string } } `json:"tool_calls"`
		}
		Done bool
	}
	if err := json.Unmarshal([]byte(body), &o); err != nil || !o.Done || o.Message.Content != "hi" || o.Message.Thinking != "th" || len(o.Message.ToolCalls) != 1 {
		t.Errorf("ollama non-streaming answer %s (%v)", body, err)
	}
	_, body = post(t, s.OpenAIURL()+"/chat/completions", `{"model":"m","messages":[]}`)
	var c struct {
		Object  string
		Choices []struct {
			Message struct {
				Content   string
				ToolCalls []struct{ ID string } `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil || c.Object != "chat.completion" || c.Choices[0].Message.Content != "hi" ||
		c.Choices[0].FinishReason != "tool_calls" || c.Choices[0].Message.ToolCalls[0].ID != "call_1_1" {
		t.Errorf("openai non-streaming answer %s (%v)", body, err)
	}
}

func TestOpenAIStreamShape(t *testing.T) {
	s := New(t, Turn{Content: "abcdef", ToolCalls: []Call{{Name: "f", Args: `{"x":12}`}}, Chunks: 2})
	res, err := http.Post(s.OpenAIURL()+"/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"q"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	var data []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, d)
		}
	}
	// 2 content + 1 call head + 2 argument pieces, finish, usage, [DONE].
	if len(data) != 8 || data[7] != "[DONE]" {
		t.Fatalf("%d events: %q", len(data), data)
	}
	for _, want := range []string{`"role":"assistant"`, `"content":"abc"`, `"name":"f"`, `"arguments":"{\"x\""`, `"finish_reason":"tool_calls"`, `"prompt_tokens"`} {
		if !strings.Contains(strings.Join(data, "\n"), want) {
			t.Errorf("stream lacks %s", want)
		}
	}
}

func TestScriptControls(t *testing.T) {
	s := New(t, Text("one"))
	s.Push(Text("two"))
	if s.Remaining() != 2 {
		t.Fatalf("Remaining = %d", s.Remaining())
	}
	for _, want := range []string{"one", "two"} {
		if _, body := post(t, s.OllamaURL()+"/api/chat", `{"model":"llama3","stream":false,"messages":[]}`); !strings.Contains(body, want) {
			t.Errorf("answer %s, want %q", body, want)
		}
	}
	res, body := post(t, s.OllamaURL()+"/api/chat", `{"model":"llama3","messages":[]}`)
	if res.StatusCode != 400 || !strings.Contains(body, "no scripted turn left for request 2") {
		t.Errorf("exhausted script: %d %s", res.StatusCode, body)
	}
	if s.Hits("/api/chat") != 3 || len(s.Requests()) != 3 {
		t.Errorf("hits %d requests %d", s.Hits("/api/chat"), len(s.Requests()))
	}
}

func TestRespondSeesRequests(t *testing.T) {
	s := Start(t, Options{Respond: func(r Request) Turn {
		return Text(r.Wire + " " + r.Last().Content + " #" + string(rune('0'+r.N)))
	}})
	_, body := post(t, s.OpenAIURL()+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"parts"}]}]}`)
	if !strings.Contains(body, "openai parts #0") {
		t.Errorf("answer %s", body)
	}
}

func TestModelsAndNames(t *testing.T) {
	s := Start(t, Options{Models: []Model{{Name: "llama3", Tools: true, ContextLength: 8192}, WithoutTools("gemma:2b")}})
	if res, _ := post(t, s.OllamaURL()+"/api/show", `{"model":"llama3:latest"}`); res.StatusCode != 200 {
		t.Errorf("llama3:latest not found as llama3: %d", res.StatusCode)
	}
	_, body := post(t, s.OllamaURL()+"/api/show", `{"model":"llama3"}`)
	if !strings.Contains(body, `"llama3.context_length":8192`) || !strings.Contains(body, `"tools"`) {
		t.Errorf("show: %s", body)
	}
	if res, body := post(t, s.OllamaURL()+"/api/show", `{"model":"nope"}`); res.StatusCode != 404 || !strings.Contains(body, "not found") {
		t.Errorf("show unknown: %d %s", res.StatusCode, body)
	}
	res, body := post(t, s.OllamaURL()+"/api/chat", `{"model":"gemma:2b","messages":[],"tools":[{"type":"function","function":{"name":"f"}}]}`)
	if res.StatusCode != 400 || !strings.Contains(body, "registry.ollama.ai/library/gemma:2b does not support tools") {
		t.Errorf("no tools: %d %s", res.StatusCode, body)
	}
	for _, path := range []string{"/api/tags", "/v1/models", "/api/version"} {
		r, err := http.Get(s.URL() + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		r.Body.Close()
		if r.StatusCode != 200 {
			t.Errorf("GET %s: %s", path, r.Status)
		}
	}
}

func TestCloseEndsHangingRequests(t *testing.T) {
	s, err := NewServer(Options{Turns: []Turn{Failing(HangAfter(0))}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err := http.Post(s.OllamaURL()+"/api/chat", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
		if err == nil {
			res.Body.Close()
		}
	}()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	s.Close()
	<-done
	if el := time.Since(start); el > time.Second {
		t.Errorf("Close took %v with a hanging request", el)
	}
}

func TestFaultAfterMoreChunksThanTheAnswerStrikesAtItsEnd(t *testing.T) {
	s := New(t, Turn{Content: "two pieces", Chunks: 2, Fail: CutAfter(50)})
	res, err := http.Post(s.OllamaURL()+"/api/chat", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err == nil {
		t.Errorf("stream ended cleanly, want it cut: %s", body)
	}
	if lines := strings.Count(string(body), "\n"); lines != 2 || strings.Contains(string(body), `"done":true`) {
		t.Errorf("got %d lines before the cut, want the 2 content chunks and no done line: %s", lines, body)
	}
}
