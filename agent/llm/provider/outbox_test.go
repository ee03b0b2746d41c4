package provider

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
)

// memOutbox keeps what it is given.
type memOutbox struct {
	mu   sync.Mutex
	sent []Sent
	err  error
}

func (m *memOutbox) Keep(_ context.Context, s Sent) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.sent = append(m.sent, s)
	return nil
}

// chats returns the chat requests kept (Ollama's /api/show is a POST too).
func (m *memOutbox) chats() []Sent {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Sent
	for _, s := range m.sent {
		if strings.HasSuffix(s.URL, "/api/chat") || strings.HasSuffix(s.URL, "/chat/completions") {
			out = append(out, s)
		}
	}
	return out
}

// Every attempt of a chat request, retries included, is kept byte for byte
// in the outbox of its context; what carries no outbox goes to the
// fallback; the key is never kept.
func TestTeeKeepsEveryRequestByteForByte(t *testing.T) {
	for _, wire := range []string{Ollama, OpenAI} {
		t.Run(wire, func(t *testing.T) {
			srv := fake.Start(t, fake.Options{APIKey: "sk-secret-canary", Turns: []fake.Turn{
				fake.Failing(fake.Status(500, "busy")), fake.Text("one"), fake.Text("two")}})
			answer, fallback := &memOutbox{}, &memOutbox{}
			cfg := Config{Provider: wire, Model: "qwen3:8b", BaseURL: srv.OllamaURL(), APIKey: "sk-secret-canary",
				Retry:      llm.RetryPolicy{Retries: 2, Base: time.Millisecond, Max: time.Millisecond},
				HTTPClient: Tee(nil, TeeOptions{Fallback: fallback, All: true})}
			if wire == OpenAI {
				cfg.BaseURL = srv.OpenAIURL()
			}
			p, err := Open(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx := WithOutbox(context.Background(), answer)
			for _, q := range []string{"first", "second"} {
				if _, err := p.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: q}}}, nil); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := p.Models(context.Background()); err != nil {
				t.Fatal(err)
			}
			got, reqs := answer.chats(), srv.Requests()
			if len(reqs) != 3 || len(got) != len(reqs) {
				t.Fatalf("the server got %d chat requests, the outbox kept %d", len(reqs), len(got))
			}
			for i := range reqs {
				if !bytes.Equal(got[i].Body, reqs[i].Body) {
					t.Errorf("request %d: kept\n%s\nsent\n%s", i, got[i].Body, reqs[i].Body)
				}
			}
			if len(fallback.sent) == 0 || len(fallback.chats()) != 0 {
				t.Errorf("the model listing should be in the fallback alone: %+v", fallback.sent)
			}
			for _, s := range append(answer.sent, fallback.sent...) {
				if strings.Contains(string(s.Body)+s.URL, "sk-secret-canary") {
					t.Errorf("the key is in the outbox: %s %s", s.URL, s.Body)
				}
			}
		})
	}
}

// A server on this machine gets its requests unrecorded unless All says
// otherwise.
func TestTeeLeavesLoopbackAlone(t *testing.T) {
	srv := fake.New(t, fake.Text("hi"))
	o := &memOutbox{}
	p, err := Open(Config{Model: "qwen3:8b", BaseURL: srv.OllamaURL(), HTTPClient: Tee(nil, TeeOptions{Fallback: o})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Chat(WithOutbox(context.Background(), o), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "q"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if len(o.sent) != 0 {
		t.Errorf("a loopback request was recorded: %+v", o.sent)
	}
}

// When the outbox cannot keep a request, the request is not sent.
func TestTeeSendsNothingItCannotKeep(t *testing.T) {
	srv := fake.New(t, fake.Text("hi"))
	o := &memOutbox{err: errors.New("disk full")}
	p, err := Open(Config{Model: "qwen3:8b", BaseURL: srv.OllamaURL(), Retry: llm.RetryPolicy{Retries: -1},
		HTTPClient: Tee(nil, TeeOptions{Fallback: o, All: true})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "q"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("error %v, want the outbox's", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the server got %d requests", n)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pw@api.example.com/v1/chat/completions":              "https://api.example.com/v1/chat/completions",
		"https://x.openai.azure.com/openai?api-version=2024-06-01&key=abc": "https://x.openai.azure.com/openai?api-version=2024-06-01&key=REDACTED",
		"http://10.0.0.5:11434/api/chat":                                   "http://10.0.0.5:11434/api/chat",
		"https://x.example.com/v1?api-version=1;key=abc":                   "https://x.example.com/v1?REDACTED",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := RedactURL(u); got != want {
			t.Errorf("RedactURL(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestServerURL(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "http://127.0.0.1:11434"},
		{Config{BaseURL: "10.0.0.5:11434"}, "http://10.0.0.5:11434"},
		{Config{Provider: OpenAI}, "https://api.openai.com/v1"},
		{Config{Provider: OpenAI, BaseURL: "http://localhost:1234/v1"}, "http://localhost:1234/v1"},
	} {
		if got := ServerURL(tc.cfg); got != tc.want {
			t.Errorf("ServerURL(%+v) = %s, want %s", tc.cfg, got, tc.want)
		}
	}
}

// Embedding requests, on both wires, are kept too: the texts are in the
// body, and nothing else of the request (the key) is.
func TestTeeKeepsEmbeddingRequests(t *testing.T) {
	s := fake.Start(t, fake.Options{APIKey: "sk-embed-canary", Models: []fake.Model{
		{Name: "nomic-embed-text", Embedding: true}, {Name: "text-embedding-3-small", Embedding: true}}})
	for _, cfg := range []Config{
		{EmbedModel: "nomic-embed-text", BaseURL: s.OllamaURL()},
		{Provider: OpenAI, EmbedModel: "text-embedding-3-small", BaseURL: s.OpenAIURL(), APIKey: "sk-embed-canary"},
	} {
		o := &memOutbox{}
		cfg.HTTPClient = Tee(nil, TeeOptions{Fallback: o, All: true})
		e, err := OpenEmbedder(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Embed(context.Background(), []string{"staff table", "rain gauge"}); err != nil {
			t.Fatal(err)
		}
		var body string
		for _, k := range o.sent {
			if strings.HasSuffix(k.URL, "/api/embed") || strings.HasSuffix(k.URL, "/embeddings") {
				body = string(k.Body)
			}
			if strings.Contains(string(k.Body)+k.URL, "sk-embed-canary") {
				t.Errorf("the key is in the outbox: %s", k.URL)
			}
		}
		if !strings.Contains(body, `"staff table"`) || !strings.Contains(body, `"rain gauge"`) || !strings.Contains(body, cfg.EmbedModel) {
			t.Errorf("%s: embedding request kept as %q", cfg.Provider, body)
		}
	}
}

// A request to an address that names this machine is not recorded, so its
// connection must end on this machine: through an HTTP proxy on another
// address it is refused before anything reaches the proxy.
func TestTeeRefusesLoopbackNameOverARemoteConnection(t *testing.T) {
	ip := nonLoopbackIP(t)
	var got atomic.Int32
	proxy := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusBadGateway)
	})}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = proxy.Serve(ln) }()
	t.Cleanup(func() { _ = proxy.Close() })
	srv := fake.New(t, fake.Text("hi"))
	o := &memOutbox{}
	via := &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: ln.Addr().String()})}
	p, err := Open(Config{Model: "qwen3:8b", BaseURL: srv.OllamaURL(), Retry: llm.RetryPolicy{Retries: -1},
		HTTPClient: Tee(&http.Client{Transport: via}, TeeOptions{Fallback: o})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(WithOutbox(context.Background(), o), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "canary"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "not loopback") {
		t.Errorf("error %v, want the connection refused as not loopback", err)
	}
	if n := got.Load(); n != 0 {
		t.Errorf("the proxy at %s got %d unrecorded requests", ln.Addr(), n)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the server got %d requests", n)
	}
}

// nonLoopbackIP is an address of this machine's other than loopback, for a
// listener that stands for another machine.
func nonLoopbackIP(t *testing.T) net.IP {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP
		}
	}
	t.Fatal("this machine has no address but loopback, so nothing can stand for another machine here; " +
		"TestLoopbackGuardClosesARemoteConnection checks the same guard without one")
	return nil
}

// remoteConn is one end of a pipe that says it is connected to another
// machine.
type remoteConn struct{ net.Conn }

func (remoteConn) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 80} }

// The guard, given a connection whose far end is not loopback, closes it
// before anything is written, for requests marked loopback-only only.
func TestLoopbackGuardClosesARemoteConnection(t *testing.T) {
	var mine, theirs net.Conn
	dial := func(context.Context, string, string) (net.Conn, error) {
		mine, theirs = net.Pipe()
		return remoteConn{mine}, nil
	}
	guarded := loopbackGuard(dial)
	ctx := context.WithValue(context.Background(), loopbackOnlyKey{}, true)
	c, err := guarded(ctx, "tcp", "localhost:11434")
	if c != nil || !errors.Is(err, ErrNotLoopback) {
		t.Fatalf("loopback-only request: conn %v, error %v; want none and ErrNotLoopback", c, err)
	}
	if _, err := theirs.Write([]byte("x")); err == nil {
		t.Error("the connection to the other machine was left open")
	}
	c, err = guarded(context.Background(), "tcp", "api.example.com:443")
	if err != nil || c == nil {
		t.Fatalf("an unmarked request: conn %v, error %v; want the connection", c, err)
	}
	_ = c.Close()
}
