package app_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/remote"
)

// connTable returns the table called name of the connection conn as the
// sidebar gets it.
func connTable(t *testing.T, a *app.App, conn, name string) app.ConnectionTable {
	t.Helper()
	sch, err := a.ConnectionTables(conn, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range sch.Tables {
		if tb.Name == name {
			return tb
		}
	}
	t.Fatalf("%s has no table %s", conn, name)
	return app.ConnectionTable{}
}

func connColumn(tb app.ConnectionTable, col string) app.ConnectionColumn {
	for _, c := range tb.Columns {
		if c.Name == col {
			return c
		}
	}
	return app.ConnectionColumn{}
}

const codecNote = "Audio codec and container of each file; AAC is Apple's"

// Notes on a connection's table reach the agent (a question only the note
// answers brings the table into the prompt, with its notes), show in the
// sidebar's schema, survive reading the schema again and a rename, and go
// with the connection; bad notes are refused and change nothing.
func TestSetConnectionNote(t *testing.T) {
	e := newEnv(t, setup{respond: func(fake.Request) fake.Turn { return fake.Text("Mostly MPEG audio.") }})
	e.addChinook(t)
	if err := e.app.SetConnectionNote("music", "MediaType", codecNote, map[string]string{"name": "codec, e.g. MPEG audio file"}); err != nil {
		t.Fatal(err)
	}
	mt := connTable(t, e.app, "music", "MediaType")
	if mt.Note != codecNote || connColumn(mt, "Name").Note != "codec, e.g. MPEG audio file" || connColumn(mt, "MediaTypeId").Note != "" {
		t.Fatalf("the sidebar's schema: %+v", mt)
	}

	chat, err := e.app.NewConnectionChat("music")
	if err != nil {
		t.Fatal(err)
	}
	e.answered(t, chat.ID, "Which audio codec containers are most common?")
	sys := agenttest.Prompt(e.srv.Requests()[0])
	for _, want := range []string{"MediaType", codecNote, "Name NVARCHAR(120) — codec, e.g. MPEG audio file"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}

	// Refused notes change nothing.
	long := strings.Repeat("x", catalog.MaxNote+1)
	for _, c := range []struct {
		name, conn, table string
		note              string
		cols              map[string]string
		code, says        string
	}{
		{"unknown connection", "nope", "MediaType", "x", nil, app.CodeNotFound, `No connection is called "nope"`},
		{"unknown table", "music", "Codec", "x", nil, app.CodeNotFound, "Album, Artist, Customer"},
		{"unknown column", "music", "MediaType", "x", map[string]string{"Codec": "x"}, app.CodeInvalid, "MediaTypeId, Name"},
		{"too long", "music", "MediaType", long, nil, app.CodeInvalid, "at most 2000 characters"},
		{"column too long", "music", "MediaType", "x", map[string]string{"Name": long}, app.CodeInvalid, "column Name is too long"},
	} {
		err := e.app.SetConnectionNote(c.conn, c.table, c.note, c.cols)
		var ae *app.Error
		if codeOf(t, err) != c.code || !errors.As(err, &ae) || !strings.Contains(ae.Message+" "+ae.Hint, c.says) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if mt := connTable(t, e.app, "music", "MediaType"); mt.Note != codecNote || connColumn(mt, "Name").Note != "codec, e.g. MPEG audio file" {
		t.Errorf("a refused note changed the notes: %+v", mt)
	}

	// Reading the schema again keeps them.
	if _, err := e.app.ConnectionTables("music", true); err != nil {
		t.Fatal(err)
	}
	if mt := connTable(t, e.app, "music", "MediaType"); mt.Note != codecNote {
		t.Errorf("re-discovery lost the note: %+v", mt)
	}

	// A rename keeps them; removing the connection removes them.
	if _, err := e.app.SaveConnection(app.ConnectionInput{Previous: "music", Name: "tunes", Kind: "sqlite", Path: chinook(t)}); err != nil {
		t.Fatal(err)
	}
	if mt := connTable(t, e.app, "tunes", "MediaType"); mt.Note != codecNote || connColumn(mt, "Name").Note == "" {
		t.Errorf("the rename lost the notes: %+v", mt)
	}
	notesFile := filepath.Join(e.config, "connections", "tunes", "notes.json")
	if _, err := os.Stat(notesFile); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.config, "connections", "music")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old name's folder stays: %v", err)
	}
	if err := e.app.RemoveConnection("tunes"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(notesFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the notes outlive the connection: %v", err)
	}
	if _, err := e.app.SaveConnection(app.ConnectionInput{Name: "tunes", Kind: "sqlite", Path: chinook(t)}); err != nil {
		t.Fatal(err)
	}
	if mt := connTable(t, e.app, "tunes", "MediaType"); mt.Note != "" {
		t.Errorf("a new connection of the same name has the old notes: %+v", mt)
	}
}

// A note written from outside while the connection is open (as `loupe
// note --connection` does, from another process) reaches the next
// question, and a damaged notes file is an error that says what to do.
func TestConnectionNoteFromOutside(t *testing.T) {
	e := newEnv(t, setup{respond: func(fake.Request) fake.Turn { return fake.Text("Mostly MPEG audio.") }})
	e.addChinook(t)
	chat, err := e.app.NewConnectionChat("music")
	if err != nil {
		t.Fatal(err)
	}
	ask := func(i int) string {
		t.Helper()
		e.answered(t, chat.ID, "Which audio codec containers are most common?")
		return agenttest.Prompt(e.srv.Requests()[i])
	}
	if sys := ask(0); strings.Contains(sys, codecNote) {
		t.Fatalf("the note is in the prompt before it was written:\n%s", sys)
	}

	// What the CLI does: its own read of the schema, then the notes file.
	src, err := remote.Open(t.Context(), remote.Profile{Name: "music", Kind: remote.SQLite, Path: chinook(t)}, "")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := src.Discover(t.Context())
	if cerr := src.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	dir := filepath.Join(e.config, "connections", "music")
	note := codecNote
	if _, _, err := remote.SetNotes(dir, "music", sch, "MediaType", catalog.Notes{Table: &note}); err != nil {
		t.Fatal(err)
	}
	if sys := ask(1); !strings.Contains(sys, codecNote) {
		t.Errorf("the note written from outside is not in the next question's prompt:\n%s", sys)
	}

	if err := os.WriteFile(remote.NotesPath(dir), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := e.app.Ask(chat.ID, "And the least common?")
	if err != nil {
		t.Fatal(err)
	}
	out := e.rec.waitFinished(t, res.RunID, 30*time.Second)
	if out.Status != agent.Failed || !strings.Contains(out.Reason, "notes.json") {
		t.Errorf("a damaged notes file: outcome %s: %s", out.Status, out.Reason)
	}
}
