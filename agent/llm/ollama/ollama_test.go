package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
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
	Parameters: json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string","description":"the query"}},"required":["sql"]}`)}

// chat runs one Chat and collects its deltas.
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

func TestChatStreamsContentAndThinking(t *testing.T) {
	tests := []struct {
		name              string
		turn              fake.Turn
		content, thinking string
		minDeltas         int
	}{
		{"plain answer in chunks", fake.Turn{Content: "There are 830 orders.", Chunks: 6}, "There are 830 orders.", "", 6},
		{"native thinking kept apart", fake.Turn{Thinking: "Count rows of orders.", Content: "830 orders.", Chunks: 3},
			"830 orders.", "Count rows of orders.", 6},
		{"<think> in content, tags split across chunks", fake.Turn{Content: "<think>count them</think>\n\n830 orders.", Chunks: 11},
			"830 orders.", "count them", 3},
		{"unicode split safely", fake.Turn{Content: "Umsatz: 12 € — größer", Chunks: 9}, "Umsatz: 12 € — größer", "", 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fake.New(t, tt.turn)
			res, deltas, err := chat(t, newProvider(t, s.OllamaURL(), Config{}), question)
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
				t.Errorf("%d deltas, want at least %d (streamed, not buffered)", len(deltas), tt.minDeltas)
			}
			if res.Message.Role != llm.Assistant || res.FinishReason != "stop" {
				t.Errorf("role %q finish %q", res.Message.Role, res.FinishReason)
			}
		})
	}
}

func TestChatToolCalls(t *testing.T) {
	tests := []struct {
		name    string
		calls   []fake.Call
		want    []llm.ToolCall
		content string // text the call became, when Ollama could not parse it
	}{
		{"one call, made-up id", []fake.Call{{Name: "run_sql", Args: `{"sql":"SELECT count(*) FROM orders"}`}},
			[]llm.ToolCall{{ID: "call_1", Name: "run_sql", Arguments: json.RawMessage(`{"sql":"SELECT count(*) FROM orders"}`)}}, ""},
		{"several calls keep order and args order", []fake.Call{
			{Name: "describe_table", Args: `{"table":"orders","samples":3}`},
			{Name: "run_sql", Args: `{"sql":"SELECT 1","limit":5}`, ID: "call_abc"},
			{Name: "list_datasets", Args: `{}`}},
			[]llm.ToolCall{
				{ID: "call_1", Name: "describe_table", Arguments: json.RawMessage(`{"table":"orders","samples":3}`)},
				{ID: "call_abc", Name: "run_sql", Arguments: json.RawMessage(`{"sql":"SELECT 1","limit":5}`)},
				{ID: "call_3", Name: "list_datasets", Arguments: json.RawMessage(`{}`)}}, ""},
		{"string args arrive as text", []fake.Call{{Name: "run_sql", Args: `"{\"sql\":\"SELECT 1\"}"`}},
			nil, `{"name": "run_sql", "arguments": "{\"sql\":\"SELECT 1\"}"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fake.New(t, fake.Turn{ToolCalls: tt.calls, Chunks: 4})
			req := question
			req.Tools = []llm.ToolSpec{sqlTool}
			res, _, err := chat(t, newProvider(t, s.OllamaURL(), Config{}), req)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Message.ToolCalls, tt.want) {
				t.Errorf("tool calls:\n got %s\nwant %s", show(res.Message.ToolCalls), show(tt.want))
			}
			if res.Message.Content != tt.content {
				t.Errorf("content %q, want %q", res.Message.Content, tt.content)
			}
			if len(tt.want) > 0 && res.FinishReason != "tool_calls" {
				t.Errorf("finish %q, want tool_calls", res.FinishReason)
			}
			got := s.Requests()[0].Tools
			if len(got) != 1 || got[0].Name != "run_sql" || !strings.Contains(string(got[0].Parameters), `"required":["sql"]`) {
				t.Errorf("tools offered = %+v", got)
			}
		})
	}
}

func show(calls []llm.ToolCall) string {
	b, _ := json.Marshal(calls)
	return string(b)
}

func TestChatSendsHistoryAndToolResults(t *testing.T) {
	s := fake.New(t, fake.Text("830 orders."))
	temp := 0.2
	req := llm.Request{
		Temperature: &temp, MaxTokens: 512,
		Messages: []llm.Message{
			{Role: llm.System, Content: "You are Loupe."},
			{Role: llm.User, Content: "How many orders?"},
			{Role: llm.Assistant, Thinking: "never sent back", ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "run_sql", Arguments: json.RawMessage(`{"sql":"SELECT count(*) FROM orders"}`)},
				{ID: "call_2", Name: "run_sql", Arguments: json.RawMessage(`"{\"sql\":\"SELECT 2\"}"`)}}},
			{Role: llm.Tool, ToolCallID: "call_1", Name: "run_sql", Content: "count\n830"},
			{Role: llm.Tool, ToolCallID: "call_2", Name: "run_sql", Content: "error: bad"},
		},
	}
	if _, _, err := chat(t, newProvider(t, s.OllamaURL(), Config{}), req); err != nil {
		t.Fatal(err)
	}
	got := s.Requests()[0]
	if len(got.Messages) != 5 {
		t.Fatalf("server saw %d messages, want 5", len(got.Messages))
	}
	if r := got.ToolResults(); len(r) != 2 || r[0].Content != "count\n830" || r[0].Name != "run_sql" || r[0].ToolCallID != "call_1" {
		t.Errorf("tool results seen = %+v", r)
	}
	a := got.Messages[2]
	if a.Thinking != "" {
		t.Errorf("thinking was sent back to the model: %q", a.Thinking)
	}
	if len(a.ToolCalls) != 2 || string(a.ToolCalls[0].Arguments) != `{"sql":"SELECT count(*) FROM orders"}` ||
		string(a.ToolCalls[1].Arguments) != `{"sql":"SELECT 2"}` {
		t.Errorf("assistant tool calls seen = %s", show(a.ToolCalls))
	}
	if got.Temperature == nil || *got.Temperature != 0.2 || got.MaxTokens != 512 || !got.Stream {
		t.Errorf("temperature %v max tokens %d stream %v", got.Temperature, got.MaxTokens, got.Stream)
	}
}

func TestNumCtxFromModelInfo(t *testing.T) {
	tests := []struct {
		name       string
		ctxLen     int
		maxContext int
		want       int
	}{
		{"capped by the default", 131072, 0, DefaultMaxContext},
		{"model smaller than the cap", 8192, 0, 8192},
		{"configured cap", 40960, 4096, 4096},
		{"configured cap above the model", 8192, 65536, 8192},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fake.Start(t, fake.Options{
				Models: []fake.Model{{Name: "llama3.1:8b", Tools: true, ContextLength: tt.ctxLen}},
				Turns:  []fake.Turn{fake.Text("a"), fake.Text("b")},
			})
			p := newProvider(t, s.OllamaURL(), Config{Model: "llama3.1:8b", MaxContext: tt.maxContext})
			for range 2 {
				if _, _, err := chat(t, p, question); err != nil {
					t.Fatal(err)
				}
			}
			for _, r := range s.Requests() {
				if r.NumCtx != tt.want {
					t.Errorf("num_ctx = %d, want %d", r.NumCtx, tt.want)
				}
			}
			if n := s.Hits("/api/show"); n != 1 {
				t.Errorf("/api/show asked %d times, want once (cached)", n)
			}
			if n, err := p.ContextLength(context.Background(), ""); err != nil || n != tt.want {
				t.Errorf("ContextLength = %d, %v; want %d", n, err, tt.want)
			}
		})
	}
}

// keep_alive goes with every chat request: the configured one, else
// DefaultKeepAlive.
func TestKeepAliveAndThinkSent(t *testing.T) {
	s := fake.New(t, fake.Text("a"), fake.Text("b"))
	keep, think := 10*time.Minute, false
	if _, _, err := chat(t, newProvider(t, s.OllamaURL(), Config{KeepAlive: &keep, Think: &think}), question); err != nil {
		t.Fatal(err)
	}
	if _, _, err := chat(t, newProvider(t, s.OllamaURL(), Config{}), question); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()
	if string(r[0].KeepAlive) != `"10m0s"` || string(r[0].Think) != "false" {
		t.Errorf("keep_alive %s think %s, want \"10m0s\" false", r[0].KeepAlive, r[0].Think)
	}
	// Unset, keep_alive is DefaultKeepAlive, so that the model stays
	// loaded between a conversation's questions; think is left out.
	if string(r[1].KeepAlive) != `"30m0s"` || r[1].Think != nil {
		t.Errorf("unset keep_alive/think sent as %s %s, want \"30m0s\" and nothing", r[1].KeepAlive, r[1].Think)
	}
}

func TestUsage(t *testing.T) {
	s := fake.New(t, fake.Turn{Content: "hi", Usage: &llm.Usage{PromptTokens: 1234, CompletionTokens: 56}})
	res, _, err := chat(t, newProvider(t, s.OllamaURL(), Config{}), question)
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
		{"429 with Retry-After honoured", []fake.Turn{fake.Failing(fake.RateLimit(time.Second)), answer}, 0, time.Second},
		{"503 then ok", []fake.Turn{fake.Failing(fake.Status(503, "loading")), answer}, 0, 0},
		{"stream cut mid-way", []fake.Turn{{Content: answer.Content, Thinking: "count", Chunks: 4, Fail: fake.CutAfter(3)}, answer}, 1, 0},
		{"connection dropped", []fake.Turn{fake.Failing(fake.Drop()), answer}, 0, 0},
		{"error inside the stream", []fake.Turn{{Content: answer.Content, Chunks: 4, Fail: fake.StreamError(2, "llama runner process has terminated")}, answer}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fake.New(t, tt.turns...)
			start := time.Now()
			res, deltas, err := chat(t, newProvider(t, s.OllamaURL(), Config{}), question)
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

func TestConnectionRefusedThenUp(t *testing.T) {
	addr := freeAddr(t)
	p := newProvider(t, "http://"+addr, Config{Retry: llm.RetryPolicy{Base: 100 * time.Millisecond, Max: 200 * time.Millisecond, Retries: 5}})
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
	five := []fake.Turn{}
	for range 5 {
		five = append(five, fake.Failing(fake.Status(500, "model runner crashed")))
	}
	tests := []struct {
		name     string
		opts     fake.Options
		model    string
		tools    bool
		kind     llm.Kind
		hint     string // substring
		requests int    // chat requests the server saw
	}{
		{"retries exhausted", fake.Options{Turns: five}, "", false, llm.ServerError, "server log", 4},
		{"model not installed", fake.Options{Models: []fake.Model{{Name: "qwen3:8b", Tools: true}}}, "llama3.2", false,
			llm.ModelNotFound, "ollama pull llama3.2", 0},
		{"model without tools", fake.Options{Models: []fake.Model{fake.WithoutTools("gemma:2b")}}, "gemma:2b", true,
			llm.ToolsUnsupported, "tool support", 1},
		{"prompt too long", fake.Options{Turns: []fake.Turn{fake.Failing(fake.Status(400, "input length exceeds the context length"))}}, "", false,
			llm.ContextTooLong, "new chat", 1},
		{"out of memory", fake.Options{Turns: []fake.Turn{fake.Failing(fake.Status(500, "model requires more system memory (12 GiB) than is available (8 GiB)"))}}, "", false,
			llm.BadRequest, "smaller model", 1},
		{"rate limit beyond the cap", fake.Options{Turns: []fake.Turn{fake.Failing(fake.RateLimit(time.Hour))}}, "", false,
			llm.RateLimited, "wait", 1},
		{"script exhausted is a bad request", fake.Options{}, "", false, llm.BadRequest, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fake.Start(t, tt.opts)
			p := newProvider(t, s.OllamaURL(), Config{})
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
			if e.Kind != tt.kind || !strings.Contains(e.Hint, tt.hint) {
				t.Errorf("kind %s hint %q, want %s with %q (%v)", e.Kind, e.Hint, tt.kind, tt.hint, e)
			}
			if n := len(s.Requests()); n != tt.requests {
				t.Errorf("server saw %d chat requests, want %d", n, tt.requests)
			}
			if e.Kind == llm.RateLimited && e.RetryAfter != time.Hour {
				t.Errorf("RetryAfter = %v, want 1h", e.RetryAfter)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	addr := freeAddr(t)
	p := newProvider(t, addr, Config{})
	start := time.Now()
	_, _, err := chat(t, p, question)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Unreachable {
		t.Fatalf("err = %v, want Unreachable", err)
	}
	want := "Ollama is not running at http://" + addr + " — start it with `ollama serve`"
	if !strings.HasPrefix(e.Error(), "ollama: "+want) {
		t.Errorf("error = %q, want it to say %q", e.Error(), want)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("took %v with fast retries", el)
	}
}

// Chat retries as a whole; the model lookup inside it must not retry on
// its own too, or a down server is asked (retries+1)² times.
func TestRetriesDoNotMultiply(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, `{"error":"overloaded"}`, http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	p := newProvider(t, srv.URL, Config{Retry: llm.RetryPolicy{Retries: 3, Base: time.Millisecond, Max: 5 * time.Millisecond}})
	if _, _, err := chat(t, p, question); llm.KindOf(err) != llm.ServerError {
		t.Fatalf("err = %v, want a server error", err)
	}
	if n := hits.Load(); n != 4 {
		t.Errorf("the server was asked %d times, want 4 (one try and 3 retries)", n)
	}
}

func TestCancelDuringHangingStream(t *testing.T) {
	for _, after := range []int{0, 2} {
		s := fake.New(t, fake.Turn{Content: "a long answer that never ends", Chunks: 5, Fail: fake.HangAfter(after)})
		p := newProvider(t, s.OllamaURL(), Config{})
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
	p := newProvider(t, s.OllamaURL(), Config{StallTimeout: 150 * time.Millisecond})
	res, deltas, err := chat(t, p, question)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Content != answer.Content || !deltas[1].Restart {
		t.Errorf("content %q deltas %+v", res.Message.Content, deltas)
	}
}

func TestModels(t *testing.T) {
	s := fake.Start(t, fake.Options{Models: []fake.Model{
		{Name: "qwen3:8b", Tools: true, Thinking: true, ContextLength: 40960, Size: 5_000_000_000},
		fake.WithoutTools("gemma:2b"),
		{Name: "llama3.1:8b", Tools: true, ContextLength: 131072, Family: "llama"},
	}})
	got, err := newProvider(t, s.OllamaURL(), Config{}).Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Model{
		{Name: "qwen3:8b", Tools: true, ToolsKnown: true, ContextLength: 40960, Size: 5_000_000_000},
		{Name: "gemma:2b", Tools: false, ToolsKnown: true, ContextLength: 8192},
		{Name: "llama3.1:8b", Tools: true, ToolsKnown: true, ContextLength: 131072},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("models:\n got %+v\nwant %+v", got, want)
	}
}

func TestParseHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "http://127.0.0.1:11434"},
		{"0.0.0.0", "http://0.0.0.0:11434"},
		{"example.com", "http://example.com:11434"},
		{"example.com:5000", "http://example.com:5000"},
		{":5000", "http://127.0.0.1:5000"},
		{"http://example.com", "http://example.com:80"},
		{"https://example.com", "https://example.com:443"},
		{"http://10.0.0.2:11434/ollama/", "http://10.0.0.2:11434/ollama"},
		{"[::1]:11434", "http://[::1]:11434"},
		{"::1", "http://[::1]:11434"},
		{"ollama.com", "https://ollama.com:443"},
	}
	for _, tt := range tests {
		u, err := ParseHost(tt.in)
		if err != nil || u.String() != tt.want {
			t.Errorf("ParseHost(%q) = %v, %v; want %s", tt.in, u, err, tt.want)
		}
	}
	for _, bad := range []string{"ftp://host", "host:99999"} {
		if _, err := ParseHost(bad); err == nil {
			t.Errorf("ParseHost(%q) accepted", bad)
		}
	}
}

func BenchmarkChatRoundTrip(b *testing.B) {
	s := fake.Start(b, fake.Options{Respond: func(fake.Request) fake.Turn {
		return fake.Turn{Content: "830 orders.", ToolCalls: []fake.Call{{Name: "run_sql", Args: `{"sql":"SELECT 1"}`}}}
	}})
	p := newProvider(b, s.OllamaURL(), Config{})
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
