package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
)

var fastRetry = llm.RetryPolicy{Base: time.Millisecond, Max: 5 * time.Millisecond}

func newProvider(t testing.TB, url string, cfg Config) *Provider {
	t.Helper()
	cfg.BaseURL = url
	if cfg.Model == "" {
		cfg.Model = "qwen3:8b"
	}
	if cfg.Retry.Base == 0 && cfg.Retry.Retries == 0 {
		cfg.Retry = fastRetry
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var question = llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "How many orders are there?"}}}

var sqlTool = llm.ToolSpec{Name: "run_sql", Description: "Run one read-only SQL query",
	Parameters: json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}`)}

func chat(t testing.TB, p *Provider, req llm.Request) (llm.Response, []llm.Delta, error) {
	t.Helper()
	var deltas []llm.Delta
	res, err := p.Chat(context.Background(), req, func(d llm.Delta) { deltas = append(deltas, d) })
	return res, deltas, err
}

func joined(ds []llm.Delta) (content, thinking string) {
	var c, th strings.Builder
	for _, d := range ds {
		if d.Restart {
			c.Reset()
			th.Reset()
		}
		c.WriteString(d.Content)
		th.WriteString(d.Thinking)
	}
	return c.String(), th.String()
}

// sse serves body (SSE text) at /v1/chat/completions.
func sse(t testing.TB, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestRecordedStreamWithToolCall(t *testing.T) {
	raw, err := os.ReadFile("testdata/openai-chat-stream-with-tool-calls.sse")
	if err != nil {
		t.Fatal(err)
	}
	p := newProvider(t, sse(t, string(raw)), Config{})
	res, deltas, err := chat(t, p, question)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{{ID: "call_FXoAjBUMcVv1k40fficJ9cSs", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Santorini, Greece"}`)}}
	if !reflect.DeepEqual(res.Message.ToolCalls, want) {
		t.Errorf("tool calls = %s", show(res.Message.ToolCalls))
	}
	c := res.Message.Content
	if !strings.HasPrefix(c, "Let's take a journey to the beautiful island of Santorini in Greece.\n\n") ||
		!strings.HasSuffix(c, "Now, let's check the weather in Santorini.") || strings.Contains(c, "location") {
		t.Errorf("content = %q", c)
	}
	if got, _ := joined(deltas); got != c || len(deltas) < 100 {
		t.Errorf("%d deltas joined to %q", len(deltas), got)
	}
	// Two usage chunks: summed as the SDK's own accumulator does.
	if res.Usage != (llm.Usage{PromptTokens: 10, CompletionTokens: 150}) || res.FinishReason != "tool_calls" {
		t.Errorf("usage %+v finish %q", res.Usage, res.FinishReason)
	}
}

func TestReasoningFields(t *testing.T) {
	chunk := func(delta string) string {
		return `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
	}
	body := chunk(`{"role":"assistant","content":null,"reasoning_content":"vLLM "}`) +
		chunk(`{"content":null,"reasoning":"OpenRouter"}`) +
		chunk(`{"content":"<think>inline</think>Answer","reasoning_content":null}`) +
		`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
		"data: [DONE]\n\n"
	res, _, err := chat(t, newProvider(t, sse(t, body), Config{}), question)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Content != "Answer" || res.Message.Thinking != "vLLM OpenRouterinline" {
		t.Errorf("content %q thinking %q", res.Message.Content, res.Message.Thinking)
	}
}

func TestChatStreamsContentAndThinking(t *testing.T) {
	tests := []struct {
		name              string
		turn              fake.Turn
		content, thinking string
		minDeltas         int
	}{
		{"plain answer in chunks", fake.Turn{Content: "There are 830 orders.", Chunks: 6}, "There are 830 orders.", "", 6},
		{"reasoning_content kept apart", fake.Turn{Thinking: "Count rows of orders.", Content: "830 orders.", Chunks: 3},
			"830 orders.", "Count rows of orders.", 6},
		{"<think> in content, tags split across chunks", fake.Turn{Content: "<think>count them</think>\n\n830 orders.", Chunks: 11},
			"830 orders.", "count them", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fake.New(t, tt.turn)
			res, deltas, err := chat(t, newProvider(t, s.OpenAIURL(), Config{}), question)
			if err != nil {
				t.Fatal(err)
			}
			if res.Message.Content != tt.content || res.Message.Thinking != tt.thinking {
				t.Errorf("message content %q thinking %q, want %q %q", res.Message.Content, res.Message.Thinking, tt.content, tt.thinking)
			}
			if c, th := joined(deltas); c != tt.content || th != tt.thinking {
				t.Errorf("deltas joined: content %q thinking %q", c, th)
			}
			if len(deltas) < tt.minDeltas {
				t.Errorf("%d deltas, want at least %d", len(deltas), tt.minDeltas)
			}
			if res.FinishReason != "stop" {
				t.Errorf("finish %q", res.FinishReason)
			}
		})
	}
}

func TestChatToolCalls(t *testing.T) {
	tests := []struct {
		name  string
		calls []fake.Call
		want  []llm.ToolCall
	}{
		{"object args", []fake.Call{{Name: "run_sql", Args: `{"sql":"SELECT count(*) FROM orders"}`, ID: "call_x"}},
			[]llm.ToolCall{{ID: "call_x", Name: "run_sql", Arguments: json.RawMessage(`{"sql":"SELECT count(*) FROM orders"}`)}}},
		{"args as a JSON string kept raw", []fake.Call{{Name: "run_sql", Args: `"{\"sql\":\"SELECT 1\"}"`, ID: "c1"}},
			[]llm.ToolCall{{ID: "c1", Name: "run_sql", Arguments: json.RawMessage(`"{\"sql\":\"SELECT 1\"}"`)}}},
		{"invalid JSON kept raw", []fake.Call{{Name: "run_sql", Args: `{'sql': 'SELECT 1',}`, ID: "c1"}},
			[]llm.ToolCall{{ID: "c1", Name: "run_sql", Arguments: json.RawMessage(`{'sql': 'SELECT 1',}`)}}},
		{"empty args become {}", []fake.Call{{Name: "list_datasets", Args: ``, ID: "c1"}},
			[]llm.ToolCall{{ID: "c1", Name: "list_datasets", Arguments: json.RawMessage(`{}`)}}},
		{"several calls, args split by index", []fake.Call{
			{Name: "describe_table", Args: `{"table":"orders"}`, ID: "a"},
			{Name: "run_sql", Args: `{"sql":"SELECT status, count(*) FROM orders GROUP BY 1"}`, ID: "b"},
			{Name: "list_datasets", Args: `{}`, ID: "c"}},
			[]llm.ToolCall{
				{ID: "a", Name: "describe_table", Arguments: json.RawMessage(`{"table":"orders"}`)},
				{ID: "b", Name: "run_sql", Arguments: json.RawMessage(`{"sql":"SELECT status, count(*) FROM orders GROUP BY 1"}`)},
				{ID: "c", Name: "list_datasets", Arguments: json.RawMessage(`{}`)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fake.New(t, fake.Turn{ToolCalls: tt.calls, Chunks: 5})
			req := question
			req.Tools = []llm.ToolSpec{sqlTool}
			res, _, err := chat(t, newProvider(t, s.OpenAIURL(), Config{}), req)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Message.ToolCalls, tt.want) {
				t.Errorf("tool calls:\n got %s\nwant %s", show(res.Message.ToolCalls), show(tt.want))
			}
			if res.FinishReason != "tool_calls" {
				t.Errorf("finish %q", res.FinishReason)
			}
			got := s.Requests()[0].Tools
			if len(got) != 1 || got[0].Name != "run_sql" || got[0].Description != sqlTool.Description {
				t.Errorf("tools offered = %+v", got)
			}
		})
	}
}

func show(calls []llm.ToolCall) string {
	var parts []string
	for _, c := range calls {
		parts = append(parts, fmt.Sprintf("{%s %s %s}", c.ID, c.Name, c.Arguments))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestCallsAllAtIndexZeroWithoutIDs(t *testing.T) {
	part := func(tc string) string {
		return `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[` + tc + `]},"finish_reason":null}]}` + "\n\n"
	}
	body := part(`{"index":0,"id":"call_a","type":"function","function":{"name":"run_sql","arguments":"{\"sql\":"}}`) +
		part(`{"index":0,"function":{"arguments":"\"SELECT 1\"}"}}`) +
		part(`{"index":0,"id":"call_b","type":"function","function":{"name":"list_datasets","arguments":"{}"}}`) +
		part(`{"index":1,"function":{"name":"sample_rows","arguments":"{\"table\":\"t\"}"}}`) +
		`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	res, _, err := chat(t, newProvider(t, sse(t, body), Config{}), question)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "call_a", Name: "run_sql", Arguments: json.RawMessage(`{"sql":"SELECT 1"}`)},
		{ID: "call_b", Name: "list_datasets", Arguments: json.RawMessage(`{}`)},
		{ID: "call_3", Name: "sample_rows", Arguments: json.RawMessage(`{"table":"t"}`)},
	}
	if !reflect.DeepEqual(res.Message.ToolCalls, want) {
		t.Errorf("tool calls = %s", show(res.Message.ToolCalls))
	}
}

func TestChatSendsHistoryAndToolResults(t *testing.T) {
	s := fake.New(t, fake.Text("830 orders."))
	temp := 0.2
	req := llm.Request{
		Temperature: &temp, MaxTokens: 512, Format: json.RawMessage(`{"type":"object"}`),
		Messages: []llm.Message{
			{Role: llm.System, Content: "You are Loupe."},
			{Role: llm.User, Content: "How many orders?"},
			{Role: llm.Assistant, Content: "Let me count.", Thinking: "never sent back", ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "run_sql", Arguments: json.RawMessage(`{"sql":"SELECT count(*) FROM orders"}`)},
				{ID: "call_2", Name: "run_sql", Arguments: json.RawMessage(`{'bad json`)}}},
			{Role: llm.Tool, ToolCallID: "call_1", Name: "run_sql", Content: "count\n830"},
			{Role: llm.Tool, ToolCallID: "call_2", Name: "run_sql", Content: "arguments are not valid JSON"},
		},
	}
	if _, _, err := chat(t, newProvider(t, s.OpenAIURL(), Config{}), req); err != nil {
		t.Fatal(err)
	}
	got := s.Requests()[0]
	if len(got.Messages) != 5 || got.Messages[0].Role != llm.System || got.Messages[2].Content != "Let me count." {
		t.Fatalf("server saw %+v", got.Messages)
	}
	if r := got.ToolResults(); len(r) != 2 || r[0].Content != "count\n830" || r[0].ToolCallID != "call_1" || r[1].ToolCallID != "call_2" {
		t.Errorf("tool results seen = %+v", r)
	}
	a := got.Messages[2]
	if a.Thinking != "" || strings.Contains(string(got.Body), "never sent back") {
		t.Error("thinking was sent back to the model")
	}
	if len(a.ToolCalls) != 2 || string(a.ToolCalls[1].Arguments) != `{'bad json` || a.ToolCalls[0].ID != "call_1" {
		t.Errorf("assistant tool calls seen = %s", show(a.ToolCalls))
	}
	if got.Temperature == nil || *got.Temperature != 0.2 || got.MaxTokens != 512 || !got.Stream || !got.IncludeUsage {
		t.Errorf("temperature %v max tokens %d stream %v include_usage %v", got.Temperature, got.MaxTokens, got.Stream, got.IncludeUsage)
	}
	if !strings.Contains(string(got.Body), `"max_tokens":512`) || !strings.Contains(string(got.Format), `"json_schema"`) {
		t.Errorf("body %s", got.Body)
	}
}

func TestUsage(t *testing.T) {
	s := fake.New(t, fake.Turn{Content: "hi", Usage: &llm.Usage{PromptTokens: 1234, CompletionTokens: 56}})
	res, _, err := chat(t, newProvider(t, s.OpenAIURL(), Config{}), question)
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage != (llm.Usage{PromptTokens: 1234, CompletionTokens: 56}) {
		t.Errorf("usage = %+v", res.Usage)
	}
}

func TestRetries(t *testing.T) {
	answer := fake.Turn{Content: "There are 830 orders.", Thinking: "count", Chunks: 4}
	tests := []struct {
		name     string
		turns    []fake.Turn
		restarts int
		minWait  time.Duration
	}{
		{"500 twice then ok", []fake.Turn{fake.Failing(fake.Status(500, "boom")), fake.Failing(fake.Status(500, "boom")), answer}, 0, 0},
		{"429 with Retry-After honoured", []fake.Turn{fake.Failing(&fake.Fault{Kind: fake.FaultStatus, Status: 429, RetryAfter: 700 * time.Millisecond}), answer}, 0, 700 * time.Millisecond},
		{"502 then ok", []fake.Turn{fake.Failing(fake.Status(502, "bad gateway")), answer}, 0, 0},
		{"stream cut mid-way", []fake.Turn{{Content: answer.Content, Thinking: "count", Chunks: 4, Fail: fake.CutAfter(5)}, answer}, 1, 0},
		{"cut before the first chunk", []fake.Turn{fake.Failing(fake.CutAfter(0)), answer}, 0, 0},
		{"connection dropped", []fake.Turn{fake.Failing(fake.Drop()), answer}, 0, 0},
		{"error event inside the stream", []fake.Turn{{Content: answer.Content, Chunks: 4, Fail: fake.StreamError(2, "upstream overloaded")}, answer}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fake.New(t, tt.turns...)
			start := time.Now()
			res, deltas, err := chat(t, newProvider(t, s.OpenAIURL(), Config{}), question)
			if err != nil {
				t.Fatal(err)
			}
			if el := time.Since(start); el < tt.minWait {
				t.Errorf("answered after %v, before Retry-After %v", el, tt.minWait)
			}
			if res.Message.Content != answer.Content || res.Message.Thinking != "count" {
				t.Errorf("message %+v", res.Message)
			}
			restarts := 0
			for _, d := range deltas {
				if d.Restart {
					restarts++
				}
			}
			if restarts != tt.restarts {
				t.Errorf("%d Restart deltas, want %d", restarts, tt.restarts)
			}
			if c, th := joined(deltas); c != answer.Content || th != "count" {
				t.Errorf("deltas after restarts: %q %q", c, th)
			}
			if s.Remaining() != 0 {
				t.Errorf("%d turns left unserved", s.Remaining())
			}
		})
	}
}

func TestSDKRetriesAreOff(t *testing.T) {
	s := fake.New(t, fake.Failing(fake.Status(500, "boom")), fake.Text("never reached"))
	_, _, err := chat(t, newProvider(t, s.OpenAIURL(), Config{Retry: llm.RetryPolicy{Retries: -1}}), question)
	if llm.KindOf(err) != llm.ServerError {
		t.Fatalf("err = %v, want ServerError", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("server saw %d requests with our retries off, want 1 (the SDK must not retry)", n)
	}
}

func TestConnectionRefusedThenUp(t *testing.T) {
	addr := freeAddr(t)
	p := newProvider(t, "http://"+addr+"/v1", Config{Retry: llm.RetryPolicy{Base: 100 * time.Millisecond, Max: 200 * time.Millisecond, Retries: 5}})
	time.AfterFunc(150*time.Millisecond, func() {
		s, err := fake.NewServer(fake.Options{Addr: addr, Turns: []fake.Turn{fake.Text("up now")}})
		if err != nil {
			t.Error(err)
			return
		}
		t.Cleanup(s.Close)
	})
	res, _, err := chat(t, p, question)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Content != "up now" {
		t.Errorf("content %q", res.Message.Content)
	}
}

func freeAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestErrors(t *testing.T) {
	var five []fake.Turn
	for range 5 {
		five = append(five, fake.Failing(fake.Status(503, "overloaded")))
	}
	one := func(f *fake.Fault) fake.Options { return fake.Options{Turns: []fake.Turn{fake.Failing(f)}} }
	tests := []struct {
		name     string
		opts     fake.Options
		cfg      Config
		path     string // appended to the server URL instead of /v1
		model    string
		tools    bool
		kind     llm.Kind
		hint     string // substring of the hint
		message  string // substring of the message
		requests int    // chat requests the server saw
	}{
		{name: "retries exhausted", opts: fake.Options{Turns: five}, kind: llm.ServerError, hint: "try again later", message: "overloaded", requests: 4},
		{name: "wrong key", opts: fake.Options{APIKey: "sk-right"}, cfg: Config{APIKey: "sk-wrong"},
			kind: llm.Unauthorized, hint: "OPENAI_API_KEY", message: "Incorrect API key"},
		{name: "missing key", opts: fake.Options{APIKey: "sk-right"}, kind: llm.Unauthorized, hint: "Settings"},
		{name: "unknown model", opts: fake.Options{Models: []fake.Model{{Name: "gpt-4o", Tools: true}}}, model: "gpt-5-mini",
			kind: llm.ModelNotFound, hint: "models the server lists", message: "gpt-5-mini", requests: 1},
		{name: "base URL without /v1", path: "/", kind: llm.BadRequest, hint: "/v1"},
		{name: "model without tools", opts: fake.Options{Models: []fake.Model{fake.WithoutTools("gemma:2b")}}, model: "gemma:2b", tools: true,
			kind: llm.ToolsUnsupported, hint: "tool", message: "gemma:2b", requests: 1},
		{name: "context length exceeded", opts: one(&fake.Fault{Kind: fake.FaultStatus, Status: 400, Code: "context_length_exceeded",
			Message: "This model's maximum context length is 8192 tokens."}), kind: llm.ContextTooLong, hint: "new chat", requests: 1},
		{name: "out of quota", opts: one(&fake.Fault{Kind: fake.FaultStatus, Status: 429, Code: "insufficient_quota", Message: "You exceeded your current quota"}),
			kind: llm.BadRequest, hint: "billing", requests: 1},
		{name: "rate limit beyond the cap", opts: one(fake.RateLimit(2 * time.Minute)), kind: llm.RateLimited, hint: "wait", requests: 1},
		{name: "error body as a plain string", opts: one(&fake.Fault{Kind: fake.FaultStatus, Status: 400, Body: `{"error":"Model is unloaded."}`}),
			kind: llm.BadRequest, message: "Model is unloaded.", requests: 1},
		{name: "context error inside the stream", opts: one(&fake.Fault{Kind: fake.FaultStreamError, Message: "prompt is too long: 9000 tokens, context length 8192"}),
			kind: llm.ContextTooLong, hint: "new chat", message: "prompt is too long: 9000", requests: 1},
		{name: "error body as text", opts: one(&fake.Fault{Kind: fake.FaultStatus, Status: 400, Body: "Bad things happened"}),
			kind: llm.BadRequest, message: "Bad things happened", requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fake.Start(t, tt.opts)
			url := s.OpenAIURL()
			if tt.path != "" {
				url = s.URL() + tt.path
			}
			p := newProvider(t, url, tt.cfg)
			req := question
			req.Model = tt.model
			if tt.tools {
				req.Tools = []llm.ToolSpec{sqlTool}
			}
			_, _, err := chat(t, p, req)
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if e.Kind != tt.kind || !strings.Contains(e.Hint, tt.hint) || !strings.Contains(e.Message, tt.message) {
				t.Errorf("got kind %s message %q hint %q; want %s, %q, %q", e.Kind, e.Message, e.Hint, tt.kind, tt.message, tt.hint)
			}
			if n := len(s.Requests()); n != tt.requests {
				t.Errorf("server saw %d chat requests, want %d", n, tt.requests)
			}
			if e.Kind == llm.RateLimited && e.RetryAfter != 2*time.Minute {
				t.Errorf("RetryAfter = %v, want 2m", e.RetryAfter)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	url := "http://" + freeAddr(t) + "/v1"
	_, _, err := chat(t, newProvider(t, url, Config{}), question)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Unreachable {
		t.Fatalf("err = %v, want Unreachable", err)
	}
	if want := "nothing answers at " + url + " — is the server running?"; !strings.HasPrefix(e.Error(), "openai: "+want) {
		t.Errorf("error = %q, want it to say %q", e.Error(), want)
	}
}

func TestAuthHeaders(t *testing.T) {
	tests := []struct {
		name          string
		cfg           Config
		auth, apiKey  string
		apiVersionArg string
	}{
		{"no key for local servers", Config{}, "", "", ""},
		{"bearer key", Config{APIKey: "sk-test"}, "Bearer sk-test", "", ""},
		{"azure key and api-version", Config{APIKey: "az-key", APIVersion: "2024-10-21"}, "", "az-key", "2024-10-21"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fake.New(t, fake.Text("ok"))
			if _, _, err := chat(t, newProvider(t, s.OpenAIURL(), tt.cfg), question); err != nil {
				t.Fatal(err)
			}
			r := s.Requests()[0]
			if r.Header.Get("Authorization") != tt.auth || r.Header.Get("Api-Key") != tt.apiKey || r.Query.Get("api-version") != tt.apiVersionArg {
				t.Errorf("Authorization %q api-key %q api-version %q", r.Header.Get("Authorization"), r.Header.Get("Api-Key"), r.Query.Get("api-version"))
			}
		})
	}
}

func TestEnvironmentDoesNotLeakIntoRequests(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://192.0.2.1/v1")
	s := fake.New(t, fake.Text("ok"))
	if _, _, err := chat(t, newProvider(t, s.OpenAIURL(), Config{}), question); err != nil {
		t.Fatal(err)
	}
	if h := s.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("a key from the environment was sent: %q", h)
	}
}

func TestCancelDuringHangingStream(t *testing.T) {
	for _, after := range []int{0, 2} {
		s := fake.New(t, fake.Turn{Content: "a long answer that never ends", Chunks: 5, Fail: fake.HangAfter(after)})
		p := newProvider(t, s.OpenAIURL(), Config{})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		_, err := p.Chat(ctx, question, nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("after %d chunks: err = %v, want context.Canceled", after, err)
		}
		if el := time.Since(start); el > time.Second {
			t.Errorf("after %d chunks: returned %v after start, want within 1s of cancel", after, el)
		}
	}
}

func TestStallTimeoutRetries(t *testing.T) {
	answer := fake.Turn{Content: "done at last", Chunks: 3}
	s := fake.New(t, fake.Turn{Content: answer.Content, Chunks: 3, Fail: fake.HangAfter(1)}, answer)
	res, deltas, err := chat(t, newProvider(t, s.OpenAIURL(), Config{StallTimeout: 150 * time.Millisecond}), question)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Content != answer.Content || !deltas[1].Restart {
		t.Errorf("content %q deltas %+v", res.Message.Content, deltas)
	}
}

func TestModels(t *testing.T) {
	s := fake.Start(t, fake.Options{Models: []fake.Model{
		{Name: "qwen/qwen3-8b", Tools: true, ContextLength: 40960},
		{Name: "gpt-oss-20b", Tools: true, ContextLength: 131072},
	}})
	got, err := newProvider(t, s.OpenAIURL(), Config{}).Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Model{{Name: "qwen/qwen3-8b", ContextLength: 40960}, {Name: "gpt-oss-20b", ContextLength: 131072}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("models = %+v, want %+v", got, want)
	}
}

func BenchmarkChatRoundTrip(b *testing.B) {
	s := fake.Start(b, fake.Options{Respond: func(fake.Request) fake.Turn {
		return fake.Turn{Content: "830 orders.", ToolCalls: []fake.Call{{Name: "run_sql", Args: `{"sql":"SELECT 1"}`}}}
	}})
	p := newProvider(b, s.OpenAIURL(), Config{})
	req := question
	req.Tools = []llm.ToolSpec{sqlTool}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Chat(ctx, req, func(llm.Delta) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// A request's CacheKey goes out as prompt_cache_key. A server that refuses
// the field (as strict compatible servers refuse one they do not know) is
// asked again without it, and not sent one again.
func TestPromptCacheKey(t *testing.T) {
	q := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, CacheKey: "loupe-abc"}
	s := fake.New(t, fake.Text("a"))
	if _, _, err := chat(t, newProvider(t, s.OpenAIURL(), Config{}), q); err != nil {
		t.Fatal(err)
	}
	if r := s.Requests(); len(r) != 1 || r[0].CacheKey != "loupe-abc" {
		t.Fatalf("requests %+v, want one with prompt_cache_key loupe-abc", r)
	}

	strict := fake.Start(t, fake.Options{Respond: func(r fake.Request) fake.Turn {
		if r.CacheKey != "" {
			return fake.Failing(fake.Status(400, "Unrecognized request argument supplied: prompt_cache_key"))
		}
		return fake.Text("ok")
	}})
	p := newProvider(t, strict.OpenAIURL(), Config{})
	for range 2 {
		if res, _, err := chat(t, p, q); err != nil || res.Message.Content != "ok" {
			t.Fatalf("strict server: %q, %v", res.Message.Content, err)
		}
	}
	r := strict.Requests()
	if len(r) != 3 || r[0].CacheKey != "loupe-abc" || r[1].CacheKey != "" || r[2].CacheKey != "" {
		t.Errorf("strict server saw %d requests, keys %q; want the key once, then none", len(r), keys(r))
	}
}

func keys(rs []fake.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.CacheKey)
	}
	return out
}
