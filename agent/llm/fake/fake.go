// Package fake is an in-process model server for tests. It speaks Ollama's
// NDJSON /api/chat (with /api/tags, /api/show, /api/version) and the
// OpenAI-compatible SSE /v1/chat/completions (with /v1/models) on one
// loopback port, and answers each chat request with the next scripted Turn —
// or with a Respond function for dynamic scripts. Turns can fail in the ways
// real servers do (HTTP errors with Retry-After, a stream cut or hanging
// mid-way, a dropped connection, an in-stream error), and carry the
// malformed output small models produce (arguments as a JSON string or
// invalid JSON, <think> blocks in the content). Every chat request is
// recorded, decoded to canonical llm types, so tests can assert what the
// model was shown.
//
// It also embeds (Ollama's /api/embed, OpenAI's /v1/embeddings) with a
// deterministic bag-of-words model (see Vector), so that retrieval tests
// rank meaningfully, and pulls models (Ollama's streaming /api/pull).
//
// It is a normal package so that any package's tests can drive the real
// provider adapters against it.
package fake

import (
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
)

// Call is a tool call the fake model makes.
type Call struct {
	Name string
	// Args is the arguments exactly as the model writes them: usually a
	// JSON object, but it may be invalid JSON or a JSON string holding an
	// object. On the OpenAI wire it is sent as the arguments string as is.
	// On the Ollama wire only a JSON object can be a native tool call (that
	// is all Ollama's parser emits); any other Args is sent the way Ollama
	// passes on a call it could not parse: as text in the content,
	// {"name": NAME, "arguments": ARGS}.
	Args string
	// ID is the call's id. On the OpenAI wire it defaults to
	// "call_<request>_<n>"; on the Ollama wire it is sent only when set.
	ID string
}

// Turn is the fake model's answer to one chat request.
type Turn struct {
	Content   string
	Thinking  string // sent as Ollama "thinking" / OpenAI "reasoning_content"
	ToolCalls []Call
	// Chunks splits the content and the thinking (and, on the OpenAI wire,
	// each call's arguments) into this many pieces; 0 or 1 sends each whole.
	Chunks int
	// Delay is waited before answering at all (time to first byte);
	// ChunkDelay between chunks. Both end early when the client leaves.
	Delay, ChunkDelay time.Duration
	// Usage is the token count reported; nil estimates it from lengths.
	Usage *llm.Usage
	// FinishReason overrides "stop" (or OpenAI's "tool_calls" when there
	// are calls), e.g. "length".
	FinishReason string
	// Fail makes the request fail instead of (or part-way through) the
	// answer.
	Fail *Fault
}

// Text is a turn that answers with content.
func Text(content string) Turn { return Turn{Content: content} }

// Calls is a turn that makes tool calls.
func Calls(calls ...Call) Turn { return Turn{ToolCalls: calls} }

// Failing is a turn that fails with f.
func Failing(f *Fault) Turn { return Turn{Fail: f} }

// FaultKind says how a request fails.
type FaultKind int

const (
	// FaultStatus answers with an HTTP error status.
	FaultStatus FaultKind = iota + 1
	// FaultCut streams After chunks, then drops the connection without
	// ending the stream.
	FaultCut
	// FaultHang streams After chunks (0: before any byte), then hangs until
	// the client gives up or the server closes.
	FaultHang
	// FaultDrop closes the connection without answering.
	FaultDrop
	// FaultStreamError streams After chunks, then an in-stream error
	// (Ollama {"error": …} line, OpenAI `data: {"error": {…}}`).
	FaultStreamError
)

// Fault is a failure injected into one chat request.
type Fault struct {
	Kind   FaultKind
	Status int // FaultStatus: the HTTP status
	// Message is the error's text (FaultStatus, FaultStreamError); empty
	// means the status text.
	Message string
	// Code is the OpenAI error code (e.g. "context_length_exceeded",
	// "insufficient_quota"); unused on the Ollama wire.
	Code string
	// Body, when set, is sent as the error body verbatim instead of the
	// wire's JSON error.
	Body       string
	RetryAfter time.Duration // sets Retry-After (and retry-after-ms)
	// After is how many chunks are streamed before FaultCut, FaultHang or
	// FaultStreamError strikes. A chunk is one piece of thinking, content,
	// a tool call (Ollama) or a call's head or argument piece (OpenAI); the
	// closing chunks are not counted. A non-streaming request fails before
	// its body.
	After int
}

// Status fails with an HTTP status and message.
func Status(code int, message string) *Fault {
	return &Fault{Kind: FaultStatus, Status: code, Message: message}
}

// RateLimit fails with 429 and a Retry-After.
func RateLimit(retryAfter time.Duration) *Fault {
	return &Fault{Kind: FaultStatus, Status: 429, Message: "rate limit reached, slow down", RetryAfter: retryAfter}
}

// CutAfter drops the connection after n chunks of the turn's answer.
func CutAfter(n int) *Fault { return &Fault{Kind: FaultCut, After: n} }

// HangAfter hangs after n chunks (0: before answering) until the client
// gives up.
func HangAfter(n int) *Fault { return &Fault{Kind: FaultHang, After: n} }

// Drop closes the connection without answering.
func Drop() *Fault { return &Fault{Kind: FaultDrop} }

// StreamError sends an in-stream error after n chunks.
func StreamError(n int, message string) *Fault {
	return &Fault{Kind: FaultStreamError, After: n, Message: message}
}

// Model is a model the fake server offers.
type Model struct {
	Name     string
	Tools    bool // reports the "tools" capability and accepts tools
	Thinking bool // reports the "thinking" capability
	// Embedding reports the "embedding" capability instead of
	// "completion" (an embedding model such as nomic-embed-text). Any
	// model can embed on the fake, as most can on Ollama.
	Embedding     bool
	ContextLength int // model_info <family>.context_length; 0 means DefaultContextLength
	Size          int64
	// Family is the architecture in model_info; default the name up to
	// its first ':' (e.g. "qwen3" for "qwen3:8b").
	Family string
}

// DefaultContextLength is the context length of a Model that sets none.
const DefaultContextLength = 40960

// DefaultModels is what the server offers when Options.Models is empty.
var DefaultModels = []Model{{Name: "qwen3:8b", Tools: true, Thinking: true, ContextLength: DefaultContextLength, Size: 5_225_387_923}}

// WithoutTools is a model that does not support tools: a chat request that
// offers tools fails with HTTP 400 and Ollama's message
// "registry.ollama.ai/library/NAME does not support tools".
func WithoutTools(name string) Model { return Model{Name: name, ContextLength: 8192} }

func (m Model) family() string {
	if m.Family != "" {
		return m.Family
	}
	f, _, _ := strings.Cut(m.Name, ":")
	return f
}

func (m Model) contextLength() int {
	if m.ContextLength > 0 {
		return m.ContextLength
	}
	return DefaultContextLength
}

// fullName is how Ollama names a model in its errors.
func (m Model) fullName() string {
	name := m.Name
	if !strings.Contains(name, ":") {
		name += ":latest"
	}
	if !strings.Contains(name, "/") {
		name = "library/" + name
	}
	return "registry.ollama.ai/" + name
}
