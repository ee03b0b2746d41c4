package app_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/data/remote/remotetest"
)

// chinook is the Chinook sample database as a SQLite file.
func chinook(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../data/remote/sqlite/testdata/Chinook_Sqlite.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// addChinook saves the Chinook file as the connection "music".
func (e *env) addChinook(t *testing.T) {
	t.Helper()
	if _, err := e.app.SaveConnection(app.ConnectionInput{Name: "music", Kind: "sqlite", Path: chinook(t)}); err != nil {
		t.Fatal(err)
	}
}

func TestConnectionSavedListedTestedAndRemoved(t *testing.T) {
	e := newEnv(t, setup{})
	c, err := e.app.SaveConnection(app.ConnectionInput{Name: "music", URL: "sqlite://" + chinook(t)})
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != "sqlite" || c.Path != chinook(t) || c.HasPassword {
		t.Fatalf("saved %+v", c)
	}
	list, err := e.app.ListConnections()
	if err != nil || len(list) != 1 || list[0].Name != "music" || list[0].URL != "sqlite://"+chinook(t) {
		t.Fatalf("list %+v, %v", list, err)
	}
	check, err := e.app.TestConnection("music")
	if err != nil {
		t.Fatal(err)
	}
	if check.Dialect != "SQLite" || check.Tables != 11 || check.ElapsedMS <= 0 {
		t.Fatalf("test %+v", check)
	}
	sch, err := e.app.ConnectionTables("music", false)
	if err != nil {
		t.Fatal(err)
	}
	var track *app.ConnectionTable
	for i := range sch.Tables {
		if sch.Tables[i].Name == "Track" {
			track = &sch.Tables[i]
		}
	}
	if len(sch.Tables) != 11 || track == nil || track.Rows != 3503 || len(track.Columns) != 9 || track.Columns[0].Name != "TrackId" {
		t.Fatalf("tables %+v", sch.Tables)
	}
	if _, err := e.app.ConnectionTables("music", true); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if err := e.app.RemoveConnection("music"); err != nil {
		t.Fatal(err)
	}
	if list, _ := e.app.ListConnections(); len(list) != 0 {
		t.Fatalf("after remove: %+v", list)
	}
	for what, err := range map[string]error{
		"test":   second(e.app.TestConnection("music")),
		"tables": second(e.app.ConnectionTables("music", false)),
		"remove": e.app.RemoveConnection("music"),
		"chat":   second(e.app.NewConnectionChat("music")),
	} {
		if code := codeOf(t, err); code != app.CodeNotFound {
			t.Errorf("%s of a removed connection: code %q (%v)", what, code, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// The password goes to the keychain, never to the profiles file nor back
// to the UI; it survives edits and renames unless replaced or cleared.
func TestConnectionPasswordStaysInTheKeychain(t *testing.T) {
	e := newEnv(t, setup{})
	pw := "s3cret-pw"
	c, err := e.app.SaveConnection(app.ConnectionInput{Name: "shop", URL: "postgres://ro:" + pw + "@db.example.com/shop?sslmode=require"})
	if err != nil {
		t.Fatal(err)
	}
	if !c.HasPassword || c.Host != "db.example.com" || c.Port != 5432 || c.User != "ro" || c.TLS != "require" || strings.Contains(c.URL, pw) {
		t.Fatalf("saved %+v", c)
	}
	file, err := os.ReadFile(filepath.Join(e.config, "connections.json"))
	if err != nil || strings.Contains(string(file), pw) || !strings.Contains(string(file), "db.example.com") {
		t.Fatalf("connections.json (%v):\n%s", err, file)
	}
	if got, _, _ := e.keys.Get("shop"); got != pw {
		t.Fatalf("keychain holds %q", got)
	}
	// Editing without a password keeps it; renaming moves it.
	if _, err := e.app.SaveConnection(app.ConnectionInput{Previous: "shop", Name: "shop-ro", Kind: "postgres", Host: "db.example.com",
		Database: "shop", User: "ro", TLS: "verify-full"}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := e.keys.Get("shop-ro"); got != pw {
		t.Errorf("renamed connection's password %q", got)
	}
	if _, _, err := e.keys.Get("shop"); err == nil {
		t.Errorf("the old name's password lingers")
	}
	list, _ := e.app.ListConnections()
	if len(list) != 1 || list[0].Name != "shop-ro" || list[0].TLS != "verify-full" || !list[0].HasPassword {
		t.Fatalf("after rename %+v", list)
	}
	empty := ""
	if _, err := e.app.SaveConnection(app.ConnectionInput{Previous: "shop-ro", Name: "shop-ro", Kind: "postgres", Host: "db.example.com",
		Database: "shop", User: "ro", Password: &empty}); err != nil {
		t.Fatal(err)
	}
	if list, _ := e.app.ListConnections(); list[0].HasPassword {
		t.Errorf("a cleared password is still there")
	}
	if err := e.app.RemoveConnection("shop-ro"); err != nil {
		t.Fatal(err)
	}
}

func TestConnectionInputMistakesAreInvalid(t *testing.T) {
	e := newEnv(t, setup{})
	e.addChinook(t)
	for _, c := range []struct {
		name string
		in   app.ConnectionInput
		want string // in the message
	}{
		{"bad name", app.ConnectionInput{Name: "my db", Kind: "sqlite", Path: "/x.db"}, "is not valid"},
		{"no host", app.ConnectionInput{Name: "pg", Kind: "postgres", Database: "d", User: "u"}, "host name"},
		{"bad url", app.ConnectionInput{Name: "pg", URL: "oracle://x/y"}, "Unknown URL scheme"},
		{"taken", app.ConnectionInput{Name: "music", Kind: "sqlite", Path: "/x.db"}, "already exists"},
		{"reserved", app.ConnectionInput{Name: "openai-api-key", Kind: "sqlite", Path: "/x.db"}, "reserved"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.app.SaveConnection(c.in)
			if code := codeOf(t, err); code != app.CodeInvalid || !strings.Contains(err.(*app.Error).Message, c.want) {
				t.Fatalf("code %q: %v", code, err)
			}
			if strings.Contains(err.Error(), "(--") {
				t.Errorf("the message names a command-line flag: %v", err)
			}
		})
	}
}

// Each way a connection can fail has its own code, a message and a hint:
// on the real PostgreSQL test server, and a missing SQLite file.
func TestConnectionTestSaysWhatFailed(t *testing.T) {
	e := newEnv(t, setup{})
	pg := remotetest.Servers(t, "pg")
	port, err := strconv.Atoi(pg["LOUPE_PG_PORT"])
	if err != nil {
		t.Fatal(err)
	}
	good := app.ConnectionInput{Name: "pg", Kind: "postgres", Host: pg["LOUPE_PG_HOST"], Port: port,
		Database: pg["LOUPE_PG_DATABASE"], User: pg["LOUPE_PG_RO_USER"], TLS: "prefer"}
	with := func(edit func(in *app.ConnectionInput), pw string) app.ConnectionInput {
		in := good
		edit(&in)
		in.Password = &pw
		return in
	}
	rightPW := pg["LOUPE_PG_RO_PASSWORD"]
	check, err := e.app.TestConnectionInput(with(func(*app.ConnectionInput) {}, rightPW))
	if err != nil {
		t.Fatal(err)
	}
	if check.Dialect != "PostgreSQL" || check.Tables < 11 || check.Version == "" {
		t.Fatalf("check %+v", check)
	}
	for _, c := range []struct {
		name string
		in   app.ConnectionInput
		code string
	}{
		{"wrong password", with(func(*app.ConnectionInput) {}, rightPW+"-wrong"), app.CodeDBAuth},
		{"unknown database", with(func(in *app.ConnectionInput) { in.Database = "loupe_no_such_db" }, rightPW), app.CodeDBUnknownDatabase},
		{"nothing listens", with(func(in *app.ConnectionInput) { in.Port = closedPort(t) }, rightPW), app.CodeDBUnreachable},
		{"certificate not trusted", with(func(in *app.ConnectionInput) { in.TLS = "verify-full" }, rightPW), app.CodeDBTLS},
		{"missing file", app.ConnectionInput{Name: "gone", Kind: "sqlite", Path: filepath.Join(t.TempDir(), "gone.db")}, app.CodeDBNoFile},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.app.TestConnectionInput(c.in)
			if code := codeOf(t, err); code != c.code {
				t.Fatalf("code %q, want %q: %v", code, c.code, err)
			}
			ae := err.(*app.Error)
			if ae.Message == "" || ae.Hint == "" || strings.Contains(ae.Message+ae.Hint, rightPW) || strings.Contains(ae.Hint, "--tls") || strings.Contains(ae.Hint, "loupe connect") {
				t.Fatalf("message %q hint %q", ae.Message, ae.Hint)
			}
			t.Logf("%s — %s", ae.Message, ae.Hint)
		})
	}
	// A saved connection is tested with its stored password.
	good.Password = &rightPW
	if _, err := e.app.SaveConnection(good); err != nil {
		t.Fatal(err)
	}
	if _, err := e.app.TestConnection("pg"); err != nil {
		t.Fatalf("saved connection: %v", err)
	}
}

// closedPort is a loopback port nothing listens on (one just freed).
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// A conversation about a connection asks its database: the agent sees the
// SQLite dialect and the declared keys, and its join runs on the file.
func TestAskInAConnectionChatRunsOnTheDatabase(t *testing.T) {
	join := `SELECT g.Name AS genre, count(*) AS tracks FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name ORDER BY tracks DESC LIMIT 3`
	e := newEnv(t, setup{turns: []fake.Turn{
		fake.Calls(call("run_sql", map[string]any{"sql": join, "purpose": "tracks per genre"})),
		fake.Text("Rock has the most tracks.\n\nFindings:\n- Rock leads with 1297 tracks [q1]"),
	}})
	e.addChinook(t)
	chat, err := e.app.NewConnectionChat("music")
	if err != nil {
		t.Fatal(err)
	}
	if chat.Connection != "music" {
		t.Fatalf("chat %+v", chat)
	}
	out := e.answered(t, chat.ID, "Which genres have the most tracks?")
	results := e.srv.Requests()[1].ToolResults()
	if len(results) != 1 || !strings.Contains(results[0].Content, "Rock") || !strings.Contains(results[0].Content, "1297") {
		t.Fatalf("the join should run on the file:\n%v", results)
	}
	sys := agenttest.Prompt(e.srv.Requests()[0])
	for _, want := range []string{"SQLite", "connection music", "Track.GenreId = Genre.GenreId"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	chats, err := e.app.ListChats()
	if err != nil || len(chats) != 1 || chats[0].Connection != "music" || chats[0].Name == "" {
		t.Fatalf("chats %+v, %v", chats, err)
	}
	got, err := e.app.GetChat(chat.ID)
	if err != nil || got.Connection != "music" || len(got.Turns) != 1 {
		t.Fatalf("chat %+v, %v", got, err)
	}
	// Gone connection: the next question fails, saying so.
	if err := e.app.RemoveConnection("music"); err != nil {
		t.Fatal(err)
	}
	res, err := e.app.Ask(chat.ID, "And albums?")
	if err != nil {
		t.Fatal(err)
	}
	out = e.rec.waitFinished(t, res.RunID, 30*time.Second)
	if out.Status != agent.Failed || !strings.Contains(out.Reason, `No connection is called "music"`) {
		t.Fatalf("outcome %s: %s", out.Status, out.Reason)
	}
}

func TestImportQueryAddsADataset(t *testing.T) {
	e := newEnv(t, setup{})
	e.addChinook(t)
	q := `SELECT g.Name AS genre, count(*) AS tracks FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name`
	d, err := e.app.ImportQuery("music", q, "genre_tracks", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "genre_tracks" || d.Rows != 25 || len(d.Columns) != 2 || d.Source != "connection music" {
		t.Fatalf("dataset %+v", d)
	}
	var phases []string
	for _, p := range e.rec.of(app.EventImportProgress) {
		ip := p.(app.ImportProgress)
		if ip.Connection != "music" || ip.Table != "genre_tracks" {
			t.Errorf("progress %+v", ip)
		}
		phases = append(phases, ip.Phase)
	}
	if len(phases) < 3 || phases[0] != "connecting" || phases[len(phases)-1] != "done" {
		t.Errorf("phases %v", phases)
	}
	if len(e.rec.of(app.EventDatasetsChanged)) == 0 {
		t.Errorf("no datasets:changed")
	}
	// It joins with local data through the workspace's SQL.
	r, err := e.app.RunSQL("SELECT tracks FROM genre_tracks WHERE genre = 'Rock'")
	if err != nil || r.Rows != 1 || fmt.Sprint(r.Page.Rows[0][0]) != "1297" {
		t.Fatalf("query the import: %+v, %v", r, err)
	}

	// A taken name, unless replaced; a row limit.
	_, err = e.app.ImportQuery("music", q, "genre_tracks", 0, false)
	if code := codeOf(t, err); code != app.CodeInvalid || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("taken name: %v", err)
	}
	if d, err = e.app.ImportQuery("music", q, "genre_tracks", 5, true); err != nil || d.Rows != 5 || len(d.Warnings) == 0 {
		t.Fatalf("replace with 5 rows: %+v, %v", d, err)
	}
	for _, c := range []struct{ name, sql, table, code string }{
		{"bad SQL", "SELECT nope FROM Track", "t1", app.CodeSQL},
		{"a write", "DELETE FROM Track", "t2", app.CodeRefused},
		{"bad table name", q, "1st", app.CodeInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.app.ImportQuery("music", c.sql, c.table, 0, false)
			if code := codeOf(t, err); code != c.code {
				t.Fatalf("code %q, want %q: %v", code, c.code, err)
			}
		})
	}
	ds, err := e.app.ListDatasets()
	if err != nil || len(ds) != 1 {
		t.Fatalf("datasets %+v, %v", ds, err)
	}
}

// CancelImport stops a long import; nothing of it is left.
func TestCancelImportLeavesNothing(t *testing.T) {
	e := newEnv(t, setup{})
	e.addChinook(t)
	long := `WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x, x * 2 AS y FROM r`
	errc := make(chan error, 1)
	go func() {
		_, err := e.app.ImportQuery("music", long, "many", 50_000_000, false)
		errc <- err
	}()
	deadline := time.After(20 * time.Second)
	for reading := false; !reading; {
		for _, p := range e.rec.of(app.EventImportProgress) {
			reading = reading || p.(app.ImportProgress).Rows > 0
		}
		select {
		case <-deadline:
			t.Fatal("the import never reported rows")
		case <-time.After(20 * time.Millisecond):
		}
	}
	start := time.Now()
	if err := e.app.CancelImport("many"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if code := codeOf(t, err); code != app.CodeCanceled {
			t.Fatalf("code %q: %v", code, err)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Errorf("cancel took %s", el)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the import did not stop")
	}
	if ds, _ := e.app.ListDatasets(); len(ds) != 0 {
		t.Fatalf("datasets after cancel: %+v", ds)
	}
}
