package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/app"
)

// useEmbedModel names an embedding model in e's settings.
func useEmbedModel(t *testing.T, e *env, model string) {
	t.Helper()
	s, err := e.app.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	s.EmbedModel = model
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: *s}); err != nil {
		t.Fatal(err)
	}
}

// waitEmbedded waits until the fake server embedded n texts and the app
// has stored what it answered (the background job ended).
func waitEmbedded(t *testing.T, e *env, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for e.srv.Embedded() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d texts embedded, want %d", e.srv.Embedded(), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	app.WaitEmbedding(e.app)
}

// TestLoadEmbedsTablesInBackground: with an embedding model in the
// settings, loaded files are embedded in the background, so the next
// question embeds itself only and finds every table embedded.
func TestLoadEmbedsTablesInBackground(t *testing.T) {
	e := newEnv(t, setup{turns: answerTurns()})
	useEmbedModel(t, e, "nomic-embed-text")
	e.load(t)
	waitEmbedded(t, e, 2) // orders, customers
	res, err := e.app.Ask(e.chat(t), "Which region has the most orders?")
	if err != nil {
		t.Fatal(err)
	}
	out := e.rec.waitFinished(t, res.RunID, 20*time.Second)
	if out.Status != agent.Done {
		t.Fatalf("outcome %s %q", out.Status, out.Reason)
	}
	want := []string{"tables ranked by text and by nomic-embed-text embeddings"}
	if !slices.Equal(out.Meta.Notes, want) {
		t.Errorf("notes %q, want %q", out.Meta.Notes, want)
	}
	if n := e.srv.Embedded(); n != 3 {
		t.Errorf("%d texts embedded, want the two tables and the question", n)
	}
}

// TestWorkspaceOpenEmbedsTables: tables loaded while the boost was off
// are embedded when the workspace opens with an embedding model in the
// settings, before any question; a question asked before they are says
// how many are.
func TestWorkspaceOpenEmbedsTables(t *testing.T) {
	e := newEnv(t, setup{turns: answerTurns()})
	e.load(t)
	e.app.Shutdown(context.Background())
	if n := e.srv.Embedded(); n != 0 {
		t.Fatalf("%d texts embedded with the boost off", n)
	}
	again := app.New(app.Options{WorkspaceDir: e.wsDir, ConfigDir: e.config, Keychain: e.keys,
		Dialogs: app.SaveInto{Dir: e.saveDir}, Emit: e.rec.emit, Getenv: func(string) string { return "" },
		DockerHost: "unix://" + t.TempDir() + "/no-docker.sock"})
	t.Cleanup(func() { again.Shutdown(context.Background()) })
	e.app = again
	useEmbedModel(t, e, "nomic-embed-text")
	app.Warm(again)
	waitEmbedded(t, e, 2)
	if hits := e.srv.Hits("/api/embed"); hits != 1 {
		t.Errorf("%d embedding requests, want one batch", hits)
	}
}

// TestQuestionBeforeTablesAreEmbedded: the first question after the boost
// is switched on does not wait for the tables: it is ranked by text and
// says how many tables are embedded so far.
func TestQuestionBeforeTablesAreEmbedded(t *testing.T) {
	e := newEnv(t, setup{turns: answerTurns()})
	e.load(t)
	useEmbedModel(t, e, "nomic-embed-text") // on after the load: nothing embedded yet
	res, err := e.app.Ask(e.chat(t), "Which region has the most orders?")
	if err != nil {
		t.Fatal(err)
	}
	out := e.rec.waitFinished(t, res.RunID, 20*time.Second)
	notes := strings.Join(out.Meta.Notes, "\n")
	if out.Status != agent.Done || !strings.Contains(notes, "semantic boost: 0 of 2 tables embedded so far") {
		t.Errorf("outcome %s, notes %q", out.Status, out.Meta.Notes)
	}
	waitEmbedded(t, e, 3) // the question started the pass
}
