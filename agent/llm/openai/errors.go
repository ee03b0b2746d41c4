package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/internal/transport"
)

// classify turns an error from the SDK into an *llm.Error (or returns ctx
// errors and nil as they are). f is the captured HTTP failure, model the
// model concerned ("" if none).
func (p *Provider) classify(err error, f *transport.Failure, model string) error {
	status, msg, code := 0, "", ""
	var api *openai.Error
	if errors.As(err, &api) || f.Status != 0 {
		status = f.Status
		if api != nil {
			status, msg, code = api.StatusCode, api.Message, api.Code
		}
		if msg == "" {
			msg = bodyMessage(f.Body)
		}
	}
	return p.classifier(model, code).Classify(err, f, status, msg)
}

// classifier is the wording of an OpenAI-compatible server's failures
// every provider meets, and the ones only these servers have; code is the
// error's code ("insufficient_quota"…), "" if none.
func (p *Provider) classifier(model, code string) transport.Classifier {
	return transport.Classifier{
		Provider:         "openai",
		Server:           p.base,
		At:               p.base,
		Unreachable:      fmt.Sprintf("nothing answers at %s", p.base),
		UnreachableHint:  "is the server running? Check the base URL in Settings",
		TLSHint:          "check the base URL (http or https?) and the server's certificate",
		UnauthorizedHint: "set OPENAI_API_KEY or the key in Settings",
		RateHint:         "the server is rate limiting; wait a moment and try again",
		TooLongHint:      "start a new chat or shorten the question",
		ServerHint:       "the server had a problem; try again later",
		Status: func(e *llm.Error, status int, msg, lower string) bool {
			return p.fromStatus(e, status, msg, lower, code, model)
		},
		Other: p.fromOther,
	}
}

// fromStatus classifies what only OpenAI-compatible servers answer: an
// account out of credit, a model without tools or not offered, a wrong
// base URL.
func (p *Provider) fromStatus(e *llm.Error, status int, msg, lower, code, model string) bool {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return false
	case status == http.StatusTooManyRequests && code == "insufficient_quota":
		e.Kind = llm.BadRequest
		e.Hint = "the account is out of credit: check its plan and billing"
	case status == http.StatusTooManyRequests:
		return false
	case strings.Contains(lower, "does not support tools") || strings.Contains(lower, "tools are not supported") ||
		strings.Contains(lower, "tool use is not supported") || strings.Contains(lower, "does not support function"):
		e.Kind = llm.ToolsUnsupported
		e.Message = fmt.Sprintf("model %s cannot use tools: %s", model, msg)
		e.Hint = "choose a model with tool (function calling) support"
	case code == "context_length_exceeded":
		e.Kind = llm.ContextTooLong
		e.Hint = "start a new chat or shorten the question"
	case transport.TooLong(lower):
		return false
	case status == http.StatusNotFound && (code == "model_not_found" || strings.Contains(lower, "model")):
		e.Kind = llm.ModelNotFound
		e.Message = fmt.Sprintf("model %s is not offered at %s", model, p.base)
		if msg != "" {
			e.Message += ": " + msg
		}
		e.Hint = "pick one of the models the server lists, or check the name"
	case status == http.StatusNotFound:
		e.Kind = llm.BadRequest
		e.Hint = "check the base URL: OpenAI-compatible servers usually end in /v1"
	default:
		return false
	}
	return true
}

// fromOther classifies an error inside the event stream, or a reply that
// is not JSON.
func (p *Provider) fromOther(e *llm.Error, err error) {
	var se *ssestream.StreamError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &se):
		msg := bodyMessage(se.Event.Data)
		if msg == "" {
			msg = se.Message
		}
		e.Message = fmt.Sprintf("%s stopped with an error: %s", p.base, msg)
		e.Kind = llm.StreamBroken
		if transport.TooLong(strings.ToLower(msg)) {
			e.Kind = llm.ContextTooLong
			e.Hint = "start a new chat or shorten the question"
		}
	case errors.As(err, &syn):
		e.Kind = llm.StreamBroken
		e.Message = fmt.Sprintf("%s sent a reply Loupe cannot read: %v", p.base, err)
	default:
		e.Kind = llm.BadRequest
		e.Message = err.Error()
	}
}

// bodyMessage reads an error body the SDK could not: {"error": "text"},
// {"message": …}, or plain text.
func bodyMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		s := strings.TrimSpace(string(body))
		if len(s) > 300 {
			s = s[:300] + "…"
		}
		return s
	}
	var s string
	if json.Unmarshal(v.Error, &s) == nil && s != "" {
		return s
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(v.Error, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	if v.Message != "" {
		return v.Message
	}
	return v.Detail
}
