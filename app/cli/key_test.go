package cli

import (
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
)

// TestAskSendsTheKeyOnlyToItsHost: OPENAI_API_KEY set beside server A's
// address is not sent to server B named by --base-url (issue 16 §4).
func TestAskSendsTheKeyOnlyToItsHost(t *testing.T) {
	const keyA = "sk-for-a-0123456789"
	srvA := fake.Start(t, fake.Options{APIKey: keyA})
	srvB := fake.New(t, fake.Text("B answers."))
	t.Setenv("LOUPE_PROVIDER", "openai")
	t.Setenv("OPENAI_API_KEY", keyA)
	t.Setenv("OPENAI_BASE_URL", srvA.OpenAIURL())
	t.Setenv("LOUPE_BASE_URL", "")
	ws := askWorkspace(t)
	code, out, errs := run(t, "", "ask", "--workspace", ws, "--base-url", srvB.OpenAIURL(), "--model", "qwen3:8b", "Which region sells most?")
	if code != ExitOK || !strings.Contains(out, "B answers.") {
		t.Fatalf("ask at B: exit %d\n%s\n%s", code, out, errs)
	}
	if len(srvB.Seen()) == 0 {
		t.Fatal("B received nothing")
	}
	for _, h := range srvB.Authorizations() {
		if strings.Contains(h, keyA) {
			t.Errorf("B received A's key: %s", h)
		}
	}
	// Without --base-url the key goes where it was set for.
	srvA.Push(fake.Text("A answers."))
	code, out, errs = run(t, "", "ask", "--workspace", ws, "--model", "qwen3:8b", "Which region sells most?")
	if code != ExitOK || !strings.Contains(out, "A answers.") {
		t.Errorf("ask at A with its key: exit %d\n%s\n%s", code, out, errs)
	}
}
