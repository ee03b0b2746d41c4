package ollama

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/internal/transport"
)

// classify turns an error from the api client into an *llm.Error (or
// returns ctx errors and nil as they are). f is the captured HTTP failure,
// model the model concerned ("" if none).
func (p *Provider) classify(err error, f *transport.Failure, model string) error {
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
	if status != 0 && msg == "" {
		msg = strings.TrimSpace(string(f.Body))
	}
	return p.classifier(model).Classify(err, f, status, msg)
}

// classifier is Ollama's wording of the failures every provider meets,
// and the ones only Ollama has.
func (p *Provider) classifier(model string) transport.Classifier {
	return transport.Classifier{
		Provider:         "ollama",
		Server:           "Ollama",
		At:               fmt.Sprintf("Ollama at %s", p.base),
		Unreachable:      fmt.Sprintf("Ollama is not running at %s", p.base),
		UnreachableHint:  "start it with `ollama serve`, or set OLLAMA_HOST to where it runs",
		TLSHint:          "check OLLAMA_HOST (http or https?) and the server's certificate",
		UnauthorizedHint: "this Ollama server needs you to sign in (`ollama signin`)",
		RateHint:         "the server is busy; wait a moment and try again",
		TooLongHint:      "start a new chat or shorten the question; a larger context size needs more memory",
		ServerHint:       "Ollama had a problem; its server log says more",
		Status: func(e *llm.Error, status int, _, lower string) bool {
			return p.fromStatus(e, status, lower, model)
		},
		Other: p.fromMessage, // an {"error": …} line mid-stream, or a line that is not JSON
	}
}

// fromStatus classifies what only Ollama answers: a model without tools,
// embeddings or thinking, a model not installed, too little memory.
func (p *Provider) fromStatus(e *llm.Error, status int, lower, model string) bool {
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
	case !transport.TooLong(lower) && (strings.Contains(lower, "system memory") || strings.Contains(lower, "out of memory")):
		e.Kind = llm.BadRequest
		e.Hint = "the model does not fit in memory: choose a smaller model or lower the context size"
	default:
		return false
	}
	return true
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
	case transport.TooLong(lower):
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
