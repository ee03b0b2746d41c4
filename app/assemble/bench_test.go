package assemble_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// BenchmarkAgentStep measures the agent's own cost per step — the loop,
// events, the provider adapter, HTTP and JSON both ways — with a
// zero-latency fake model, excluding the time tools spend (SQL). Each run
// is 10 steps: 9 run_sql calls and an answer. It reports the median
// overhead per step over the runs as ms/step (target ≤ 2 ms).
func BenchmarkAgentStep(b *testing.B) {
	for _, wire := range wires {
		b.Run(wire, func(b *testing.B) {
			ws := tooltest.Workspace(b)
			srv := fake.Start(b, fake.Options{Respond: func(r fake.Request) fake.Turn {
				if r.N%10 == 9 {
					return fake.Text("There are 40 orders.\n\nFindings:\n- 40 orders [q1]")
				}
				return fake.Calls(call("run_sql", map[string]any{"sql": "SELECT count(*) FROM orders"}))
			}})
			url := srv.OllamaURL()
			if wire == provider.OpenAI {
				url = srv.OpenAIURL()
			}
			p, err := provider.Open(provider.Config{Provider: wire, Model: "qwen3:8b", BaseURL: url, APIKey: "sk-test"})
			if err != nil {
				b.Fatal(err)
			}
			a, err := assemble.Agent(ws, results.New(results.Config{}), p, "qwen3:8b", assemble.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			sch, err := assemble.WorkspaceSchema(ctx, ws)
			if err != nil {
				b.Fatal(err)
			}
			var perStep []float64
			for b.Loop() {
				out := a.Run(ctx, agent.Input{RunID: "bench", Question: "How many orders?", Schema: sch}, agent.Discard)
				if out.Status != agent.Done || out.Meta.Steps != 10 {
					b.Fatalf("status %s after %d steps: %s", out.Status, out.Meta.Steps, out.Reason)
				}
				tools := 0.0
				for _, tt := range out.Meta.ToolTimes {
					tools += tt.MS
				}
				perStep = append(perStep, (out.Meta.DurationMS-tools)/float64(out.Meta.Steps))
			}
			sort.Float64s(perStep)
			b.ReportMetric(perStep[len(perStep)/2], "overhead-ms/step")
		})
	}
}

// BenchmarkPromptSize20Tables reports the estimated size, in tokens, of the
// system prompt for a workspace of 20 tables of 8–12 columns each.
func BenchmarkPromptSize20Tables(b *testing.B) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil))) // loads log at INFO
	ctx := context.Background()
	ws, err := workspace.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	dir := b.TempDir()
	for i := range 20 {
		cols := 8 + i%5
		var head, row []string
		for c := range cols {
			head = append(head, fmt.Sprintf("field_%d_%d", i, c))
			row = append(row, fmt.Sprint([]string{"north", "1.5", "2024-01-02", "Acme Corp", "42"}[c%5]))
		}
		body := strings.Join(head, ",") + "\n" + strings.Repeat(strings.Join(row, ",")+"\n", 50)
		path := filepath.Join(dir, fmt.Sprintf("table_%02d.csv", i))
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := ws.Loader.Load(ctx, path, load.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	sch, err := assemble.WorkspaceSchema(ctx, ws)
	if err != nil {
		b.Fatal(err)
	}
	set, err := assemble.Tools(ws, results.New(results.Config{}))
	if err != nil {
		b.Fatal(err)
	}
	var tokens int
	for b.Loop() {
		tokens = agent.PromptTokens(sch, set, agent.DefaultMaxSteps)
	}
	b.ReportMetric(float64(tokens), "prompt-tokens")
}
