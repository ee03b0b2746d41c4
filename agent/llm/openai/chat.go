package openai

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/shared"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/internal/transport"
)

// Chat implements llm.Provider. It streams with usage requested
// (stream_options.include_usage). A stream that breaks mid-way is retried;
// onDelta then gets Delta{Restart: true} before the new stream.
func (p *Provider) Chat(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	req.Model = p.model(req.Model)
	if req.Model == "" {
		return llm.Response{}, &llm.Error{Provider: "openai", Kind: llm.BadRequest,
			Message: "no model chosen", Hint: "pick a model in Settings or set LOUPE_MODEL"}
	}
	params, err := p.params(req)
	if err != nil {
		return llm.Response{}, err
	}
	out, err := p.send(ctx, params, onDelta)
	if err != nil && params.PromptCacheKey.Valid() && refusesCacheKey(err) {
		p.noCacheKey.Store(true)
		p.log.Info("the server takes no prompt_cache_key; sending none from now on", "err", err)
		params.PromptCacheKey = param.Opt[string]{}
		out, err = p.send(ctx, params, onDelta)
	}
	return out, err
}

// refusesCacheKey reports whether err is a server refusing the request
// for its prompt_cache_key, as strict OpenAI-compatible servers refuse a
// field they do not know.
func refusesCacheKey(err error) bool {
	return llm.KindOf(err) == llm.BadRequest && strings.Contains(err.Error(), "prompt_cache_key")
}

// send streams params, retrying as p.retry says.
func (p *Provider) send(ctx context.Context, params openai.ChatCompletionNewParams, onDelta func(llm.Delta)) (llm.Response, error) {
	var (
		out   llm.Response
		dirty bool
	)
	emit := func(d llm.Delta) {
		dirty = true
		if onDelta != nil {
			onDelta(d)
		}
	}
	err := llm.Retry(ctx, p.retry, func(ctx context.Context) error {
		if dirty {
			dirty = false
			if onDelta != nil {
				onDelta(llm.Delta{Restart: true})
			}
		}
		var err error
		out, err = p.stream(ctx, params, emit)
		return err
	})
	if err != nil {
		return llm.Response{}, err
	}
	return out, nil
}

// call accumulates one streamed tool call.
type call struct {
	id, name string
	args     strings.Builder
}

func (p *Provider) stream(ctx context.Context, params openai.ChatCompletionNewParams, emit func(llm.Delta)) (llm.Response, error) {
	sctx, stall := transport.WatchStall(ctx, p.cfg.StallTimeout)
	defer stall.Stop()
	fctx, f := transport.WithFailure(sctx)

	var (
		content, thinking strings.Builder
		split             llm.ThinkSplitter
		calls             []*call
		byIndex           = map[int64]int{} // stream index → calls position
		res               llm.Response
	)
	text := func(c, t string) {
		if c == "" && t == "" {
			return
		}
		content.WriteString(c)
		thinking.WriteString(t)
		emit(llm.Delta{Content: c, Thinking: t})
	}
	s := p.chat.NewStreaming(fctx, params)
	defer s.Close()
	for s.Next() {
		stall.Kick()
		chunk := s.Current()
		if chunk.JSON.Usage.Valid() {
			res.Usage.PromptTokens += int(chunk.Usage.PromptTokens)
			res.Usage.CompletionTokens += int(chunk.Usage.CompletionTokens)
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			d := ch.Delta
			text("", reasoning(d.JSON.ExtraFields))
			if d.Content != "" {
				text(split.Split(d.Content))
			}
			for _, tc := range d.ToolCalls {
				i, ok := byIndex[tc.Index]
				// Some servers send every call at index 0: a new id starts a new call.
				if !ok || (tc.ID != "" && calls[i].id != "" && tc.ID != calls[i].id) {
					i = len(calls)
					byIndex[tc.Index] = i
					calls = append(calls, &call{})
				}
				c := calls[i]
				if c.id == "" {
					c.id = tc.ID
				}
				if c.name == "" {
					c.name = tc.Function.Name
				}
				c.args.WriteString(tc.Function.Arguments)
			}
			if ch.FinishReason != "" {
				res.FinishReason = ch.FinishReason
			}
		}
	}
	if err := s.Err(); err != nil {
		if stall.Stalled() && ctx.Err() == nil {
			return llm.Response{}, llm.Errorf("openai", llm.StreamBroken, "", err,
				"%s sent nothing for %s", p.base, stall.Timeout())
		}
		return llm.Response{}, p.classify(err, f, params.Model)
	}
	if res.FinishReason == "" {
		return llm.Response{}, llm.Errorf("openai", llm.StreamBroken, "", nil,
			"the reply from %s stopped before it was done", p.base)
	}
	text(split.Flush())
	res.Message = llm.Message{Role: llm.Assistant, Content: content.String(), Thinking: thinking.String()}
	for i, c := range calls {
		id := c.id
		if id == "" {
			id = "call_" + strconv.Itoa(i+1)
		}
		args := strings.TrimSpace(c.args.String())
		if args == "" {
			args = "{}"
		}
		res.Message.ToolCalls = append(res.Message.ToolCalls, llm.ToolCall{ID: id, Name: c.name, Arguments: json.RawMessage(args)})
	}
	return res, nil
}

// reasoning reads the reasoning text servers add to a delta: vLLM, LM
// Studio and DeepSeek say "reasoning_content", OpenRouter and newer vLLM
// "reasoning".
func reasoning(extra map[string]respjson.Field) string {
	for _, k := range [...]string{"reasoning_content", "reasoning"} {
		f, ok := extra[k]
		if !ok {
			continue
		}
		raw := f.Raw()
		if raw == "" || raw == "null" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// extraInt reads the first of keys that holds a positive number.
func extraInt(extra map[string]respjson.Field, keys ...string) int {
	for _, k := range keys {
		if f, ok := extra[k]; ok {
			if n, err := strconv.ParseFloat(f.Raw(), 64); err == nil && n > 0 {
				return int(n)
			}
		}
	}
	return 0
}

// params translates req to the SDK's request.
func (p *Provider) params(req llm.Request) (openai.ChatCompletionNewParams, error) {
	params := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		Messages:      make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if req.Temperature != nil {
		params.Temperature = openai.Float(*req.Temperature)
	}
	if req.CacheKey != "" && !p.noCacheKey.Load() {
		params.PromptCacheKey = openai.String(req.CacheKey)
	}
	if req.MaxTokens > 0 {
		if p.maxCompletion {
			params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			params.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	if len(req.Format) > 0 {
		var schema map[string]any
		if err := json.Unmarshal(req.Format, &schema); err != nil {
			return params, llm.Errorf("openai", llm.BadRequest, "", err, "the reply format is not a JSON Schema object")
		}
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "reply", Schema: schema}},
		}
	}
	for _, m := range req.Messages {
		msg, err := message(m)
		if err != nil {
			return params, err
		}
		params.Messages = append(params.Messages, msg)
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &fn.Parameters); err != nil {
				return params, llm.Errorf("openai", llm.BadRequest, "this is a bug in the tool's definition", err,
					"tool %s has parameters that are not a JSON object", t.Name)
			}
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	return params, nil
}

func message(m llm.Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case llm.System:
		return openai.SystemMessage(m.Content), nil
	case llm.User:
		return openai.UserMessage(m.Content), nil
	case llm.Tool:
		return openai.ToolMessage(m.Content, m.ToolCallID), nil
	case llm.Assistant:
		a := openai.ChatCompletionAssistantMessageParam{}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = openai.String(m.Content)
		}
		for _, tc := range m.ToolCalls {
			args := string(tc.Arguments)
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args}},
			})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	}
	return openai.ChatCompletionMessageParamUnion{}, llm.Errorf("openai", llm.BadRequest, "", nil, "message role %q is unknown", m.Role)
}
