package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ollamaWire speaks Ollama's /api/chat: NDJSON when streaming, one JSON
// object when not.
type ollamaWire struct{}

func (ollamaWire) name() string                        { return "ollama" }
func (ollamaWire) decode(body []byte) (Request, error) { return decodeOllama(body) }

func (ollamaWire) writeError(w http.ResponseWriter, f *Fault) {
	f.setHeaders(w.Header())
	if f.Body != "" {
		w.WriteHeader(f.Status)
		w.Write([]byte(f.Body))
		return
	}
	writeJSON(w, f.Status, map[string]string{"error": f.message()})
}

func (ollamaWire) notFound(m string) *Fault {
	return Status(http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", m))
}

func (ollamaWire) noTools(m Model) *Fault {
	return Status(http.StatusBadRequest, m.fullName()+" does not support tools")
}

func (ollamaWire) streamError(w http.ResponseWriter, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Write(append(b, '\n'))
	w.(http.Flusher).Flush()
}

type ollamaChunk struct {
	Model      string        `json:"model"`
	CreatedAt  time.Time     `json:"created_at"`
	Message    ollamaMessage `json:"message"`
	Done       bool          `json:"done"`
	DoneReason string        `json:"done_reason,omitempty"`
	PromptEval int           `json:"prompt_eval_count,omitempty"`
	Eval       int           `json:"eval_count,omitempty"`
	TotalDur   int64         `json:"total_duration,omitempty"`
}

// pieces is the turn as Ollama would stream it, done line excluded.
func (ollamaWire) pieces(t Turn) []ollamaMessage {
	var out []ollamaMessage
	for _, p := range split(t.Thinking, t.Chunks) {
		out = append(out, ollamaMessage{Role: "assistant", Thinking: p})
	}
	content := t.Content
	var calls []ollamaToolCall
	for i, c := range t.ToolCalls {
		args := strings.TrimSpace(c.Args)
		if args == "" {
			args = "{}"
		}
		if !isObject(args) {
			// Ollama's parser emits only object arguments; anything else
			// reaches the client as the text the model wrote.
			content += fmt.Sprintf(`{"name": %q, "arguments": %s}`, c.Name, c.Args)
			continue
		}
		var tc ollamaToolCall
		tc.ID = c.ID
		tc.Function.Index = i
		tc.Function.Name = c.Name
		tc.Function.Arguments = json.RawMessage(args)
		calls = append(calls, tc)
	}
	for _, p := range split(content, t.Chunks) {
		out = append(out, ollamaMessage{Role: "assistant", Content: p})
	}
	for _, c := range calls {
		out = append(out, ollamaMessage{Role: "assistant", ToolCalls: []ollamaToolCall{c}})
	}
	return out
}

func isObject(s string) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &m) == nil && strings.HasPrefix(s, "{")
}

func (o ollamaWire) answer(w http.ResponseWriter, req Request, t Turn, sent func(n, total int) bool) error {
	pieces := o.pieces(t)
	now := time.Now().UTC()
	prompt, completion := usageOf(req, t)
	reason := t.FinishReason
	if reason == "" {
		reason = "stop"
	}
	done := ollamaChunk{Model: req.Model, CreatedAt: now, Message: ollamaMessage{Role: "assistant"},
		Done: true, DoneReason: reason, PromptEval: prompt, Eval: completion, TotalDur: 1_000_000}

	if !req.Stream {
		for _, p := range pieces {
			done.Message.Thinking += p.Thinking
			done.Message.Content += p.Content
			done.Message.ToolCalls = append(done.Message.ToolCalls, p.ToolCalls...)
		}
		if !sent(0, 1) {
			return nil
		}
		writeJSON(w, http.StatusOK, done)
		return nil
	}

	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	fl := w.(http.Flusher)
	if len(pieces) == 0 && !sent(0, 0) {
		return nil
	}
	for i, p := range pieces {
		if err := enc.Encode(ollamaChunk{Model: req.Model, CreatedAt: now, Message: p}); err != nil {
			return err
		}
		fl.Flush()
		if !sent(i+1, len(pieces)) {
			return nil
		}
	}
	if err := enc.Encode(done); err != nil {
		return err
	}
	fl.Flush()
	return nil
}

func usageOf(req Request, t Turn) (prompt, completion int) {
	if t.Usage != nil {
		return t.Usage.PromptTokens, t.Usage.CompletionTokens
	}
	var in []string
	for _, m := range req.Messages {
		in = append(in, m.Content)
	}
	out := []string{t.Content, t.Thinking}
	for _, c := range t.ToolCalls {
		out = append(out, c.Name, c.Args)
	}
	return estimate(in...), estimate(out...)
}

// ---- /api/tags, /api/show ----

type ollamaDetails struct {
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

func details(m Model) ollamaDetails {
	return ollamaDetails{Format: "gguf", Family: m.family(), Families: []string{m.family()}, ParameterSize: "8B", QuantizationLevel: "Q4_K_M"}
}

var modified = time.Date(2025, 7, 1, 12, 0, 0, 0, time.UTC)

func (s *Server) ollamaTags(w http.ResponseWriter, r *http.Request) {
	type entry struct {
		Name       string        `json:"name"`
		Model      string        `json:"model"`
		ModifiedAt time.Time     `json:"modified_at"`
		Size       int64         `json:"size"`
		Digest     string        `json:"digest"`
		Details    ollamaDetails `json:"details"`
	}
	out := struct {
		Models []entry `json:"models"`
	}{Models: []entry{}}
	for i, m := range s.models() {
		out.Models = append(out.Models, entry{Name: m.Name, Model: m.Name, ModifiedAt: modified, Size: m.Size,
			Digest: fmt.Sprintf("%064x", i+1), Details: details(m)})
	}
	writeJSON(w, http.StatusOK, out)
}

// modelRef names a model as Ollama's /api/show and /api/pull take it:
// "model", or the older "name".
type modelRef struct {
	Model string `json:"model"`
	Name  string `json:"name"`
}

func (m modelRef) name() string {
	if m.Model != "" {
		return m.Model
	}
	return m.Name
}

func (s *Server) ollamaShow(w http.ResponseWriter, r *http.Request) {
	var in modelRef
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	name := in.name()
	m, ok := s.model(name)
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model '%s' not found", name)})
		return
	}
	caps := []string{"completion"}
	if m.Embedding {
		caps = []string{"embedding"}
	}
	if m.Tools {
		caps = append(caps, "tools")
	}
	if m.Thinking {
		caps = append(caps, "thinking")
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"modelfile":    "FROM " + m.Name,
		"parameters":   "temperature 0.6",
		"template":     "{{ .Prompt }}",
		"details":      details(m),
		"model_info":   map[string]any{"general.architecture": m.family(), m.family() + ".context_length": m.contextLength()},
		"capabilities": caps,
		"modified_at":  modified,
	})
}
