package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
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
			sys := srv.Requests()[0].Messages[0].Content
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
