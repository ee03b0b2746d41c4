package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/internal/transport"
)

// classify turns an error from the SDK into an *llm.Error (or returns ctx
// errors and nil as they are). f is the captured HTTP failure, model the
// model concerned ("" if none).
func (p *Provider) classify(err error, f *transport.Failure, model string) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	e := &llm.Error{Provider: "openai", Err: err}
	var api *openai.Error
	var se *ssestream.StreamError
	switch {
	case errors.As(err, &api) || f.Status != 0:
		status, msg, code := f.Status, "", ""
		if api != nil {
			status, msg, code = api.StatusCode, api.Message, api.Code
		}
		if msg == "" {
			msg = bodyMessage(f.Body)
		}
		p.fromStatus(e, status, msg, code, f, model)
	case errors.As(err, &se):
		msg := bodyMessage(se.Event.Data)
		if msg == "" {
			msg = se.Message
		}
		lower := strings.ToLower(msg)
		e.Message = fmt.Sprintf("%s stopped with an error: %s", p.base, msg)
		switch {
		case tooLong(lower, ""):
			e.Kind = llm.ContextTooLong
			e.Hint = "start a new chat or shorten the question"
		default:
			e.Kind = llm.StreamBroken
		}
	case transport.TLS(err):
		e.Kind = llm.Unreachable
		e.Message = fmt.Sprintf("the secure connection to %s failed: %v", p.base, err)
		e.Hint = "check the base URL (http or https?) and the server's certificate"
	case transport.Unreachable(err):
		e.Kind = llm.Unreachable
		e.Message = fmt.Sprintf("nothing answers at %s", p.base)
		e.Hint = "is the server running? Check the base URL in Settings"
	case transport.Broken(err):
		e.Kind = llm.StreamBroken
		e.Message = fmt.Sprintf("the connection to %s broke mid-reply", p.base)
	default:
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			e.Kind = llm.StreamBroken
			e.Message = fmt.Sprintf("%s sent a reply Loupe cannot read: %v", p.base, err)
			break
		}
		e.Kind = llm.BadRequest
		e.Message = err.Error()
	}
	return e
}

func (p *Provider) fromStatus(e *llm.Error, status int, msg, code string, f *transport.Failure, model string) {
	e.Status = status
	lower := strings.ToLower(msg)
	e.Message = fmt.Sprintf("%s answered %d %s", p.base, status, http.StatusText(status))
	if msg != "" {
		e.Message += ": " + msg
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = llm.Unauthorized
		e.Hint = "set OPENAI_API_KEY or the key in Settings"
	case status == http.StatusTooManyRequests && code == "insufficient_quota":
		e.Kind = llm.BadRequest
		e.Hint = "the account is out of credit: check its plan and billing"
	case status == http.StatusTooManyRequests:
		e.Kind = llm.RateLimited
		e.RetryAfter = transport.RetryAfter(f.Header, time.Now())
		e.Hint = "the server is rate limiting; wait a moment and try again"
	case strings.Contains(lower, "does not support tools") || strings.Contains(lower, "tools are not supported") ||
		strings.Contains(lower, "tool use is not supported") || strings.Contains(lower, "does not support function"):
		e.Kind = llm.ToolsUnsupported
		e.Message = fmt.Sprintf("model %s cannot use tools: %s", model, msg)
		e.Hint = "choose a model with tool (function calling) support"
	case tooLong(lower, code):
		e.Kind = llm.ContextTooLong
		e.Hint = "start a new chat or shorten the question"
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
	case status >= 500:
		e.Kind = llm.ServerError
		e.Hint = "the server had a problem; try again later"
	default:
		e.Kind = llm.BadRequest
	}
}

func tooLong(lower, code string) bool {
	return code == "context_length_exceeded" || strings.Contains(lower, "context length") ||
		strings.Contains(lower, "context window") || strings.Contains(lower, "maximum context") ||
		strings.Contains(lower, "too many tokens") || strings.Contains(lower, "prompt is too long")
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
