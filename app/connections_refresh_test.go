package app_test

import (
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // to change the copied Chinook file between imports

	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
)

// chinookCopy copies the Chinook SQLite file (chinook) into a temporary
// folder, so that a test can change it.
func chinookCopy(t *testing.T) string {
	t.Helper()
	src, err := os.Open(chinook(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(t.TempDir(), "chinook.sqlite")
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// A dataset imported from a connection is refreshed by running its query
// there again, with its row limit; once the connection is gone, refresh
// says so and leaves the dataset as it was.
func TestRefreshAnImportRunsItsQueryAgain(t *testing.T) {
	e := newEnv(t, setup{})
	path := chinookCopy(t)
	if _, err := e.app.SaveConnection(app.ConnectionInput{Name: "music", Kind: "sqlite", Path: path}); err != nil {
		t.Fatal(err)
	}
	q := `SELECT g.Name AS genre, count(t.TrackId) AS tracks FROM Genre g LEFT JOIN Track t ON t.GenreId = g.GenreId GROUP BY g.Name`
	d, err := e.app.ImportQuery("music", q, "genre_tracks", 26, false)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows != 25 || len(d.Warnings) != 0 {
		t.Fatalf("first import: %d rows, warnings %v", d.Rows, d.Warnings)
	}

	// Two genres more in the file: 27 rows, of which the limit keeps 26.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO Genre (GenreId, Name) VALUES (26, 'Polka'), (27, 'Fado')`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before := len(e.rec.of(app.EventImportProgress))
	changed := len(e.rec.of(app.EventDatasetsChanged))
	if err := e.app.RefreshDataset("genre_tracks"); err != nil {
		t.Fatal(err)
	}
	ds, err := e.app.ListDatasets()
	if err != nil || len(ds) != 1 {
		t.Fatalf("datasets %+v, %v", ds, err)
	}
	if got := ds[0]; got.Name != "genre_tracks" || got.Rows != 26 || got.Source != "connection music" ||
		len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "row limit of 26") {
		t.Fatalf("refreshed: %d rows from %q, warnings %v", got.Rows, got.Source, got.Warnings)
	}
	r, err := e.app.RunSQL("SELECT count(*) FROM genre_tracks WHERE genre IN ('Polka', 'Fado')")
	if err != nil || r.Page.Rows[0][0] == int64(0) {
		t.Fatalf("the new genres are not in the refreshed dataset: %+v, %v", r, err)
	}
	var phases []string
	for _, p := range e.rec.of(app.EventImportProgress)[before:] {
		ip := p.(app.ImportProgress)
		if ip.Connection != "music" || ip.Table != "genre_tracks" || ip.MaxRows != 26 {
			t.Errorf("progress %+v", ip)
		}
		phases = append(phases, ip.Phase)
	}
	if len(phases) < 3 || phases[0] != "connecting" || phases[len(phases)-1] != "done" {
		t.Errorf("refresh phases %v", phases)
	}
	if len(e.rec.of(app.EventDatasetsChanged)) == changed {
		t.Error("no datasets:changed after the refresh")
	}

	// The connection removed: a clear error, and the dataset unchanged.
	if err := e.app.RemoveConnection("music"); err != nil {
		t.Fatal(err)
	}
	err = e.app.RefreshDataset("genre_tracks")
	var ae *app.Error
	if code := codeOf(t, err); code != app.CodeNotFound || !errors.As(err, &ae) ||
		!strings.Contains(ae.Message, "the connection music was removed") || !strings.Contains(ae.Hint, "remove this dataset") {
		t.Fatalf("refresh without its connection: %v", err)
	}
	if ds, err := e.app.ListDatasets(); err != nil || len(ds) != 1 || ds[0].Rows != 26 {
		t.Fatalf("datasets after the failed refresh: %+v, %v", ds, err)
	}
}

// A chat started before its connection was renamed keeps asking the same
// database under the new name.
func TestARenamedConnectionKeepsItsChatsAndImports(t *testing.T) {
	join := `SELECT g.Name AS genre, count(*) AS tracks FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name ORDER BY tracks DESC LIMIT 1`
	e := newEnv(t, setup{turns: []fake.Turn{
		fake.Calls(call("run_sql", map[string]any{"sql": join, "purpose": "top genre"})),
		fake.Text("Rock has the most tracks.\n\nFindings:\n- Rock leads with 1297 tracks [q1]"),
	}})
	path := chinookCopy(t)
	if _, err := e.app.SaveConnection(app.ConnectionInput{Name: "music", Kind: "sqlite", Path: path}); err != nil {
		t.Fatal(err)
	}
	chat, err := e.app.NewConnectionChat("music")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.app.ImportQuery("music", "SELECT Name FROM Genre", "genres", 100, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.app.SaveConnection(app.ConnectionInput{Name: "tunes", Previous: "music", Kind: "sqlite", Path: path}); err != nil {
		t.Fatal(err)
	}
	// Its imports follow it too: they refresh from the renamed connection.
	ds, err := e.app.ListDatasets()
	if err != nil || len(ds) != 1 || ds[0].Source != "connection tunes" {
		t.Fatalf("datasets after the rename: %+v, %v", ds, err)
	}
	if err := e.app.RefreshDataset("genres"); err != nil {
		t.Fatalf("refresh an import after its connection's rename: %v", err)
	}
	chats, err := e.app.ListChats()
	if err != nil || len(chats) != 1 || chats[0].ID != chat.ID || chats[0].Connection != "tunes" {
		t.Fatalf("chats after the rename: %+v, %v", chats, err)
	}
	e.answered(t, chat.ID, "Which genre has the most tracks?")
	results := e.srv.Requests()[1].ToolResults()
	if len(results) != 1 || !strings.Contains(results[0].Content, "1297") {
		t.Fatalf("the question should run on the renamed connection's file:\n%v", results)
	}
	if sys := agenttest.Prompt(e.srv.Requests()[0]); !strings.Contains(sys, "connection tunes") {
		t.Errorf("system prompt does not name the connection tunes")
	}
	got, err := e.app.GetChat(chat.ID)
	if err != nil || got.Connection != "tunes" || len(got.Turns) != 1 {
		t.Fatalf("chat %+v, %v", got, err)
	}
}
