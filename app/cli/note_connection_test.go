package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/remote"
)

// TestNoteConnection sets, uses and clears notes on a connection's table
// from the command line: loupe ask --connection finds the table by a
// question worded like its note and shows the model the notes.
func TestNoteConnection(t *testing.T) {
	cfg, _ := connectEnv(t)
	file, err := filepath.Abs("../../data/remote/sqlite/testdata/Chinook_Sqlite.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "", "connect", "add", "music", "--path", file); code != ExitOK {
		t.Fatalf("connect add: %s", errs)
	}
	const note = "Audio codec and container of each file; AAC is Apple's"
	code, out, errs := run(t, "", "note", "--connection", "music", "MediaType", note)
	if code != ExitOK || out != "MediaType: note set\n" || errs != "" {
		t.Fatalf("note: exit %d %q %s", code, out, errs)
	}
	if code, out, errs = run(t, "", "note", "mediatype", "name", "codec, e.g. MPEG audio file", "--connection", "music"); code != ExitOK || out != "MediaType.name: note set\n" {
		t.Fatalf("column note: exit %d %q %s", code, out, errs)
	}
	dir := filepath.Join(cfg, "connections", "music")
	n, err := remote.LoadNotes(dir)
	if got := n.Tables["MediaType"]; err != nil || got.Note != note || got.Columns["Name"] != "codec, e.g. MPEG audio file" {
		t.Fatalf("stored: %+v %v", n, err)
	}

	srv := fake.New(t, fake.Text("Mostly MPEG audio."))
	if code, out, errs := run(t, "", "ask", "--connection", "music", "--base-url", srv.OllamaURL(), "--model", "qwen3:8b",
		"Which audio codec containers are most common?"); code != ExitOK {
		t.Fatalf("ask: exit %d: %s\n%s", code, errs, out)
	}
	sys := agenttest.Prompt(srv.Requests()[0])
	for _, want := range []string{note, "Name NVARCHAR(120) — codec, e.g. MPEG audio file"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}

	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"no text", []string{"note", "--connection", "music", "MediaType"}, ExitUsage, "give TABLE TEXT"},
		{"both", []string{"note", "--connection", "music", "--workspace", t.TempDir(), "MediaType", "x"}, ExitUsage, "not both"},
		{"unknown connection", []string{"note", "--connection", "nope", "MediaType", "x"}, ExitError, `connection "nope": no such connection`},
		{"unknown table", []string{"note", "--connection", "music", "Codec", "x"}, ExitError, `no table "Codec" (its tables: Album, Artist, Customer`},
		{"unknown column", []string{"note", "--connection", "music", "MediaType", "colour", "x"}, ExitError, `MediaType has no column "colour" (its columns: MediaTypeId, Name)`},
		{"too long", []string{"note", "--connection", "music", "MediaType", strings.Repeat("a", catalog.MaxNote+1)}, ExitError, "more than the 2000"},
	} {
		code, _, errs := run(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.message) {
			t.Errorf("%s: exit %d, stderr %q", tc.name, code, errs)
		}
	}
	if n, _ := remote.LoadNotes(dir); n.Tables["MediaType"].Note != note {
		t.Errorf("a refused note changed the notes: %+v", n)
	}

	// Reading the schema again keeps the notes; empty text clears them.
	if code, _, errs := run(t, "", "connect", "test", "music"); code != ExitOK {
		t.Fatalf("connect test: %s", errs)
	}
	if code, out, _ := run(t, "", "note", "--connection", "music", "MediaType", "Name", ""); code != ExitOK || out != "MediaType.Name: note cleared\n" {
		t.Errorf("clear column note: %d %q", code, out)
	}
	if n, _ := remote.LoadNotes(dir); n.Tables["MediaType"].Note != note || n.Tables["MediaType"].Columns != nil {
		t.Errorf("after clearing the column's note: %+v", n.Tables)
	}
	if code, _, errs := run(t, "", "connect", "remove", "music"); code != ExitOK {
		t.Fatalf("remove: %s", errs)
	}
	if n, err := remote.LoadNotes(dir); err != nil || len(n.Tables) != 0 {
		t.Errorf("the notes outlive the connection: %+v %v", n, err)
	}
}
