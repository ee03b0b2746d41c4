// Package llm is Loupe's one view of a chat model: canonical messages and
// tool calls, and the Provider interface the agent talks to. Adapters for
// Ollama and OpenAI-compatible servers live in subpackages; they translate
// to and from these types and nothing else leaks out of them.
package llm

import (
	"context"
	"encoding/json"
)

// Role says who wrote a message.
type Role string

const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
	Tool      Role = "tool" // the result of one tool call
)

// Message is one turn of a conversation, whatever the provider.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// Thinking is the model's reasoning (Ollama "thinking", OpenAI-compatible
	// "reasoning_content"). It is kept for the trace and never treated as the
	// answer. Adapters do not send it back to the model.
	Thinking  string     `json:"thinking,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"` // Assistant only
	// ToolCallID and Name identify, on a Tool message, the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
}

// ToolCall is one call the model asked for.
type ToolCall struct {
	// ID is the provider's id, or one the adapter made up when the provider
	// gives none (Ollama); it is unique within a response.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the arguments exactly as the model produced them: usually
	// a JSON object, but possibly invalid JSON or a JSON string holding an
	// object (small models do both). Adapters never reject a call for its
	// arguments; the agent decides what to do with them.
	Arguments json.RawMessage `json:"arguments"`
}

// ToolSpec describes a tool offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // a JSON Schema object
}

// Request is one chat completion request.
type Request struct {
	Model    string     `json:"model"`
	Messages []Message  `json:"messages"`
	Tools    []ToolSpec `json:"tools,omitempty"`
	// Temperature is nil for the provider's default.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens caps the completion; 0 means the provider's default.
	MaxTokens int `json:"max_tokens,omitempty"`
	// Format, when set, is a JSON Schema the reply must follow (Ollama
	// "format", OpenAI "response_format" json_schema).
	Format json.RawMessage `json:"format,omitempty"`
	// CacheKey names the conversation the request belongs to, for a
	// server that routes requests to its prompt cache by key (OpenAI's
	// prompt_cache_key): the same for every request of a conversation,
	// derived from no user data. Empty sends none.
	CacheKey string `json:"cache_key,omitempty"`
}

// Delta is a piece of a streamed reply.
type Delta struct {
	Content  string `json:"content,omitempty"`
	Thinking string `json:"thinking,omitempty"`
	// Restart says the adapter is retrying after a stream broke mid-way:
	// everything streamed so far for this request must be discarded.
	Restart bool `json:"restart,omitempty"`
}

// Usage counts tokens as the provider reported them (zero when it did not).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Response is a complete reply.
type Response struct {
	Message Message `json:"message"` // Role is Assistant
	Usage   Usage   `json:"usage"`
	// FinishReason is the provider's reason ("stop", "length", "tool_calls").
	FinishReason string `json:"finish_reason,omitempty"`
}

// Model is a model the provider can serve.
type Model struct {
	Name string `json:"name"`
	// Tools is true when the provider says the model supports native tool
	// calling, false when it says it does not or does not say.
	Tools bool `json:"tools"`
	// ToolsKnown is true when the provider reported capabilities at all.
	ToolsKnown bool `json:"tools_known"`
	// Embedding is true when the provider says the model makes embeddings
	// only (Ollama's "embedding" capability without "completion"): it
	// cannot chat, but serves the semantic boost of table search.
	Embedding bool `json:"embedding,omitempty"`
	// ContextLength is the model's context window in tokens, 0 if unknown.
	ContextLength int   `json:"context_length,omitempty"`
	Size          int64 `json:"size,omitempty"` // bytes on disk, 0 if unknown
}

// Provider is a chat model server. Implementations are safe for concurrent
// use.
type Provider interface {
	// Chat sends req and streams the reply through onDelta (may be nil),
	// called from the calling goroutine, then returns the complete reply.
	// Transient failures are retried inside; the error returned is an
	// *Error once retries are spent, or ctx.Err() when ctx ends.
	Chat(ctx context.Context, req Request, onDelta func(Delta)) (Response, error)
	// Models lists the models the server offers.
	Models(ctx context.Context) ([]Model, error)
	// Name is the provider kind ("ollama", "openai") for logs and errors.
	Name() string
}

// MarshalJSON writes the call with its arguments as they are when they are
// valid JSON, and as a JSON string otherwise (small models produce invalid
// arguments; a transcript holding them must still encode).
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	p := plain(c)
	if len(p.Arguments) == 0 {
		p.Arguments = json.RawMessage("{}")
	} else if !json.Valid(p.Arguments) {
		s, err := json.Marshal(string(p.Arguments))
		if err != nil {
			return nil, err
		}
		p.Arguments = s
	}
	return json.Marshal(p)
}
