package sqlite

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/remote/remotetest"
)

func chinook(t *testing.T) string {
	p, err := filepath.Abs(filepath.Join("testdata", "Chinook_Sqlite.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestContract(t *testing.T) {
	remotetest.Run(t, remotetest.Harness{
		Profile: remote.Profile{Name: "chinook-sqlite", Kind: remote.SQLite, Path: chinook(t)},
		Ident:   remotetest.Pascal,
		Slow: func(marker string) string {
			return "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) AS " + marker + " FROM c"
		},
		Unchecked: func(ctx context.Context, s remote.Source, text string) error {
			return s.(*Source).unchecked(ctx, text)
		},
	})
}

func TestNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), remote.Profile{Name: "notes", Kind: remote.SQLite, Path: path})
	var ce *remote.ConnError
	if !errors.As(err, &ce) || ce.Problem != remote.NoFile || !strings.Contains(ce.Msg, "not a SQLite database") {
		t.Fatalf("want a not-a-database error, got %v", err)
	}
}

// TestNeverWrites checks that querying leaves the file and its folder as
// they were: no journal, no lock file, same bytes.
func TestNeverWrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "chinook.db")
	orig, err := os.ReadFile(chinook(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), remote.Profile{Name: "c", Kind: remote.SQLite, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Query(context.Background(), "SELECT count(*) FROM Track", query.Limits{}); err != nil {
		t.Fatal(err)
	}
	_ = s.unchecked(context.Background(), "CREATE TABLE x (a)")
	s.Close()
	entries, _ := os.ReadDir(dir)
	after, _ := os.ReadFile(path)
	if len(entries) != 1 || !bytes.Equal(after, orig) {
		t.Fatalf("the folder holds %d entries, file unchanged %v", len(entries), bytes.Equal(after, orig))
	}
}

// TestQuotedFileFunctionsRefused: SQLite's file and extension functions,
// however quoted, are refused before the file is read, and the connection
// has no role to warn about.
func TestQuotedFileFunctionsRefused(t *testing.T) {
	ctx := context.Background()
	p := remote.Profile{Name: "chinook-sqlite", Kind: remote.SQLite, Path: chinook(t)}
	src, err := remote.Open(ctx, p, "")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for text, fn := range map[string]string{
		`SELECT "readfile"('/etc/passwd')`:         "readfile",
		"SELECT [load_extension]('/tmp/x.so')":     "load_extension",
		"SELECT `writefile`('/tmp/loupe-x', 'y')":  "writefile",
		`SELECT * FROM "fsdir" WHERE name = '/'`:   "fsdir",
		"SELECT fts3_tokenizer /* c */ ('simple')": "fts3_tokenizer",
		// SQLite reads $a(…) (Tcl's variable syntax) up to a space or ")"
		// as one token: the quote in it was read as opening a string.
		"SELECT $a(') AS v, fts3_tokenizer('simple') AS f":          "fts3_tokenizer",
		"SELECT $a::b(') AS v, fts3_tokenizer('simple') AS f -- '":  "fts3_tokenizer",
		"SELECT :a(\x01') AS v, fts3_tokenizer('simple') AS f -- '": "fts3_tokenizer",
	} {
		res, err := src.Query(ctx, text, query.Limits{})
		if !errors.Is(err, guard.ErrRefused) || !strings.Contains(err.Error(), fn) {
			t.Errorf("%s: want a refusal naming %s, got %v, %v", text, fn, res, err)
		}
	}
	tested, err := remote.Test(ctx, p, "")
	if err != nil || tested.Role != nil {
		t.Fatalf("test: %+v %v", tested, err)
	}
}
