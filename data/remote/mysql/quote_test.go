package mysql

import (
	"context"
	"testing"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/remote/remotetest"
)

// A hostile server's names (backticks, double quotes, a statement's end)
// quoted by remote.QuoteIdent make one identifier each: the statement
// Loupe builds reads the table they name. The table lives in a database
// of its own, so that the shared Chinook database never shows it.
func TestQuoteIdentHostileNames(t *testing.T) {
	env := server(t)
	ctx := context.Background()
	admin, dbName := remotetest.MySQLScratch(t, env, "loupe_quote")
	table, col := "q`t\"; DROP TABLE Track; --", "c`\" FROM Track; --"
	qt, qc := remote.QuoteIdent(remote.MySQL, table), remote.QuoteIdent(remote.MySQL, col)
	for _, q := range []string{
		"CREATE TABLE " + dbName + "." + qt + " (" + qc + " VARCHAR(20))",
		"INSERT INTO " + dbName + "." + qt + " VALUES ('only row')",
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	p, password := remotetest.MySQLProfile(t, env, "ADMIN", dbName)
	s, err := Open(ctx, p, password)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Query(ctx, "SELECT "+qc+" FROM "+qt, query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0][0] != "only row" || res.Columns[0].Name != col {
		t.Errorf("read %v %v, want one row 'only row' under %q", res.Columns, res.Rows, col)
	}
}
