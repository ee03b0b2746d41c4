package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app/assemble"
)

type searchMatch struct {
	Table   string  `json:"table"`
	Score   float64 `json:"score"`
	Columns []struct {
		Name string `json:"name"`
	} `json:"columns"`
}

func decodeMatches(t *testing.T, out string) []searchMatch {
	t.Helper()
	var got []searchMatch
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	return got
}

func TestSearch(t *testing.T) {
	ws := t.TempDir()
	src := t.TempDir()
	a := writeFile(t, src, "rainfall.csv", "station,rainfall_mm,measured_on\nOslo,3,2024-01-01\nBergen,9,2024-01-01\n")
	b := writeFile(t, src, "invoices.csv", "InvoiceId,CustomerName,billingCity,total\n1,Ada,Paris,10\n")
	if code, _, errs := run(t, "", "load", "--workspace", ws, a, b); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	code, out, errs := run(t, "", "search", "--workspace", ws, "--json", "--k", "1", "total billed per city")
	if code != ExitOK {
		t.Fatalf("search exit %d: %s", code, errs)
	}
	got := decodeMatches(t, out)
	if len(got) != 1 || got[0].Table != "invoices" || got[0].Score <= 0 || len(got[0].Columns) == 0 {
		t.Fatalf("search --json: %s", out)
	}
	code, out, _ = run(t, "", "search", "--workspace", ws, "how much rainfall in Bergen")
	if code != ExitOK || !strings.Contains(out, " 1. rainfall") || !strings.Contains(out, "rainfall_mm") {
		t.Errorf("search: %d %q", code, out)
	}
	if code, _, _ := run(t, "", "search", "--workspace", ws); code != ExitUsage {
		t.Errorf("search without a question: exit %d", code)
	}
	code, out, _ = run(t, "", "search", "--workspace", ws, "--json", "the")
	if code != ExitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("search of stop words: %d %q", code, out)
	}
}

// The embedding requests of loupe search (table and column names) are kept
// like every request to a model server on another machine.
func TestSearchKeepsItsEmbeddings(t *testing.T) {
	srv := fake.Start(t, fake.Options{})
	ws := t.TempDir()
	file := writeFile(t, t.TempDir(), "personnel.csv", "full_name,hired_on,grade\nAda,2020-01-02,3\n")
	if code, _, errs := run(t, "", "load", "--workspace", ws, file); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	t.Setenv(assemble.EnvOutboxAll, "1") // the fake listens on loopback: record it as if it were not
	if code, _, errs := run(t, "", "search", "--workspace", ws, "--embed-model", "nomic-embed-text",
		"--base-url", srv.OllamaURL(), "What is our headcount?"); code != ExitOK {
		t.Fatalf("search: exit %d: %s", code, errs)
	}
	code, out, errs := run(t, "", "outbox", "--workspace", ws)
	if n := strings.Count(out, "POST "+srv.OllamaURL()+"/api/embed"); code != ExitOK || n != srv.Hits("/api/embed") ||
		!strings.Contains(out, "columns: full name; hired on") || !strings.Contains(out, "What is our headcount?") {
		t.Errorf("the server got %d embedding requests; loupe outbox (exit %d) printed %d:\n%.2000s%s", srv.Hits("/api/embed"), code, n, out, errs)
	}
}

// TestSearchEmbedModel: with --embed-model (or $LOUPE_EMBED_MODEL) the
// tables are embedded once and the scores printed are the fused scores; a
// failing model leaves the text ranking and says so on stderr.
func TestSearchEmbedModel(t *testing.T) {
	srv := fake.Start(t, fake.Options{})
	ws := t.TempDir()
	src := t.TempDir()
	files := []string{
		writeFile(t, src, "personnel.csv", "full_name,hired_on,grade\nAda,2020-01-02,3\n"),
		writeFile(t, src, "orders.csv", "order_id,quantity\n1,2\n"),
		writeFile(t, src, "weather.csv", "city,rain_mm\nOslo,3\n"),
	}
	if code, _, errs := run(t, "", append([]string{"load", "--workspace", ws}, files...)...); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	const q = "What is our headcount?"
	code, out, _ := run(t, "", "search", "--workspace", ws, "--json", q)
	if got := decodeMatches(t, out); code != ExitOK || len(got) > 0 && got[0].Table == "personnel" {
		t.Fatalf("text alone found %s: the test needs a question it misses", out)
	}
	const rain = "rain_mm per city"
	code, out, _ = run(t, "", "search", "--workspace", ws, "--json", rain)
	text := decodeMatches(t, out)
	if code != ExitOK || len(text) == 0 || text[0].Table != "weather" {
		t.Fatalf("text alone, %q: exit %d %s", rain, code, out)
	}
	code, out, errs := run(t, "", "search", "--workspace", ws, "--json", "--k", "2",
		"--embed-model", "nomic-embed-text", "--provider", "ollama", "--base-url", srv.OllamaURL(), q)
	got := decodeMatches(t, out)
	if code != ExitOK || len(got) == 0 || got[0].Table != "personnel" {
		t.Fatalf("fused: exit %d %s %s", code, out, errs)
	}
	// text alone gave personnel no score: this one is by meaning
	if got[0].Score <= 0 {
		t.Errorf("score %g is not a fused score", got[0].Score)
	}
	if !strings.Contains(errs, "embedded 3 tables with nomic-embed-text") || !strings.Contains(errs, "tables ranked by text and by nomic-embed-text embeddings") {
		t.Errorf("stderr %q", errs)
	}
	if n := srv.Hits("/api/embed"); n != 2 {
		t.Errorf("%d embedding requests, want one for the tables and one for the question", n)
	}
	// the environment's model, tables already embedded: the question only
	t.Setenv("LOUPE_EMBED_MODEL", "nomic-embed-text")
	t.Setenv("LOUPE_BASE_URL", srv.OllamaURL())
	code, out, errs = run(t, "", "search", "--workspace", ws, q)
	if code != ExitOK || !strings.Contains(out, " 1. personnel") || strings.Contains(errs, "embedded") {
		t.Errorf("from the environment: exit %d %q %q", code, out, errs)
	}
	if n := srv.Hits("/api/embed"); n != 3 {
		t.Errorf("%d embedding requests, want one more (the question)", n)
	}
	// a failing model: text ranking, the failure on stderr
	srv.FailEmbeddings(fake.Status(400, "model runner crashed"))
	code, out, errs = run(t, "", "search", "--workspace", ws, "--json", rain)
	got = decodeMatches(t, out)
	// The same score but for its last bits, which vary from run to run
	// (terms summed in varying order).
	if code != ExitOK || len(got) == 0 || got[0].Table != "weather" || math.Abs(got[0].Score-text[0].Score) > 1e-12*math.Abs(text[0].Score) {
		t.Errorf("failing model: exit %d %s, want the text ranking's score %g", code, out, text[0].Score)
	}
	if !strings.Contains(errs, "model runner crashed") || !strings.Contains(errs, "ranked by text alone") {
		t.Errorf("failing model, stderr %q", errs)
	}
}
