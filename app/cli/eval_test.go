package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app/assemble"
)

// A model that always counts orders gets exactly the sample's
// "How many orders are there?" right.
func countingModel(t *testing.T) *fake.Server {
	return fake.Start(t, fake.Options{Respond: func(r fake.Request) fake.Turn {
		if len(r.ToolResults()) > 0 {
			return fake.Text("Done.")
		}
		return fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql":"SELECT count(*) FROM orders"}`})
	}})
}

func TestEvalSample(t *testing.T) {
	srv := countingModel(t)
	code, out, errs := run(t, "", "eval", "--sample", "--base-url", srv.OllamaURL(), "--model", "qwen3:8b")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"orders             ✓ pass", "returned           ✗ wrong_result", "execution accuracy 1/10 (10.0%)", "failures: wrong_answer 1, wrong_result 8"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = run(t, "", "eval", "--sample", "--json", "--base-url", srv.OllamaURL(), "--model", "qwen3:8b")
	var sum struct {
		Total, Passed int
		Accuracy      float64
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &sum) != nil || sum.Total != 10 || sum.Passed != 1 {
		t.Errorf("--json: exit %d, %+v, %s%s", code, sum, out, errs)
	}
}

func TestEvalUsage(t *testing.T) {
	if code, _, errs := run(t, "", "eval", "--model", "m"); code != ExitUsage || !strings.Contains(errs, "--questions FILE, --sample or --verified") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if code, _, errs := run(t, "", "eval", "--model", "m", "--base-url", "http://127.0.0.1:1", "--questions", "/nope.jsonl"); code != ExitError || !strings.Contains(errs, "nope.jsonl") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// loupe eval keeps what it sends to a model server on another machine, as
// ask does: loupe outbox prints every question the model was asked.
func TestEvalKeepsWhatItSends(t *testing.T) {
	srv := countingModel(t)
	ws := t.TempDir()
	t.Setenv(assemble.EnvOutboxAll, "1") // the fake listens on loopback: record it as if it were not
	if code, _, errs := run(t, "", "eval", "--sample", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--privacy", "masked"); code != ExitOK {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	code, out, errs := run(t, "", "outbox", "--workspace", ws)
	if code != ExitOK {
		t.Fatalf("outbox: exit %d: %s", code, errs)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || !strings.Contains(out, "How many orders are there?") || !strings.Contains(out, "level then in force (masked") {
		t.Errorf("the server got %d requests; loupe outbox printed:\n%.2000s", len(reqs), out)
	}
	if n := strings.Count(out, "POST "+srv.OllamaURL()+"/api/chat"); n != len(reqs) {
		t.Errorf("the outbox holds %d chat requests, the server got %d", n, len(reqs))
	}
}
