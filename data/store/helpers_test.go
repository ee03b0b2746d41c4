package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// open opens a new store in a temporary folder.
func open(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// conversation creates a conversation and returns its id.
func conversation(t testing.TB, s *Store) string {
	t.Helper()
	c, err := s.CreateConversation(context.Background(), "", "/ws")
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// ask asks question in conv and claims the answer as runID.
func ask(t testing.TB, s *Store, conv, question, runID string) (*Pair, *Run) {
	t.Helper()
	ctx := context.Background()
	p, err := s.Ask(ctx, conv, question)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Claim(ctx, p.Assistant.ID, runID)
	if err != nil {
		t.Fatal(err)
	}
	return p, r
}

// fromFixture writes testdata/name (a sqlite3 .dump) into a new file and
// returns its path.
func fromFixture(t *testing.T, name string) string {
	t.Helper()
	dump, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(dump)); err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return path
}

// rawDB opens path without migrating it.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want %v", err, target)
	}
}
