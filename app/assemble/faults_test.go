package assemble_test

import (
	"context"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// TestFaultSuiteRealTools is the integration copy of the loop's fault
// suite (agent/faults_test.go): the same faults (agenttest.Faults) over
// the real tools and DuckDB, so that what the faults lean on in the tools
// (lenient arguments, describe_table, the SQL errors) is the real thing.
func TestFaultSuiteRealTools(t *testing.T) {
	agenttest.RunFaults(t, func(t *testing.T, f agenttest.Fault, cfg provider.Config) *agent.Outcome {
		p, err := provider.Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ws := tooltest.Workspace(t)
		a, err := assemble.Agent(ws, results.New(results.Config{}), p, cfg.Model,
			assemble.Options{MaxSteps: f.MaxSteps, ContextTokens: f.Context})
		if err != nil {
			t.Fatal(err)
		}
		sch, err := assemble.WorkspaceSchema(context.Background(), ws)
		if err != nil {
			t.Fatal(err)
		}
		rec := &agenttest.Recorder{}
		out := a.Run(context.Background(), agent.Input{RunID: "fault", Question: agenttest.Question, Schema: sch}, rec)
		sc := &scenario{ws: ws, rec: rec, out: out, question: agenttest.Question}
		sc.checkInvariants(t)
		return out
	})
}
