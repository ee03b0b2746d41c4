package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/eval"
	"github.com/loupeapp/loupe/app/sample"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
)

// scriptedModel answers each sample question: right runs the gold query
// and answers; wrong runs a query that gives another result.
func scriptedModel(t testing.TB, qs []eval.Question, right bool) *fake.Server {
	t.Helper()
	byQuestion := map[string]eval.Question{}
	for _, q := range qs {
		byQuestion[q.Question] = q
	}
	return fake.Start(t, fake.Options{Respond: func(r fake.Request) fake.Turn {
		q := byQuestion[agenttest.Asked(r)]
		if len(r.ToolResults()) > 0 {
			if q.Answer != "" && right {
				return fake.Text("The first order was placed on " + q.Answer + ".")
			}
			return fake.Text("Here is what I found.")
		}
		sql := q.SQL
		switch {
		case q.SQL == "":
			sql = "SELECT min(order_date) FROM orders"
		case !right:
			sql = "SELECT 42 AS answer"
		}
		return fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql": ` + quote(sql) + `}`})
	}})
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func sampleEnv(t testing.TB, srv *fake.Server, level privacy.Level) eval.Opener {
	t.Helper()
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	paths, err := sample.WriteTo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if _, err := ws.Loader.Load(ctx, p, load.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := provider.Open(provider.Config{Provider: provider.Ollama, Model: "qwen3:8b", BaseURL: srv.OllamaURL()})
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, db string) (*eval.Env, error) {
		a, err := assemble.Agent(ws, results.New(results.Config{}), p, "qwen3:8b", assemble.Options{Privacy: level})
		if err != nil {
			return nil, err
		}
		sch, err := assemble.WorkspaceSchema(ctx, ws)
		return &eval.Env{Agent: a, Query: ws.Query, Schema: sch}, err
	}
}

func TestRightModelScoresFull(t *testing.T) {
	qs, err := eval.SampleQuestions()
	if err != nil {
		t.Fatal(err)
	}
	srv := scriptedModel(t, qs, true)
	var seen int
	sum, err := eval.Run(context.Background(), qs, sampleEnv(t, srv, privacy.Open), func(eval.Result) { seen++ })
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Results {
		if !r.Pass {
			t.Errorf("%s: %s %s (sql %s)", r.ID, r.Failure, r.Detail, r.SQL)
		}
	}
	if sum.Accuracy != 1 || seen != len(qs) || sum.AvgSteps != 2 || sum.AvgCalls != 1 || sum.Tokens == 0 || sum.P95 < sum.P50 {
		t.Errorf("summary = %+v", sum)
	}
}

func TestWrongModelScoresNothing(t *testing.T) {
	qs, err := eval.SampleQuestions()
	if err != nil {
		t.Fatal(err)
	}
	srv := scriptedModel(t, qs, false)
	sum, err := eval.Run(context.Background(), qs, sampleEnv(t, srv, privacy.Open), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Passed != 0 || sum.Failures[eval.WrongResult] != len(qs)-1 || sum.Failures[eval.WrongAnswer] != 1 {
		t.Errorf("passed %d, failures %v", sum.Passed, sum.Failures)
	}
}

func TestReadQuestions(t *testing.T) {
	dir := t.TempDir()
	jl := filepath.Join(dir, "q.jsonl")
	os.WriteFile(jl, []byte("{\"question\":\"How many?\",\"sql\":\"SELECT 1\"}\n\n{\"question\":\"When?\",\"answer\":\"2024\",\"db\":\"shop\"}\n"), 0o644)
	qs, err := eval.ReadQuestions(jl)
	if err != nil || len(qs) != 2 || qs[1].DB != "shop" || qs[0].ID != "1" {
		t.Fatalf("jsonl: %+v, %v", qs, err)
	}
	csv := filepath.Join(dir, "q.csv")
	os.WriteFile(csv, []byte("db_name,query_category,question,query\nacademic,group_by,\"How many papers?\",\"SELECT count(*) FROM paper;SELECT count(paperid) FROM paper\"\n"), 0o644)
	qs, err = eval.ReadQuestions(csv)
	if err != nil || len(qs) != 1 || qs[0].SQL != "SELECT count(*) FROM paper" || qs[0].DB != "academic" {
		t.Fatalf("csv: %+v, %v", qs, err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"question\":\"no gold\"}\n"), 0o644)
	if _, err := eval.ReadQuestions(bad); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Errorf("a question without gold should be refused: %v", err)
	}
	// sql-eval's own file, from the repository's testdata (its README.md
	// names the source and licence).
	qs, err = eval.ReadQuestions(filepath.Join("..", "..", "testdata", "sql-eval", "questions_gen_postgres.csv"))
	if err != nil || len(qs) != 210 {
		t.Errorf("sql-eval's questions: %d, %v", len(qs), err)
	}
}
