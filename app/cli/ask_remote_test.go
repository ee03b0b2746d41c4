package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/remote/remotetest"
)

// A multi-table question answered on each engine where the data lives: the
// model is shown the engine's dialect and its declared foreign keys, and
// its join runs on the server.
func TestAskConnection(t *testing.T) {
	sqliteFile, err := filepath.Abs("../../data/remote/sqlite/testdata/Chinook_Sqlite.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dialect, join, sql string
		add                      func(t *testing.T) (args []string, stdin string)
	}{
		{"sqlite", "SQLite", "Track.GenreId = Genre.GenreId (declared key)",
			`SELECT g.Name AS genre, count(*) AS tracks FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name ORDER BY tracks DESC LIMIT 3`,
			func(t *testing.T) ([]string, string) { return []string{"--path", sqliteFile}, "" }},
		{"postgres", "PostgreSQL", "track.genre_id = genre.genre_id (declared key)",
			`SELECT g.name AS genre, count(*) AS tracks FROM track t JOIN genre g ON g.genre_id = t.genre_id GROUP BY g.name ORDER BY tracks DESC LIMIT 3`,
			func(t *testing.T) ([]string, string) {
				env := remotetest.Servers(t, "pg")
				url := fmt.Sprintf("postgres://%s@%s:%s/%s?sslmode=disable", env["LOUPE_PG_RO_USER"], env["LOUPE_PG_HOST"], env["LOUPE_PG_PORT"], env["LOUPE_PG_DATABASE"])
				return []string{"--url", url, "--password-stdin"}, env["LOUPE_PG_RO_PASSWORD"] + "\n"
			}},
		{"mariadb", "MariaDB", "Track.GenreId = Genre.GenreId (declared key)",
			`SELECT g.Name AS genre, count(*) AS tracks FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name ORDER BY tracks DESC LIMIT 3`,
			func(t *testing.T) ([]string, string) {
				env := remotetest.Servers(t, "mysql")
				url := fmt.Sprintf("mysql://%s@%s:%s/%s", env["LOUPE_MYSQL_RO_USER"], env["LOUPE_MYSQL_HOST"], env["LOUPE_MYSQL_PORT"], env["LOUPE_MYSQL_DATABASE"])
				return []string{"--url", url, "--password-stdin"}, env["LOUPE_MYSQL_RO_PASSWORD"] + "\n"
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			connectEnv(t)
			args, stdin := c.add(t)
			if code, _, errs := run(t, stdin, append([]string{"connect", "add", "music"}, args...)...); code != ExitOK {
				t.Fatalf("connect add: %s", errs)
			}
			b, _ := json.Marshal(map[string]string{"sql": c.sql})
			srv := fake.New(t,
				fake.Calls(fake.Call{Name: "run_sql", Args: string(b)}),
				fake.Text("Rock has the most tracks.\n\nFindings:\n- Rock leads [q1]"),
			)
			code, out, errs := run(t, "", "ask", "--connection", "music", "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "Which genres have the most tracks?")
			if code != ExitOK {
				t.Fatalf("exit %d: %s\n%s", code, errs, out)
			}
			res := srv.Requests()[1].ToolResults()
			if len(res) != 1 || !strings.Contains(res[0].Content, "Rock") || !strings.Contains(res[0].Content, "1297") {
				t.Errorf("the join should run on the server and show Rock with 1297 tracks:\n%v", res)
			}
			sys := agenttest.Prompt(srv.Requests()[0])
			for _, want := range []string{"## Data (" + c.dialect + " SQL)", "your queries run there", c.join} {
				if !strings.Contains(sys, want) {
					t.Errorf("system prompt lacks %q:\n%s", want, sys)
				}
			}
			if strings.Contains(sys, "date_trunc('month', d), extract(year FROM d), strftime") {
				t.Errorf("the DuckDB tips should give way to the engine's own")
			}
		})
	}
}

// A remote result imported into the workspace joins with a local file.
func TestConnectImportJoinsLocalData(t *testing.T) {
	connectEnv(t)
	file, err := filepath.Abs("../../data/remote/sqlite/testdata/Chinook_Sqlite.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "", "connect", "add", "music", "--path", file); code != ExitOK {
		t.Fatalf("connect add: %s", errs)
	}
	ws := t.TempDir()
	code, out, errs := run(t, "", "connect", "import", "music", "--workspace", ws, "--as", "genres", "--limit", "10",
		"SELECT GenreId AS genre_id, Name AS genre FROM Genre ORDER BY GenreId")
	if code != ExitOK {
		t.Fatalf("import: %d %s", code, errs)
	}
	var line loadLine
	if err := json.Unmarshal([]byte(out), &line); err != nil || line.Table != "genres" || line.Rows != 10 || len(line.Warnings) == 0 {
		t.Fatalf("import line %s (%v): want 10 rows and a warning that the limit cut the result", out, err)
	}
	local := writeFile(t, t.TempDir(), "likes.csv", "genre_id,likes\n1,50\n2,7\n")
	if code, _, errs := run(t, "", "load", "--workspace", ws, local); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	code, out, errs = run(t, "", "sql", "--workspace", ws, "--json", "SELECT g.genre, l.likes FROM genres g JOIN likes l USING (genre_id) ORDER BY l.likes DESC")
	if code != ExitOK || !strings.Contains(out, `["Rock",50]`) {
		t.Errorf("join of imported and local data: %d %s %s", code, out, errs)
	}
	if code, _, errs := run(t, "", "connect", "import", "music", "--workspace", ws, "SELECT 1"); code != ExitUsage || !strings.Contains(errs, "--as TABLE") {
		t.Errorf("missing --as: %d %s", code, errs)
	}
}

// connect add and connect test keep the discovered schema as the
// connection's catalog and schema index beside the profiles file;
// connect remove removes them.
func TestConnectKeepsSchema(t *testing.T) {
	cfgDir, _ := connectEnv(t)
	file, err := filepath.Abs("../../data/remote/sqlite/testdata/Chinook_Sqlite.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "", "connect", "add", "music", "--path", file, "--json")
	if code != ExitOK {
		t.Fatalf("add: %d %s", code, errs)
	}
	var res connectResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Catalog == nil || res.Catalog.Tables != 11 || res.Catalog.Indexed != 11 || res.Catalog.IndexBytes == 0 {
		t.Fatalf("add result %s (%v)", out, err)
	}
	dir := filepath.Join(cfgDir, "connections", "music")
	first, err := remote.LoadCatalog(dir)
	if err != nil || len(first.Schema.Tables) != 11 {
		t.Fatalf("catalog after add: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "schema-index")); err != nil {
		t.Fatalf("no schema index after add: %v", err)
	}
	time.Sleep(10 * time.Millisecond) // a later discovery has a later stamp
	code, out, errs = run(t, "", "connect", "test", "music", "--json")
	if code != ExitOK || json.Unmarshal([]byte(out), &res) != nil || res.Catalog == nil || res.Catalog.Indexed != 0 {
		t.Fatalf("test: %d %s %s (nothing changed: nothing to re-index)", code, out, errs)
	}
	again, err := remote.LoadCatalog(dir)
	if err != nil || !again.DiscoveredAt.After(first.DiscoveredAt) {
		t.Fatalf("catalog after test: %v, stamped %v then %v", err, first.DiscoveredAt, again.DiscoveredAt)
	}
	if code, _, errs := run(t, "", "connect", "remove", "music"); code != ExitOK {
		t.Fatalf("remove: %s", errs)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the catalog and index outlive the connection: %v", err)
	}
}

// Asking about a 5,000-table database: the prompt holds the tables the
// question needs, not the whole schema (the run's metadata says how big
// it is), and search_schema reaches the rest through the connection's
// index, comments included.
func TestAskConnectionWide(t *testing.T) {
	connectEnv(t)
	p, pw := remotetest.WideDB(t, 5000)
	url := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", p.User, p.Host, p.Port, p.Database)
	if code, _, errs := run(t, pw+"\n", "connect", "add", "wide", "--url", url, "--password-stdin"); code != ExitOK {
		t.Fatalf("connect add: %s", errs)
	}
	srv := fake.New(t,
		fake.Calls(fake.Call{Name: "search_schema", Args: `{"query": "probability of cancellation"}`}),
		fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql": "SELECT count(*) AS likely FROM sales.cx_attrition_scores WHERE p_leave > 0.9"}`}),
		fake.Text("198 subscribers are likely to cancel.\n\nFindings:\n- 198 above 0.9 [q1]"),
	)
	code, out, errs := run(t, "", "ask", "--connection", "wide", "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--json",
		"Which subscribers are most likely to cancel next quarter?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	reqs := srv.Requests()
	sys := agenttest.Prompt(reqs[0])
	for _, want := range []string{"sales.cx_attrition_scores", "probability of cancellation", "more table(s) exist"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "ops.fin_refund_daily") {
		t.Errorf("the prompt names tables the question does not need")
	}
	offered := false
	for _, tool := range reqs[0].Tools {
		offered = offered || tool.Name == "search_schema"
	}
	if !offered {
		t.Errorf("search_schema not offered: %+v", reqs[0].Tools)
	}
	if res := reqs[1].ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "1. sales.cx_attrition_scores") {
		t.Errorf("search_schema should find the table by its column's comment: %v", res)
	}
	if res := reqs[2].ToolResults(); len(res) != 2 || !strings.Contains(res[1].Content, "198") {
		t.Errorf("the query should run on the server: %v", res)
	}
	var meta map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var ev struct {
			Type     string `json:"type"`
			Finished struct {
				Meta map[string]any `json:"meta"`
			} `json:"finished"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "run_finished" {
			meta = ev.Finished.Meta
		}
	}
	if est, _ := meta["prompt_tokens_estimate"].(float64); est == 0 || est > 4000 {
		t.Errorf("system prompt estimate %v tokens in the run's metadata (budget 4,000): %v", meta["prompt_tokens_estimate"], meta)
	}
}
