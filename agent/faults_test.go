package agent_test

import (
	"context"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm/provider"
)

// TestFaultSuite replays agenttest.Faults through the loop with the stub
// tools: what a small model does wrong, and whether the loop still gets
// it the data it needs. app/assemble replays the same faults over the real
// tools and DuckDB.
func TestFaultSuite(t *testing.T) {
	agenttest.RunFaults(t, func(t *testing.T, f agenttest.Fault, cfg provider.Config) *agent.Outcome {
		p, err := provider.Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		db := shop(t)
		set, err := db.Tools()
		if err != nil {
			t.Fatal(err)
		}
		a, err := agent.New(agent.Config{Provider: p, Model: cfg.Model, Tools: set, MaxSteps: f.MaxSteps, ContextTokens: f.Context})
		if err != nil {
			t.Fatal(err)
		}
		rec := &agenttest.Recorder{}
		out := a.Run(context.Background(), agent.Input{RunID: "fault", Question: agenttest.Question, Schema: db.Schema()}, rec)
		sc := &scenario{rec: rec, out: out, question: agenttest.Question}
		sc.checkInvariants(t)
		return out
	})
}
