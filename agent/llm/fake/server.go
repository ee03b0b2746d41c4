package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Options configures a Server.
type Options struct {
	// Turns answer the chat requests in order, one each (a failing turn
	// counts). When they run out a request fails with HTTP 400
	// "fake: no scripted turn left".
	Turns []Turn
	// Respond, when set, answers every chat request instead of Turns. It
	// runs on the request's goroutine: make it safe for concurrent use if
	// requests may overlap.
	Respond func(Request) Turn
	// Models are the models offered. When empty the server lists
	// DefaultModels and accepts any model name as tool-capable; when set,
	// a chat or show for another name fails with 404 as Ollama's does.
	Models []Model
	// APIKey, when set, is required on the OpenAI wire (as "Authorization:
	// Bearer KEY" or an "api-key" header); otherwise 401.
	APIKey string
	// Addr is where to listen; default "127.0.0.1:0" (any free port).
	Addr string
	// Library is what /api/pull can fetch; empty means DefaultLibrary.
	// Other names fail as Ollama's do ("file does not exist").
	Library []string
	// PullStep is waited after each progress line of a pull.
	PullStep time.Duration
}

// Server is a running fake model server. It is safe for concurrent use.
type Server struct {
	opts Options
	http *httptest.Server
	done chan struct{}
	once sync.Once

	mu    sync.Mutex
	turns []Turn
	reqs  []Request
	hits  map[string]int
	seen  []Seen // every request, chat or not (see Seen)

	pulled     []Model // models /api/pull added
	embedFault *Fault  // see FailEmbeddings
	embedded   int     // texts embedded
	// embeddedTexts are those texts, in order.
	embeddedTexts []string
	embedLimit    int // see LimitEmbedInput
}

// New starts a server replaying turns and closes it when tb's test ends.
func New(tb testing.TB, turns ...Turn) *Server {
	tb.Helper()
	return Start(tb, Options{Turns: turns})
}

// Start starts a server with opts and closes it when tb's test ends.
func Start(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s, err := NewServer(opts)
	if err != nil {
		tb.Fatalf("fake model server: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// NewServer starts a server; the caller closes it.
func NewServer(opts Options) (*Server, error) {
	s := &Server{opts: opts, done: make(chan struct{}), turns: append([]Turn(nil), opts.Turns...), hits: map[string]int{}}
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	s.http = &httptest.Server{Listener: ln, Config: &http.Server{Handler: s.routes()}}
	s.http.Start()
	return s, nil
}

// URL is the server's base URL, e.g. http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.http.URL }

// OllamaURL is the base URL for an Ollama client (the same as URL).
func (s *Server) OllamaURL() string { return s.http.URL }

// OpenAIURL is the base URL for an OpenAI client: URL + "/v1".
func (s *Server) OpenAIURL() string { return s.http.URL + "/v1" }

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return s.http.Listener.Addr().String() }

// Close stops the server, ending any hanging request first.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		s.http.CloseClientConnections()
		s.http.Close()
	})
}

// Push appends turns to the script.
func (s *Server) Push(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Remaining is how many scripted turns are not yet served.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns)
}

// Requests returns every chat request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Hits counts the requests to path (e.g. "/api/show"), chat or not.
func (s *Server) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "Ollama is running") })
	mux.HandleFunc("HEAD /{$}", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": "0.17.4"})
	})
	mux.HandleFunc("GET /api/tags", s.ollamaTags)
	mux.HandleFunc("POST /api/show", s.ollamaShow)
	mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, r *http.Request) { s.chat(w, r, ollamaWire{}) })
	mux.HandleFunc("POST /api/embed", s.ollamaEmbed)
	mux.HandleFunc("POST /api/pull", s.ollamaPull)
	mux.HandleFunc("GET /v1/models", s.auth(s.openaiModels))
	mux.HandleFunc("POST /v1/chat/completions", s.auth(func(w http.ResponseWriter, r *http.Request) { s.chat(w, r, openaiWire{}) }))
	mux.HandleFunc("POST /v1/embeddings", s.auth(s.openaiEmbed))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.seen = append(s.seen, Seen{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()})
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	})
}

// wire renders one wire format.
type wire interface {
	name() string
	decode(body []byte) (Request, error)
	writeError(w http.ResponseWriter, f *Fault)
	notFound(m string) *Fault
	noTools(m Model) *Fault
	// answer writes t as the reply to req; sent is called after each of
	// its total chunks is flushed (once with n = total = 0 when it has
	// none, and with n = 0 before a non-streaming body) and may stop the
	// answer by returning false.
	answer(w http.ResponseWriter, req Request, t Turn, sent func(n, total int) bool) error
	streamError(w http.ResponseWriter, msg string)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, wr wire) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req, err := wr.decode(body)
	if err != nil {
		wr.writeError(w, Status(http.StatusBadRequest, "fake: cannot decode request: "+err.Error()))
		return
	}
	req.Header, req.Query, req.Body = r.Header.Clone(), r.URL.Query(), body

	s.mu.Lock()
	req.N = len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()

	model, known := s.model(req.Model)
	switch {
	case !known:
		wr.writeError(w, wr.notFound(req.Model))
		return
	case len(req.Tools) > 0 && !model.Tools:
		wr.writeError(w, wr.noTools(model))
		return
	}
	turn, ok := s.turn(req)
	if !ok {
		wr.writeError(w, Status(http.StatusBadRequest, fmt.Sprintf("fake: no scripted turn left for request %d", req.N)))
		return
	}
	s.serve(w, r.Context(), wr, req, turn)
}

func (s *Server) turn(req Request) (Turn, bool) {
	if s.opts.Respond != nil {
		return s.opts.Respond(req), true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.turns) == 0 {
		return Turn{}, false
	}
	t := s.turns[0]
	s.turns = s.turns[1:]
	return t, true
}

func (s *Server) serve(w http.ResponseWriter, ctx context.Context, wr wire, req Request, t Turn) {
	if !s.wait(ctx, t.Delay) {
		return
	}
	f := t.Fail
	if f == nil {
		wr.answer(w, req, t, func(int, int) bool { return s.wait(ctx, t.ChunkDelay) })
		return
	}
	after := f.After
	if !req.Stream {
		after = 0
	}
	switch f.Kind {
	case FaultStatus:
		wr.writeError(w, f)
	case FaultDrop:
		drop(w)
	case FaultHang:
		if after == 0 {
			s.hang(ctx)
			return
		}
		wr.answer(w, req, t, func(n, total int) bool {
			if n >= after || n == total { // a short answer fails at its end
				s.hang(ctx)
				return false
			}
			return s.wait(ctx, t.ChunkDelay)
		})
	case FaultCut:
		if after == 0 {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
		wr.answer(w, req, t, func(n, total int) bool {
			if n >= after || n == total { // a short answer fails at its end
				panic(http.ErrAbortHandler) // ends the response without its terminator
			}
			return s.wait(ctx, t.ChunkDelay)
		})
	case FaultStreamError:
		if after == 0 {
			wr.streamError(w, f.message())
			return
		}
		wr.answer(w, req, t, func(n, total int) bool {
			if n >= after || n == total { // a short answer fails at its end
				wr.streamError(w, f.message())
				return false
			}
			return s.wait(ctx, t.ChunkDelay)
		})
	}
}

// wait sleeps d; false when the client left or the server closed first.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}

func (s *Server) hang(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-s.done:
	}
}

// model finds the model named m: one offered or pulled.
func (s *Server) model(m string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.modelsLocked() {
		if sameModel(d.Name, m) {
			return d, true
		}
	}
	if len(s.opts.Models) == 0 {
		return Model{Name: m, Tools: true, ContextLength: DefaultContextLength}, true
	}
	return Model{}, false
}

func (s *Server) models() []Model {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.modelsLocked()
}

// modelsLocked is the models offered, pulled ones last. s.mu is held.
func (s *Server) modelsLocked() []Model {
	base := s.opts.Models
	if len(base) == 0 {
		base = DefaultModels
	}
	return append(append([]Model(nil), base...), s.pulled...)
}

// sameModel compares names as Ollama does: "llama3" is "llama3:latest".
func sameModel(a, b string) bool {
	norm := func(s string) string {
		if !strings.Contains(s, ":") {
			return s + ":latest"
		}
		return s
	}
	return norm(a) == norm(b)
}

func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := s.opts.APIKey
		if key != "" && r.Header.Get("Authorization") != "Bearer "+key && r.Header.Get("api-key") != key {
			openaiWire{}.writeError(w, &Fault{Kind: FaultStatus, Status: http.StatusUnauthorized,
				Message: "Incorrect API key provided.", Code: "invalid_api_key"})
			return
		}
		h(w, r)
	}
}

func (f *Fault) message() string {
	if f.Message != "" {
		return f.Message
	}
	if t := http.StatusText(f.Status); t != "" {
		return strings.ToLower(t)
	}
	return "internal error"
}

// setHeaders writes the fault's Retry-After headers.
func (f *Fault) setHeaders(h http.Header) {
	if f.RetryAfter <= 0 {
		return
	}
	secs := int((f.RetryAfter + time.Second - 1) / time.Second)
	h.Set("Retry-After", fmt.Sprint(secs))
	h.Set("Retry-After-Ms", fmt.Sprint(f.RetryAfter.Milliseconds()))
}

func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		conn.Close()
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// split cuts s into n pieces of about equal length, on rune boundaries.
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	r := []rune(s)
	if n <= 1 || n > len(r) {
		if n > len(r) {
			n = len(r)
		} else {
			return []string{s}
		}
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, string(r[i*len(r)/n:(i+1)*len(r)/n]))
	}
	return out
}

// estimate is a rough token count for usage when a turn sets none.
func estimate(texts ...string) int {
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	return n/4 + 1
}
