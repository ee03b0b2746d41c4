package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// openaiWire speaks the OpenAI-compatible /v1/chat/completions: SSE when
// streaming, one chat.completion object when not.
type openaiWire struct{}

func (openaiWire) name() string                        { return "openai" }
func (openaiWire) decode(body []byte) (Request, error) { return decodeOpenAI(body) }

func (openaiWire) writeError(w http.ResponseWriter, f *Fault) {
	f.setHeaders(w.Header())
	if f.Body != "" {
		w.WriteHeader(f.Status)
		w.Write([]byte(f.Body))
		return
	}
	typ := "invalid_request_error"
	switch {
	case f.Status == http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case f.Status >= 500:
		typ = "server_error"
	}
	e := map[string]any{"message": f.message(), "type": typ, "param": nil, "code": nil}
	if f.Code != "" {
		e["code"] = f.Code
	}
	writeJSON(w, f.Status, map[string]any{"error": e})
}

func (openaiWire) notFound(m string) *Fault {
	return &Fault{Kind: FaultStatus, Status: http.StatusNotFound, Code: "model_not_found",
		Message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", m)}
}

func (openaiWire) noTools(m Model) *Fault {
	return Status(http.StatusBadRequest, m.fullName()+" does not support tools")
}

func (openaiWire) streamError(w http.ResponseWriter, msg string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "server_error"}})
	fmt.Fprintf(w, "data: %s\n\n", b)
	w.(http.Flusher).Flush()
}

type oaDelta struct {
	Role      string       `json:"role,omitempty"`
	Content   *string      `json:"content,omitempty"`
	Reasoning *string      `json:"reasoning_content,omitempty"`
	ToolCalls []oaCallPart `json:"tool_calls,omitempty"`
}

type oaCallPart struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaChoice struct {
	Index        int     `json:"index"`
	Delta        oaDelta `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type oaUsage struct {
	Prompt     int `json:"prompt_tokens"`
	Completion int `json:"completion_tokens"`
	Total      int `json:"total_tokens"`
}

type oaChunk struct {
	ID      string     `json:"id"`
	Object  string     `json:"object"`
	Created int64      `json:"created"`
	Model   string     `json:"model"`
	Choices []oaChoice `json:"choices"`
	Usage   *oaUsage   `json:"usage"`
}

// deltas is the turn as an OpenAI stream of deltas, finish excluded.
func (openaiWire) deltas(req Request, t Turn) []oaDelta {
	var out []oaDelta
	for _, p := range split(t.Thinking, t.Chunks) {
		out = append(out, oaDelta{Reasoning: &p})
	}
	for _, p := range split(t.Content, t.Chunks) {
		out = append(out, oaDelta{Content: &p})
	}
	for i, c := range t.ToolCalls {
		head := oaCallPart{Index: i, ID: c.ID, Type: "function"}
		if head.ID == "" {
			head.ID = fmt.Sprintf("call_%d_%d", req.N, i+1)
		}
		head.Function.Name = c.Name
		out = append(out, oaDelta{ToolCalls: []oaCallPart{head}})
		for _, p := range split(c.Args, t.Chunks) {
			part := oaCallPart{Index: i}
			part.Function.Arguments = p
			out = append(out, oaDelta{ToolCalls: []oaCallPart{part}})
		}
	}
	if len(out) == 0 {
		empty := ""
		out = append(out, oaDelta{Content: &empty})
	}
	out[0].Role = "assistant"
	return out
}

func (o openaiWire) answer(w http.ResponseWriter, req Request, t Turn, sent func(n, total int) bool) error {
	deltas := o.deltas(req, t)
	reason := t.FinishReason
	if reason == "" {
		reason = "stop"
		if len(t.ToolCalls) > 0 {
			reason = "tool_calls"
		}
	}
	prompt, completion := usageOf(req, t)
	usage := &oaUsage{Prompt: prompt, Completion: completion, Total: prompt + completion}
	id := fmt.Sprintf("chatcmpl-fake%d", req.N)

	if !req.Stream {
		if !sent(0, 1) {
			return nil
		}
		writeJSON(w, http.StatusOK, o.completion(id, req, t, reason, usage))
		return nil
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	write := func(c oaChunk) error {
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return err
		}
		fl.Flush()
		return nil
	}
	chunk := func(choices ...oaChoice) oaChunk {
		return oaChunk{ID: id, Object: "chat.completion.chunk", Created: 1725392480, Model: req.Model, Choices: choices}
	}
	for i, d := range deltas {
		if err := write(chunk(oaChoice{Delta: d})); err != nil {
			return err
		}
		if !sent(i+1, len(deltas)) {
			return nil
		}
	}
	if err := write(chunk(oaChoice{FinishReason: &reason})); err != nil {
		return err
	}
	if req.IncludeUsage {
		c := chunk()
		c.Choices = []oaChoice{}
		c.Usage = usage
		if err := write(c); err != nil {
			return err
		}
	}
	_, err := fmt.Fprint(w, "data: [DONE]\n\n")
	fl.Flush()
	return err
}

func (openaiWire) completion(id string, req Request, t Turn, reason string, usage *oaUsage) map[string]any {
	msg := map[string]any{"role": "assistant", "content": t.Content}
	if t.Thinking != "" {
		msg["reasoning_content"] = t.Thinking
	}
	var calls []map[string]any
	for i, c := range t.ToolCalls {
		cid := c.ID
		if cid == "" {
			cid = fmt.Sprintf("call_%d_%d", req.N, i+1)
		}
		calls = append(calls, map[string]any{"id": cid, "type": "function",
			"function": map[string]string{"name": c.Name, "arguments": c.Args}})
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	return map[string]any{
		"id": id, "object": "chat.completion", "created": 1725392480, "model": req.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": reason}},
		"usage":   usage,
	}
}

func (s *Server) openaiModels(w http.ResponseWriter, r *http.Request) {
	type entry struct {
		ID            string `json:"id"`
		Object        string `json:"object"`
		Created       int64  `json:"created"`
		OwnedBy       string `json:"owned_by"`
		ContextLength int    `json:"context_length"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []entry `json:"data"`
	}{Object: "list", Data: []entry{}}
	for _, m := range s.models() {
		owner, _, _ := strings.Cut(m.Name, "/")
		if owner == m.Name {
			owner = "library"
		}
		out.Data = append(out.Data, entry{ID: m.Name, Object: "model", Created: modified.Unix(), OwnedBy: owner, ContextLength: m.contextLength()})
	}
	writeJSON(w, http.StatusOK, out)
}
