package eval_test

import (
	"context"
	"testing"

	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/app/eval"
	"github.com/loupeapp/loupe/data/privacy"
)

// BenchmarkAnswerCost is what an answer costs on the eval sample, asked
// of the scripted model (zero latency) through the real Ollama client:
// prompt tokens per answer (the requests as a chat template lays them
// out, tools included, at about four characters a token) and how many
// of them a model server that keeps the previous request's cache (as
// Ollama and llama.cpp do) need not read again (the request's verbatim
// prefix shared with the request before it, the previous question's
// included: the system prompt and the tools are the same), completion
// tokens, steps, and Loupe's own time per answer (the run, its SQL
// included; the model takes none). Completion tokens are the fake
// server's count of the scripted replies, so they say more about the
// script than about a model.
func BenchmarkAnswerCost(b *testing.B) {
	qs, err := eval.SampleQuestions()
	if err != nil {
		b.Fatal(err)
	}
	srv := scriptedModel(b, qs, true)
	open := sampleEnv(b, srv, privacy.Open)
	var prompt, cached, completion, steps, ms float64
	for b.Loop() {
		first := len(srv.Requests())
		sum, err := eval.Run(context.Background(), qs, open, nil)
		if err != nil {
			b.Fatal(err)
		}
		if sum.Passed != len(qs) {
			b.Fatalf("%d of %d questions passed", sum.Passed, len(qs))
		}
		completion, steps, ms = 0, 0, 0
		for _, r := range sum.Results {
			completion += float64(r.CompletionTokens)
			steps += float64(r.Steps)
			ms += r.Seconds * 1000
		}
		// each request's prompt as a chat template lays it out (tools
		// included), and its prefix shared with the request before
		reqs := srv.Requests()[first:]
		prompt, cached = 0, 0
		for i, r := range reqs {
			text := agenttest.PromptText(r)
			prompt += tokens(len(text))
			if i > 0 {
				cached += tokens(int(agenttest.Share(agenttest.PromptText(reqs[i-1]), text) * float64(len(text))))
			}
		}
	}
	n := float64(len(qs))
	b.ReportMetric(prompt/n, "prompt-tokens/answer")
	b.ReportMetric(cached/n, "cached-prefix-tokens/answer")
	b.ReportMetric(completion/n, "completion-tokens/answer")
	b.ReportMetric(steps/n, "steps/answer")
	b.ReportMetric(ms/n, "loupe-ms/answer")
}

// tokens estimates the tokens of n characters of English text and SQL.
func tokens(n int) float64 { return float64((n + 3) / 4) }
