package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/internal/transport"
)

// classify turns an error from the api client into an *llm.Error (or
// returns ctx errors and nil as they are). f is the captured HTTP failure,
// model the model concerned ("" if none).
func (p *Provider) classify(err error, f *transport.Failure, model string) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	e := &llm.Error{Provider: "ollama", Err: err}
	status, msg := 0, ""
	var se api.StatusError
	var ae api.AuthorizationError
	switch {
	case errors.As(err, &se):
		status, msg = se.StatusCode, se.ErrorMessage
	case errors.As(err, &ae):
		status, msg = ae.StatusCode, ae.Status
	}
	if status == 0 && f.Status != 0 {
		status = f.Status
	}
	if status != 0 {
		e.Status = status
		if msg == "" {
			msg = strings.TrimSpace(string(f.Body))
		}
		p.fromStatus(e, status, msg, f, model)
		return e
	}
	switch {
	case transport.TLS(err):
		e.Kind = llm.Unreachable
		e.Message = fmt.Sprintf("the secure connection to Ollama at %s failed: %v", p.base, err)
		e.Hint = "check OLLAMA_HOST (http or https?) and the server's certificate"
	case transport.Unreachable(err):
		e.Kind = llm.Unreachable
		e.Message = fmt.Sprintf("Ollama is not running at %s", p.base)
		e.Hint = "start it with `ollama serve`, or set OLLAMA_HOST to where it runs"
	case transport.Broken(err):
		e.Kind = llm.StreamBroken
		e.Message = "the connection to Ollama broke mid-reply"
	default:
		// An {"error": …} line mid-stream, or a line that is not JSON.
		p.fromMessage(e, err)
	}
	return e
}

func (p *Provider) fromStatus(e *llm.Error, status int, msg string, f *transport.Failure, model string) {
	lower := strings.ToLower(msg)
	e.Message = fmt.Sprintf("Ollama answered %d %s", status, http.StatusText(status))
	if msg != "" {
		e.Message += ": " + msg
	}
	switch {
	case strings.Contains(lower, "does not support tools"):
		e.Kind = llm.ToolsUnsupported
		e.Message = fmt.Sprintf("model %s cannot use tools", model)
		e.Hint = "choose a model with tool support (`ollama show MODEL` lists its capabilities; qwen3, llama3.1 and mistral-nemo have it)"
	case strings.Contains(lower, "does not support embed") || strings.Contains(lower, "not support embedding"):
		e.Kind = llm.BadRequest
		e.Message = fmt.Sprintf("model %s cannot make embeddings", model)
		e.Hint = fmt.Sprintf("choose an embedding model, e.g. %s (`ollama pull %s`)", DefaultEmbedModel, DefaultEmbedModel)
	case strings.Contains(lower, "does not support thinking"):
		e.Kind = llm.BadRequest
		e.Hint = "turn thinking off for this model"
	case status == http.StatusNotFound:
		e.Kind = llm.ModelNotFound
		e.Message = fmt.Sprintf("model %s is not installed in Ollama at %s", model, p.base)
		e.Hint = fmt.Sprintf("pull it with `ollama pull %s`", model)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = llm.Unauthorized
		e.Hint = "this Ollama server needs you to sign in (`ollama signin`)"
	case status == http.StatusTooManyRequests:
		e.Kind = llm.RateLimited
		e.RetryAfter = transport.RetryAfter(f.Header, time.Now())
		e.Hint = "the server is busy; wait a moment and try again"
	case tooLong(lower):
		e.Kind = llm.ContextTooLong
		e.Hint = "start a new chat or shorten the question; a larger context size needs more memory"
	case strings.Contains(lower, "system memory") || strings.Contains(lower, "out of memory"):
		e.Kind = llm.BadRequest
		e.Hint = "the model does not fit in memory: choose a smaller model or lower the context size"
	case status >= 500:
		e.Kind = llm.ServerError
		e.Hint = "Ollama had a problem; its server log says more"
	default:
		e.Kind = llm.BadRequest
	}
}

// fromMessage classifies an error that came as text inside the stream.
func (p *Provider) fromMessage(e *llm.Error, err error) {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	lower := strings.ToLower(err.Error())
	switch {
	case errors.As(err, &syn) || errors.As(err, &typ):
		e.Kind = llm.StreamBroken
		e.Message = "Ollama sent a reply Loupe cannot read: " + err.Error()
	case tooLong(lower):
		e.Kind = llm.ContextTooLong
		e.Message = "Ollama: " + err.Error()
		e.Hint = "start a new chat or shorten the question"
	case strings.Contains(lower, "does not support tools"):
		e.Kind = llm.ToolsUnsupported
		e.Message = err.Error()
		e.Hint = "choose a model with tool support"
	default:
		e.Kind = llm.StreamBroken
		e.Message = "Ollama stopped with an error: " + err.Error()
	}
}

func tooLong(lower string) bool {
	return strings.Contains(lower, "context length") || strings.Contains(lower, "context window") ||
		strings.Contains(lower, "exceeds the context") || strings.Contains(lower, "too long")
}
