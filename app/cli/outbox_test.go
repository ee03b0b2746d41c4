package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/store"
)

const keyCanary = "sk-canary-7f3e9d1c"

// isChat says whether a kept request is a chat request (what the fake
// logs), not a model listing or Ollama's /api/show.
func isChat(s store.Sent) bool {
	return strings.HasSuffix(s.URL, "/api/chat") || strings.HasSuffix(s.URL, "/chat/completions")
}

// The outbox holds exactly the bytes the model server received — the
// exploration, the report stage and a follow-up, on both wires — with the
// level in force, and never the key.
func TestOutboxHoldsWhatTheModelReceived(t *testing.T) {
	for _, wire := range []string{"ollama", "openai"} {
		t.Run(wire, func(t *testing.T) {
			ws := askWorkspace(t)
			srv := fake.Start(t, fake.Options{APIKey: keyCanary,
				Turns: append(askTurns(), fake.Text("Still North, with 17."))})
			url := srv.OllamaURL()
			if wire == "openai" {
				url = srv.OpenAIURL()
			}
			// The fake listens on loopback: record it as if it were not.
			t.Setenv(assemble.EnvOutboxAll, "1")
			t.Setenv("OPENAI_API_KEY", keyCanary)
			t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL()) // the key goes only to the host beside it
			chat, _ := askJSON(t, "--workspace", ws, "--provider", wire, "--base-url", url, "--privacy", "masked",
				"--report", filepath.Join(t.TempDir(), "rep"), "Which region sells most?")
			t.Setenv(EnvPrivacy, "open") // schema is refused until it is built
			askJSON(t, "--workspace", ws, "--provider", wire, "--base-url", url, "--chat", chat, "And now?")

			st, err := store.OpenDir(context.Background(), ws)
			if err != nil {
				t.Fatal(err)
			}
			th, err := st.Thread(context.Background(), chat)
			if err != nil {
				t.Fatal(err)
			}
			var kept []store.Sent
			var levels []string
			for _, m := range th.Messages {
				if m.Role != store.Assistant {
					continue
				}
				sent, err := st.SentFor(context.Background(), m.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range sent {
					if isChat(s) {
						kept = append(kept, s)
						levels = append(levels, s.Level)
					}
				}
			}
			st.Close()
			reqs := srv.Requests()
			if len(reqs) != 5 || len(kept) != len(reqs) {
				t.Fatalf("the server got %d chat requests, the outbox kept %d", len(reqs), len(kept))
			}
			for i, r := range reqs {
				if !bytes.Equal(kept[i].Body, r.Body) {
					t.Errorf("request %d differs:\nkept %s\nsent %s", i, kept[i].Body, r.Body)
				}
			}
			if got := strings.Join(levels, " "); got != "masked masked masked masked open" {
				t.Errorf("levels %s", got)
			}
			noKeyIn(t, ws)
			// Every request of ask (Ollama's /api/show too) was made for
			// an answer: none is kept for no conversation.
			if code, out, errs := run(t, "", "outbox", "--workspace", ws); code != ExitOK || !strings.Contains(out, "Nothing was sent for no conversation.") {
				t.Errorf("loupe outbox: %d %s %s", code, out, errs)
			}

			code, out, errs := run(t, "", "chat", "show", "--workspace", ws, "--sent", chat)
			if code != ExitOK {
				t.Fatalf("chat show --sent: %s", errs)
			}
			for _, want := range []string{"at privacy level masked", "at privacy level open", "\n  [4] ",
				"POST " + url, `"messages": [`, "Which region sells most?"} {
				if !strings.Contains(out, want) {
					t.Errorf("chat show --sent lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// noKeyIn fails if any file under dir holds the key or an Authorization
// header.
func noKeyIn(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, bad := range []string{keyCanary, "Authorization", "Bearer "} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s holds %q", path, bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A model on this machine sends nothing: the answer says so.
func TestChatShowSentForALocalModel(t *testing.T) {
	ws := askWorkspace(t)
	srv := fake.New(t, askTurns()[:3]...)
	chat, _ := askJSON(t, "--workspace", ws, "--base-url", srv.OllamaURL(), "Which region sells most?")
	code, out, errs := run(t, "", "chat", "show", "--workspace", ws, "--sent", "--json", chat)
	if code != ExitOK {
		t.Fatalf("chat show --sent --json: %s", errs)
	}
	var got []assemble.AnswerSent
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Local || got[0].Level != "open" || len(got[0].Requests) != 0 {
		t.Fatalf("sent %+v", got)
	}
	_, text, _ := run(t, "", "chat", "show", "--workspace", ws, "--sent", chat)
	if want := "Nothing left this machine: the model runs on " + srv.Addr(); !strings.Contains(text, want) {
		t.Errorf("lacks %q:\n%s", want, text)
	}
}

func TestPrivacyFlagAndEnv(t *testing.T) {
	ws := askWorkspace(t)
	code, _, errs := run(t, "", "ask", "--workspace", ws, "--model", "m", "--privacy", "secret", "q")
	if code != ExitUsage || !strings.Contains(errs, "use open, masked or schema") {
		t.Errorf("--privacy secret: exit %d, %s", code, errs)
	}
	t.Setenv(EnvPrivacy, "hidden")
	code, _, errs = run(t, "", "eval", "--workspace", ws, "--model", "m", "--sample")
	if code != ExitUsage || !strings.Contains(errs, "LOUPE_PRIVACY") || !strings.Contains(errs, "use open, masked or schema") {
		t.Errorf("LOUPE_PRIVACY=hidden: exit %d, %s", code, errs)
	}
}
