package fake

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/loupeapp/loupe/agent/llm"
)

// Request is one chat request as the server received it, decoded to
// canonical llm types whatever its wire.
type Request struct {
	N    int    // its index among the server's chat requests, from 0
	Wire string // "ollama" or "openai"

	Model    string
	Messages []llm.Message // tool results included, as Role llm.Tool
	Tools    []llm.ToolSpec
	Stream   bool

	// Options is Ollama's "options" object as sent; NumCtx its num_ctx (0
	// when absent).
	Options map[string]any
	NumCtx  int
	// KeepAlive and Think are Ollama's fields as sent (nil when absent).
	KeepAlive, Think json.RawMessage

	Temperature *float64
	// MaxTokens is Ollama's num_predict, or OpenAI's max_tokens or
	// max_completion_tokens.
	MaxTokens int
	// Format is Ollama's "format" or OpenAI's "response_format".
	Format json.RawMessage
	// IncludeUsage is OpenAI's stream_options.include_usage.
	IncludeUsage bool
	// CacheKey is OpenAI's prompt_cache_key ("" when absent).
	CacheKey string

	Header http.Header
	Query  url.Values
	Body   []byte // the raw request body
}

// ToolResults returns the request's tool messages, in order.
func (r Request) ToolResults() []llm.Message {
	var out []llm.Message
	for _, m := range r.Messages {
		if m.Role == llm.Tool {
			out = append(out, m)
		}
	}
	return out
}

// Last returns the request's last message (zero if none).
func (r Request) Last() llm.Message {
	if len(r.Messages) == 0 {
		return llm.Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// ---- Ollama ----

type ollamaRequest struct {
	Model    string          `json:"model"`
	Messages []ollamaMessage `json:"messages"`
	Tools    []wireTool      `json:"tools"`
	Stream   *bool           `json:"stream"`
	Format   json.RawMessage `json:"format"`
	Options  map[string]any  `json:"options"`
	Keep     json.RawMessage `json:"keep_alive"`
	Think    json.RawMessage `json:"think"`
}

type ollamaMessage struct {
	Role       string           `json:"role"`
	Content    string           `json:"content"`
	Thinking   string           `json:"thinking,omitempty"`
	ToolCalls  []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName   string           `json:"tool_name,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int             `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func (t wireTool) spec() llm.ToolSpec {
	return llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters}
}

func decodeOllama(body []byte) (Request, error) {
	var in ollamaRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, err
	}
	r := Request{Wire: "ollama", Model: in.Model, Stream: in.Stream == nil || *in.Stream,
		Options: in.Options, KeepAlive: in.Keep, Think: in.Think, Format: in.Format}
	for _, m := range in.Messages {
		cm := llm.Message{Role: llm.Role(m.Role), Content: m.Content, Thinking: m.Thinking, Name: m.ToolName, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			cm.ToolCalls = append(cm.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		r.Messages = append(r.Messages, cm)
	}
	for _, t := range in.Tools {
		r.Tools = append(r.Tools, t.spec())
	}
	if v, ok := in.Options["num_ctx"].(float64); ok {
		r.NumCtx = int(v)
	}
	if v, ok := in.Options["num_predict"].(float64); ok {
		r.MaxTokens = int(v)
	}
	if v, ok := in.Options["temperature"].(float64); ok {
		r.Temperature = &v
	}
	return r, nil
}

// ---- OpenAI ----

type openaiRequest struct {
	Model       string          `json:"model"`
	Messages    []openaiMessage `json:"messages"`
	Tools       []wireTool      `json:"tools"`
	Stream      bool            `json:"stream"`
	Temperature *float64        `json:"temperature"`
	MaxTokens   int             `json:"max_tokens"`
	MaxCompl    int             `json:"max_completion_tokens"`
	Format      json.RawMessage `json:"response_format"`
	StreamOpts  struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	CacheKey string `json:"prompt_cache_key"`
}

type openaiMessage struct {
	Role       string           `json:"role"`
	Content    json.RawMessage  `json:"content"`
	ToolCalls  []openaiToolCall `json:"tool_calls"`
	ToolCallID string           `json:"tool_call_id"`
	Name       string           `json:"name"`
}

type openaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func decodeOpenAI(body []byte) (Request, error) {
	var in openaiRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, err
	}
	r := Request{Wire: "openai", Model: in.Model, Stream: in.Stream, Temperature: in.Temperature,
		MaxTokens: max(in.MaxTokens, in.MaxCompl), Format: in.Format, IncludeUsage: in.StreamOpts.IncludeUsage,
		CacheKey: in.CacheKey}
	for _, m := range in.Messages {
		cm := llm.Message{Role: llm.Role(m.Role), Content: textOf(m.Content), ToolCallID: m.ToolCallID, Name: m.Name}
		for _, c := range m.ToolCalls {
			cm.ToolCalls = append(cm.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)})
		}
		r.Messages = append(r.Messages, cm)
	}
	for _, t := range in.Tools {
		r.Tools = append(r.Tools, t.spec())
	}
	return r, nil
}

// textOf reads OpenAI content: a string or an array of text parts.
func textOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	out := ""
	for _, p := range parts {
		out += p.Text
	}
	return out
}
