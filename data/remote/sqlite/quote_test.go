package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
)

// A hostile file's names quoted by remote.QuoteIdent make one identifier
// each, in the count discovery runs and in the statements Loupe builds.
func TestQuoteIdentHostileNames(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hostile.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	table, col := `q"t; DROP TABLE x; --`, "c\"` FROM x; --"
	qt, qc := remote.QuoteIdent(remote.SQLite, table), remote.QuoteIdent(remote.SQLite, col)
	for _, q := range []string{"CREATE TABLE x (v TEXT)", "CREATE TABLE " + qt + " (" + qc + " TEXT)", "INSERT INTO " + qt + " VALUES ('only row')"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err := remote.Open(ctx, remote.Profile{Name: "hostile", Kind: remote.SQLite, Path: path}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sc, err := s.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tb := range sc.Tables {
		if tb.Name == table {
			found = tb.Rows == 1
		}
	}
	if !found {
		t.Errorf("discovery did not count the one row of %q: %+v", table, sc.Tables)
	}
	res, err := s.Query(ctx, "SELECT "+qc+" FROM "+qt, query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0][0] != "only row" {
		t.Errorf("read %v, want one row 'only row'", res.Rows)
	}
}
