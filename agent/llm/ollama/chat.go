package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/internal/transport"
)

// Chat implements llm.Provider. Before the first request for a model it
// asks /api/show for the model's context length (cached), and sends num_ctx
// = min(context length, MaxContext). A stream that breaks mid-way is
// retried; onDelta then gets Delta{Restart: true} before the new stream.
func (p *Provider) Chat(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	req.Model = p.model(req.Model)
	if req.Model == "" {
		return llm.Response{}, &llm.Error{Provider: "ollama", Kind: llm.BadRequest, Err: errNoModel,
			Message: "no model chosen", Hint: "pick a model in Settings or set LOUPE_MODEL (`ollama list` shows the installed ones)"}
	}
	areq, err := p.request(req)
	if err != nil {
		return llm.Response{}, err
	}
	var (
		out   llm.Response
		dirty bool // something was streamed by the current attempt
	)
	emit := func(d llm.Delta) {
		dirty = true
		if onDelta != nil {
			onDelta(d)
		}
	}
	err = llm.Retry(ctx, p.retry, func(ctx context.Context) error {
		if dirty {
			dirty = false
			if onDelta != nil {
				onDelta(llm.Delta{Restart: true})
			}
		}
		info, err := p.cachedShow(ctx, req.Model)
		if err != nil {
			return err
		}
		areq.Options["num_ctx"] = p.numCtx(info)
		out, err = p.stream(ctx, areq, emit)
		return err
	})
	if err != nil {
		return llm.Response{}, err
	}
	return out, nil
}

// stream runs one /api/chat request.
func (p *Provider) stream(ctx context.Context, areq *api.ChatRequest, emit func(llm.Delta)) (llm.Response, error) {
	sctx, stall := transport.WatchStall(ctx, p.cfg.StallTimeout)
	defer stall.Stop()
	fctx, f := transport.WithFailure(sctx)

	var (
		content, thinking strings.Builder
		split             llm.ThinkSplitter
		msg               = llm.Message{Role: llm.Assistant}
		res               llm.Response
		done              bool
	)
	text := func(c, t string) {
		if c == "" && t == "" {
			return
		}
		content.WriteString(c)
		thinking.WriteString(t)
		emit(llm.Delta{Content: c, Thinking: t})
	}
	err := p.chatStream(fctx, areq, func(r api.ChatResponse) error {
		stall.Kick()
		text("", r.Message.Thinking)
		if r.Message.Content != "" {
			text(split.Split(r.Message.Content))
		}
		for _, tc := range r.Message.ToolCalls {
			args, err := json.Marshal(tc.Function.Arguments)
			if err != nil {
				args = []byte("{}")
			}
			id := tc.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", len(msg.ToolCalls)+1)
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: id, Name: tc.Function.Name, Arguments: args})
		}
		if r.Done {
			done = true
			res.Usage = llm.Usage{PromptTokens: r.PromptEvalCount, CompletionTokens: r.EvalCount}
			res.FinishReason = r.DoneReason
		}
		return nil
	})
	if err != nil {
		if stall.Stalled() && ctx.Err() == nil {
			return llm.Response{}, llm.Errorf("ollama", llm.StreamBroken, "", err,
				"Ollama sent nothing for %s", stall.Timeout())
		}
		return llm.Response{}, p.classify(err, f, areq.Model)
	}
	if !done {
		return llm.Response{}, llm.Errorf("ollama", llm.StreamBroken, "", nil,
			"the reply from Ollama stopped before it was done")
	}
	text(split.Flush())
	msg.Content, msg.Thinking = content.String(), thinking.String()
	if len(msg.ToolCalls) > 0 {
		res.FinishReason = "tool_calls"
	}
	res.Message = msg
	return res, nil
}

// request translates req to Ollama's types; Options is left ready for
// num_ctx.
func (p *Provider) request(req llm.Request) (*api.ChatRequest, error) {
	stream := true
	areq := &api.ChatRequest{Model: req.Model, Stream: &stream, Format: req.Format, Options: map[string]any{}}
	keep := DefaultKeepAlive
	if p.cfg.KeepAlive != nil {
		keep = *p.cfg.KeepAlive
	}
	areq.KeepAlive = &api.Duration{Duration: keep}
	if p.cfg.Think != nil {
		areq.Think = &api.ThinkValue{Value: *p.cfg.Think}
	}
	if req.Temperature != nil {
		areq.Options["temperature"] = *req.Temperature
	}
	if req.MaxTokens > 0 {
		areq.Options["num_predict"] = req.MaxTokens
	}
	areq.Messages = make([]api.Message, 0, len(req.Messages))
	for _, m := range req.Messages {
		am := api.Message{Role: string(m.Role), Content: m.Content, ToolName: m.Name, ToolCallID: m.ToolCallID}
		for i, tc := range m.ToolCalls {
			call := api.ToolCall{ID: tc.ID}
			call.Function.Index = i
			call.Function.Name = tc.Name
			call.Function.Arguments = arguments(tc.Arguments)
			am.ToolCalls = append(am.ToolCalls, call)
		}
		areq.Messages = append(areq.Messages, am)
	}
	for _, t := range req.Tools {
		tool := api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Name, Description: t.Description}}
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &tool.Function.Parameters); err != nil {
				return nil, llm.Errorf("ollama", llm.BadRequest, "this is a bug in the tool's definition", err,
					"tool %s has parameters Ollama cannot read", t.Name)
			}
		}
		areq.Tools = append(areq.Tools, tool)
	}
	return areq, nil
}

// arguments turns a call's raw arguments back into Ollama's object. An
// object is kept; a JSON string holding an object is unwrapped; anything
// else (invalid JSON) becomes an empty object, since Ollama's history can
// only hold objects.
func arguments(raw json.RawMessage) api.ToolCallFunctionArguments {
	args := api.NewToolCallFunctionArguments()
	if err := json.Unmarshal(raw, &args); err == nil {
		return args
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		inner := api.NewToolCallFunctionArguments()
		if json.Unmarshal([]byte(s), &inner) == nil {
			return inner
		}
	}
	return api.NewToolCallFunctionArguments()
}
