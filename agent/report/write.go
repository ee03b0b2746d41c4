package report

import (
	"context"
	"errors"
	"fmt"
	"github.com/loupeapp/loupe/agent/refs"
	"log/slog"
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
)

// ErrEmptyReply is returned when the model's reply holds no report text
// (nothing, or reasoning only).
var ErrEmptyReply = errors.New("report: the model wrote no report text — it may have spent its output on reasoning; try again, raise the model's output limit, or use a larger model")

// Options tune WriteWith.
type Options struct {
	// OnDelta receives the report's visible text as it streams, reasoning
	// removed. Called from the calling goroutine.
	OnDelta func(text string)
	// OnReset is called when the provider restarted a broken stream: text
	// streamed so far must be discarded. Without it, text may repeat.
	OnReset func()
	// Temperature is the sampling temperature; nil means 0.2.
	Temperature *float64
	// MaxTokens caps the reply; 0 is the provider's default.
	MaxTokens int
	// Now stamps the report; nil means time.Now.
	Now func() time.Time
	// Log receives one line per report; nil means slog.Default().
	Log *slog.Logger
	// Version is the version of Loupe writing the report, shown in its
	// footer (Report.Version); empty leaves the footer out.
	Version string
}

// Write is stage two: one streamed model call, without tools, that turns
// exp into a report. onDelta (may be nil) receives the visible text as it
// is written. The model places charts and tables with placeholders that
// are resolved against exp (see Report.Body and Notices). It returns
// ctx.Err() when ctx ends, an error wrapping *llm.Error when the provider
// fails, ErrEmptyReply when the reply has no text, and an error when exp is
// invalid (see Exploration.Validate).
func Write(ctx context.Context, p llm.Provider, model string, exp Exploration, onDelta func(string)) (*Report, error) {
	return WriteWith(ctx, p, model, exp, Options{OnDelta: onDelta})
}

// WriteWith is Write with options.
func WriteWith(ctx context.Context, p llm.Provider, model string, exp Exploration, o Options) (*Report, error) {
	if err := exp.Validate(); err != nil {
		return nil, err
	}
	exp = exp.clone()
	exp.linkCharts()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	temp := 0.2
	if o.Temperature != nil {
		temp = *o.Temperature
	}
	now, log := o.Now, o.Log
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	req := llm.Request{
		Model: model,
		Messages: []llm.Message{
			{Role: llm.System, Content: systemPrompt},
			{Role: llm.User, Content: userPrompt(&exp)},
		},
		Temperature: &temp,
		MaxTokens:   o.MaxTokens,
	}
	var filter thinkFilter
	var stream func(llm.Delta)
	if o.OnDelta != nil || o.OnReset != nil {
		stream = func(d llm.Delta) {
			if d.Restart {
				filter = thinkFilter{}
				if o.OnReset != nil {
					o.OnReset()
				}
				return
			}
			if s := filter.write(d.Content); s != "" && o.OnDelta != nil {
				o.OnDelta(s)
			}
		}
	}
	start := time.Now()
	resp, err := p.Chat(ctx, req, stream)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("report: writing with %s model %q: %w", p.Name(), model, err)
	}
	if s := filter.flush(); s != "" && o.OnDelta != nil {
		o.OnDelta(s)
	}
	if strings.TrimSpace(stripThink(resp.Message.Content)) == "" {
		return nil, ErrEmptyReply
	}
	content := resp.Message.Content
	if exp.SchemaOnly {
		content = refs.FillCells(content, exp.results())
	}
	title, body, notices := compose(content, &exp)
	if resp.FinishReason == "length" {
		notices = append(notices, Notice{Kind: NoticeTruncated,
			Text: "The model stopped at its output limit: the report may end abruptly."})
	}
	rep := &Report{
		Title: title, Body: body, Exploration: exp, Notices: notices,
		Model: model, Provider: p.Name(), Usage: resp.Usage, Created: now(), Version: o.Version,
	}
	log.Info("report written", "subsystem", "report", "provider", p.Name(), "model", model,
		"ms", time.Since(start).Milliseconds(), "chars", len(body), "notices", len(notices),
		"prompt_tokens", resp.Usage.PromptTokens, "completion_tokens", resp.Usage.CompletionTokens)
	return rep, nil
}
