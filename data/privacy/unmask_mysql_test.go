package privacy_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
	_ "github.com/loupeapp/loupe/data/remote/mysql" // registers the MySQL connector
	"github.com/loupeapp/loupe/data/remote/remotetest"
)

// On MySQL and MariaDB a backslash escapes inside a string: a private
// value ending with one, put back in the model's query as DuckDB's rules
// would, escapes its closing quote and the next value runs as SQL. Put
// back by UnmaskCallMySQL it stays in its literal. Shown on the test
// MariaDB server's Chinook, through Loupe's own connection.
func TestUnmaskCallMySQLKeepsBackslashesInTheLiteral(t *testing.T) {
	env := remotetest.Servers(t, "mysql")
	ctx := context.Background()
	p, password := remotetest.MySQLProfile(t, env, "RO", env["LOUPE_MYSQL_DATABASE"])
	src, err := remote.Open(ctx, p, password)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := privacy.NewMasker()
	m.Mask(`Smith\`, privacy.Name)      // <name_1>
	m.Mask(` OR 1=1 -- `, privacy.Name) // <name_2>
	m.Mask("Gonçalves", privacy.Name)   // <name_3>
	count := func(unmask func([]byte) []byte, sql string) (int64, string) {
		t.Helper()
		raw, _ := json.Marshal(map[string]string{"sql": sql})
		var out map[string]string
		if err := json.Unmarshal(unmask(raw), &out); err != nil {
			t.Fatal(err)
		}
		res, err := src.Query(ctx, out["sql"], query.Limits{})
		if err != nil {
			t.Fatalf("run %s: %v", out["sql"], err)
		}
		n, _ := res.Rows[0][0].(int64)
		return n, out["sql"]
	}
	const hostile = `SELECT count(*) FROM Customer WHERE LastName = '<name_1>' AND FirstName = '<name_2>'`
	if n, sql := count(m.UnmaskCall, hostile); n == 0 {
		t.Logf("DuckDB's rules on MySQL: %s matched no row", sql)
	} else {
		t.Logf("DuckDB's rules on MySQL: %s matched %d rows (why MySQL needs its own)", sql, n)
	}
	if n, sql := count(m.UnmaskCallMySQL, hostile); n != 0 {
		t.Errorf("%s matched %d customers, want none", sql, n)
	}
	for _, sql := range []string{
		`SELECT count(*) FROM Customer WHERE LastName = '<name_3>'`,
		`SELECT count(*) FROM Customer WHERE LastName = "<name_3>"`,
		"SELECT count(*) FROM Customer WHERE `LastName` = '<name_3>' # it's",
	} {
		if n, got := count(m.UnmaskCallMySQL, sql); n != 1 {
			t.Errorf("%s matched %d customers, want 1", got, n)
		}
	}
}
