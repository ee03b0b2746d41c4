package cli

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
)

const (
	channelSQL = "SELECT channel, count(*) AS sales FROM sales GROUP BY channel ORDER BY channel"
	refreshCSV = "region,amount,channel\nnorth,10,web\nsouth,12,shop\nnorth,7,web\n"
)

// refreshTurns: an exploration of two queries and a chart, its answer,
// and the report stage's reply.
func refreshTurns() []fake.Turn {
	return []fake.Turn{
		fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql":"` + askSQL + `","purpose":"sales by region"}`}),
		fake.Calls(fake.Call{Name: "create_chart", Args: `{"title":"Sales by region","sql":"` + askSQL + `","spec":` + askSpec + `}`}),
		fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql":"` + channelSQL + `","purpose":"sales by channel"}`}),
		fake.Text("North sold the most, 17 in total.\n\nFindings:\n- North leads with 17 [q1, c1]\n- South follows with 12 [q1]\n- The web made 2 sales [q2]"),
		fake.Text("# North leads sales\n\n## Executive summary\n\nNorth sold the most.\n\n## Findings\n\n{{chart:c1}}\n\n{{table:q1}}\n\n{{table:q2}}\n"),
	}
}

// A report refreshed after its CSV changed on disk: the file is loaded
// again, every number that moved is listed old → new, the query whose
// column was dropped is named with its error, the findings it backed are
// flagged, the chart is redrawn, and the model words only the paragraph
// (a paragraph stating a number not among the changes is refused). Without
// a model the numbers are updated all the same. Versions are listed and
// any two compared.
func TestReportRefreshAfterTheCSVChanged(t *testing.T) {
	ws := t.TempDir()
	csv := writeFile(t, t.TempDir(), "sales.csv", refreshCSV)
	if code, _, errs := run(t, "", "load", "--workspace", ws, csv); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	srv := fake.New(t, append(refreshTurns(),
		fake.Text("<think>the list</think>North rose from 17 to 19 and South from 12 to 30, while the channel query now fails, so the finding about the web no longer holds."),
		fake.Text("South jumped to 99 this week."),
	)...)
	first := filepath.Join(t.TempDir(), "v1")
	chat, _ := askJSON(t, "--workspace", ws, "--base-url", srv.OllamaURL(), "--report", first, "Which region sells most?")

	// The channel column is dropped and the amounts change.
	writeFile(t, filepath.Dir(csv), "sales.csv", "region,amount\nnorth,10\nsouth,30\nnorth,9\n")
	out2 := filepath.Join(t.TempDir(), "v2")
	asked := len(srv.Requests())
	code, out, errs := run(t, "", "report", "refresh", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--chat", chat, "--out", out2)
	if code != ExitOK {
		t.Fatalf("refresh: %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"q1, north, total: 17 → 19", "q1, south, total: 12 → 30",
		`q2 fails now: Binder Error: Referenced column "channel" not found`,
		"Finding no longer holds: “North leads with 17” — 17 is no longer in the results of q1, c1.",
		"Finding no longer holds: “The web made 2 sales” — q2 now fails.",
		"North rose from 17 to 19", "Loaded again (the file changed): [sales]",
		filepath.Join(out2, "report.md"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("refresh output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "q2, ") || strings.Contains(out, "think") {
		t.Errorf("a failed query's numbers, or the model's reasoning, are listed:\n%s", out)
	}
	reqs := srv.Requests()
	if len(reqs) != asked+1 {
		t.Fatalf("the refresh asked the model %d times, want once", len(reqs)-asked)
	}
	if r := reqs[asked]; len(r.Tools) != 0 || !strings.Contains(r.Last().Content, "q1, north, total: 17 → 19") {
		t.Errorf("the model was asked with tools or without the changes: %+v", r.Last())
	}
	md := readText(t, filepath.Join(out2, "report.md"))
	for _, want := range []string{"## What changed", "North rose from 17 to 19", "**Numbers that moved**", "**Queries that now fail**",
		"**Findings whose evidence no longer holds**", "| north | 19 |", "| south | 30 |", "the query failed: Binder Error", "refreshed on", "charts/c1.svg"} {
		if !strings.Contains(md, want) {
			t.Errorf("the refreshed report.md lacks %q:\n%s", want, md)
		}
	}
	if svg := readText(t, filepath.Join(out2, "charts", "c1.svg")); !strings.Contains(svg, "<svg") {
		t.Errorf("the chart was not redrawn: %.200s", svg)
	}
	if html := readText(t, filepath.Join(out2, "report.html")); !strings.Contains(html, `"total":30`) {
		t.Error("the report's chart does not hold the new data")
	}

	// No model: the amounts change again, and the numbers follow.
	writeFile(t, filepath.Dir(csv), "sales.csv", "region,amount\nnorth,10\nsouth,31\nnorth,9\n")
	asked = len(srv.Requests())
	code, out, errs = run(t, "", "report", "refresh", "--workspace", ws, "--no-model", "--chat", chat, "--out", out2) // a weekly job's folder: replaced
	if code != ExitOK || !strings.Contains(out, "q1, south, total: 30 → 31") || !strings.Contains(out, "Since the previous version, 1 number moved") {
		t.Fatalf("refresh --no-model: %d\n%s\n%s", code, out, errs)
	}
	if len(srv.Requests()) != asked {
		t.Error("refresh --no-model asked the model")
	}
	if md := readText(t, filepath.Join(out2, "report.md")); !strings.Contains(md, "| south | 31 |") {
		t.Errorf("the export folder was not replaced by the new version:\n%s", md)
	}

	// A paragraph with a number that is not among the changes is refused.
	writeFile(t, filepath.Dir(csv), "sales.csv", "region,amount\nnorth,11\nsouth,31\nnorth,9\n")
	v4 := filepath.Join(t.TempDir(), "v4")
	code, out, errs = run(t, "", "report", "refresh", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--chat", chat, "--out", v4)
	// The folder's name is random and may hold "99" itself.
	if code != ExitOK || strings.Contains(strings.ReplaceAll(out, v4, ""), "99") || !strings.Contains(out, "q1, north, total: 19 → 20") ||
		!strings.Contains(errs, "was not used") || !strings.Contains(errs, "(99)") {
		t.Fatalf("refresh with a paragraph of invented numbers: %d\n%s\n%s", code, out, errs)
	}

	code, out, errs = run(t, "", "report", "versions", "--workspace", ws, "--chat", chat)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != ExitOK || len(lines) != 4 || !strings.Contains(lines[0], "written with qwen3:8b") ||
		!strings.Contains(lines[1], "refresh of 1: 2 numbers moved, 1 query fails, 3 findings no longer hold") ||
		!strings.Contains(lines[2], "refresh of 2: 1 number moved") {
		t.Fatalf("versions: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, "", "report", "diff", "--workspace", ws, "--chat", chat, "1", "3")
	for _, want := range []string{"From version 1 to version 3:", "Since version 1, 2 numbers moved", "q1, south, total: 12 → 31", "q2 fails now", "-| south | 12 |", "+| south | 31 |", "+## What changed"} {
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("diff 1 3 lacks %q: %d\n%s\n%s", want, code, out, errs)
		}
	}
	if code, _, errs := run(t, "", "report", "diff", "--workspace", ws, "--chat", chat, "1", "9"); code == ExitOK || !strings.Contains(errs, "no version 9") {
		t.Errorf("diff with a version out of range: %d %s", code, errs)
	}
	if md := readText(t, filepath.Join(first, "report.md")); strings.Contains(md, "What changed") || !strings.Contains(md, "| north | 17 |") {
		t.Errorf("the first version's export was touched:\n%s", md)
	}
}

func TestReportUsage(t *testing.T) {
	ws := t.TempDir()
	for _, args := range [][]string{
		{"report"}, {"report", "refresh", "--chat", "x"}, {"report", "versions"}, {"report", "diff", "--chat", "x", "1"},
		{"report", "diff", "--chat", "x", "a", "b"}, {"report", "frobnicate", "--chat", "x"},
	} {
		if code, _, errs := run(t, "", append(args, "--workspace", ws)...); code != ExitUsage || !strings.HasPrefix(errs, "loupe report: ") {
			t.Errorf("%q: %d %s", args, code, errs)
		}
	}
	if code, _, errs := run(t, "", "report", "versions", "--workspace", ws, "--chat", "nope"); code != ExitError || !strings.Contains(errs, `"nope"`) {
		t.Errorf("versions of an unknown conversation: %d %s", code, errs)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A report of a conversation about a connection is refreshed by querying
// the database again: a change made there shows as numbers that moved.
func TestReportRefreshQueriesTheConnectionAgain(t *testing.T) {
	connectEnv(t)
	b, err := os.ReadFile("../../data/remote/sqlite/testdata/Chinook_Sqlite.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "chinook.sqlite")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "", "connect", "add", "music", "--path", file); code != ExitOK {
		t.Fatalf("connect add: %s", errs)
	}
	const genres = `SELECT g.Name AS genre, count(*) AS tracks FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name ORDER BY tracks DESC LIMIT 3`
	args, _ := json.Marshal(map[string]string{"sql": genres, "purpose": "tracks per genre"})
	srv := fake.New(t,
		fake.Calls(fake.Call{Name: "run_sql", Args: string(args)}),
		fake.Text("Rock has the most tracks.\n\nFindings:\n- Rock leads with 1297 tracks [q1]"),
		fake.Text("# Rock leads\n\n{{table:q1}}\n"),
	)
	chat, _ := askJSON(t, "--connection", "music", "--base-url", srv.OllamaURL(), "--report", filepath.Join(t.TempDir(), "v1"), "Which genres have the most tracks?")

	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE Track SET GenreId = 2 WHERE TrackId IN (SELECT TrackId FROM Track WHERE GenreId = 1 LIMIT 300)`); err != nil {
		t.Fatal(err)
	}
	var rock int
	if err := db.QueryRow(`SELECT count(*) FROM Track WHERE GenreId = 1`).Scan(&rock); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "", "report", "refresh", "--no-model", "--chat", chat, "--out", filepath.Join(t.TempDir(), "v2"))
	if want := fmt.Sprintf("q1, Rock, tracks: 1297 → %d", rock); code != ExitOK || !strings.Contains(out, want) ||
		!strings.Contains(out, "“Rock leads with 1297 tracks” — 1297 is no longer in the results of q1.") || strings.Contains(out, "Loaded again") {
		t.Fatalf("refresh on the connection: %d, want %q\n%s\n%s", code, want, out, errs)
	}
	// Refreshed again with nothing changed, as JSON, into a PDF: no change, Loupe's words.
	code, out, errs = run(t, "", "report", "refresh", "--no-model", "--json", "--format", "pdf", "--chat", chat, "--out", filepath.Join(t.TempDir(), "v3"))
	var got struct {
		ID      string
		Path    string
		Changes map[string]any
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &got) != nil || !strings.HasPrefix(got.ID, "report_") ||
		!strings.HasSuffix(got.Path, "report.pdf") || len(got.Changes) != 1 || got.Changes["prose_by"] != "loupe" {
		t.Errorf("refresh --json with nothing changed: %d %+v\n%s\n%s", code, got, out, errs)
	}
}
