package mysql

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
)

// A hostile server's names (backticks, double quotes, a statement's end)
// quoted by remote.QuoteIdent make one identifier each: the statement
// Loupe builds reads the table they name. The table lives in a database
// of its own, so that the shared Chinook database never shows it.
func TestQuoteIdentHostileNames(t *testing.T) {
	env := server(t)
	ctx := context.Background()
	admin, err := connect(env, "ADMIN")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	dbName := fmt.Sprintf("loupe_quote_%d", time.Now().UnixNano())
	table, col := "q`t\"; DROP TABLE Track; --", "c`\" FROM Track; --"
	qt, qc := remote.QuoteIdent(remote.MySQL, table), remote.QuoteIdent(remote.MySQL, col)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+dbName); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+dbName) })
	for _, q := range []string{
		"CREATE TABLE " + dbName + "." + qt + " (" + qc + " VARCHAR(20))",
		"INSERT INTO " + dbName + "." + qt + " VALUES ('only row')",
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	p, _ := roProfile(t, env)
	p.User, p.Database = env["LOUPE_MYSQL_ADMIN_USER"], dbName
	s, err := Open(ctx, p, env["LOUPE_MYSQL_ADMIN_PASSWORD"])
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
