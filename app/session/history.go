package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
)

// contextSizer is a provider that knows a model's context window (Ollama).
type contextSizer interface {
	ContextLength(ctx context.Context, model string) (int, error)
}

// History builds the history of the question pair asks from the messages
// stored before it, within agent.HistoryBudget of the model's context
// window when the provider knows it. An answer made by the same provider
// and model at the same privacy level is replayed as its run sent it (its
// stored transcript), so that the follow-up's prompt starts with the
// previous one and a model server reads only what is new (see
// agent.History). At the schema privacy level it holds no value: earlier
// answers as the model wrote them (with references), and answers made at
// another level without their text or tool results (see schemaPast). The
// store's and provider's errors are returned wrapped; ctx bounds the
// reads.
func History(ctx context.Context, st *store.Store, pair *store.Pair, p llm.Provider, model string, level privacy.Level) ([]llm.Message, error) {
	th, err := st.Thread(ctx, pair.User.ConversationID)
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", pair.User.ConversationID, err)
	}
	blobs, err := st.Blobs(ctx, pair.User.ConversationID)
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", pair.User.ConversationID, err)
	}
	var past []agent.Past
	for _, m := range th.Messages {
		if m.Seq >= pair.User.Seq {
			break
		}
		pm := pastOf(m)
		if m.Role == store.Assistant {
			// at the schema level, the answer as told in text holds no value
			// either: the history tells it so when it cannot replay it
			if level == privacy.Schema {
				if pm, err = schemaPast(ctx, st, m, pm); err != nil {
					return nil, err
				}
			}
			if pm.Sent, err = sentOf(blobs[m.ID], p.Name(), model, level == privacy.Schema); err != nil {
				return nil, fmt.Errorf("read the history of %s: %w", pair.User.ConversationID, err)
			}
		}
		past = append(past, pm)
	}
	window := 0
	if cs, ok := p.(contextSizer); ok {
		if n, err := cs.ContextLength(ctx, model); err == nil {
			window = n
		}
	}
	return agent.History(past, agent.HistoryOptions{MaxTokens: agent.HistoryBudget(window)}), nil
}

// sentOf is the transcript of a stored answer's run when a run of
// provider's model at this privacy level (schemaOnly) may send it again
// as it is: the run was made by the same provider and model (its tool
// call ids and habits are theirs) and at the same level (at the schema
// level it holds no value; made at another, it may). Else nil: the
// history then tells the answer in text.
func sentOf(b store.Blob, provider, model string, schemaOnly bool) ([]llm.Message, error) {
	if len(b.Outcome) == 0 {
		return nil, nil
	}
	var out struct {
		Transcript []llm.Message `json:"transcript"`
		Meta       struct {
			Provider   string `json:"provider"`
			Model      string `json:"model"`
			SchemaOnly bool   `json:"schema_only"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(b.Outcome, &out); err != nil {
		return nil, fmt.Errorf("read a stored outcome: %w", err)
	}
	if out.Meta.Provider != provider || out.Meta.Model != model || out.Meta.SchemaOnly != schemaOnly {
		return nil, nil
	}
	return out.Transcript, nil
}

// schemaPast is a past answer as a run at the schema level may send it:
// made at schema, its text as the model wrote it (the stored text has the
// values filled in) and its tool calls without their results (a stored
// result may be what the user saw, when the run was cut short); made at
// another level, neither.
func schemaPast(ctx context.Context, st *store.Store, m store.Message, p agent.Past) (agent.Past, error) {
	b, err := st.BlobOf(ctx, m.ID)
	if err != nil {
		return p, err
	}
	var out struct {
		Written string `json:"written"`
		Meta    struct {
			SchemaOnly bool `json:"schema_only"`
		} `json:"meta"`
	}
	if len(b.Outcome) > 0 {
		if err := json.Unmarshal(b.Outcome, &out); err != nil {
			return p, fmt.Errorf("read a stored outcome: %w", err)
		}
	}
	switch {
	case !out.Meta.SchemaOnly:
		p.Content, p.Calls = "(an earlier answer, made at another privacy level: not sent at the schema level)", nil
	case out.Written != "":
		p.Content = out.Written
	}
	for i := range p.Calls {
		p.Calls[i].Result = "(not sent at the schema privacy level)"
	}
	return p, nil
}

// pastOf is a stored message as agent.History reads it.
func pastOf(m store.Message) agent.Past {
	p := agent.Past{Role: llm.Role(m.Role), Content: m.Content, Status: string(m.Status), Error: m.Error}
	for _, c := range m.ToolCalls {
		p.Calls = append(p.Calls, agent.PastCall{Name: c.Name, Arguments: c.Arguments, Result: c.Result, Failed: c.Failed, Skipped: c.Skipped})
	}
	return p
}
