package privacy

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// A private value comes from the user's data, so it is hostile text: put
// back into the model's SQL it must stay the one literal (or name) the
// model wrote around its placeholder, whatever quotes or comments come
// before it in the statement.
func TestUnmaskCallKeepsAValueInItsQuotes(t *testing.T) {
	const hostile = `x' OR '1'='1`
	cases := []struct{ name, sql, want string }{
		{"apostrophe in a quoted name before the literal",
			`SELECT "customer's name" FROM t WHERE name = '<name_1>'`,
			`SELECT "customer's name" FROM t WHERE name = 'x'' OR ''1''=''1'`},
		{"apostrophe in a line comment",
			"-- the customer's rows\nSELECT * FROM t WHERE name = '<name_1>'",
			"-- the customer's rows\nSELECT * FROM t WHERE name = 'x'' OR ''1''=''1'"},
		{"apostrophe in a block comment",
			`SELECT * /* don't */ FROM t WHERE name = '<name_1>'`,
			`SELECT * /* don't */ FROM t WHERE name = 'x'' OR ''1''=''1'`},
		{"escaped quote in an earlier literal",
			`SELECT * FROM t WHERE note <> 'it''s' AND name = '<name_1>'`,
			`SELECT * FROM t WHERE note <> 'it''s' AND name = 'x'' OR ''1''=''1'`},
		{"plain literal", `SELECT * FROM t WHERE name = '<name_1>'`,
			`SELECT * FROM t WHERE name = 'x'' OR ''1''=''1'`},
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (name VARCHAR, note VARCHAR, "customer's name" VARCHAR);
		INSERT INTO t VALUES ('x'' OR ''1''=''1', 'a', 'a'), ('Ann', 'b', 'b'), ('Bob', 'c', 'c')`); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := NewMasker()
			if ph := m.Mask(hostile, Name); ph != "<name_1>" {
				t.Fatalf("placeholder %s", ph)
			}
			raw, _ := json.Marshal(map[string]string{"sql": c.sql})
			var out map[string]string
			if err := json.Unmarshal(m.UnmaskCall(raw), &out); err != nil {
				t.Fatal(err)
			}
			if out["sql"] != c.want {
				t.Errorf("unmasked\n got %s\nwant %s", out["sql"], c.want)
			}
			// The statement the tool runs finds the one row holding the
			// value, not every row.
			var n int
			if err := db.QueryRowContext(ctx, "SELECT count(*) FROM ("+out["sql"]+"\n)").Scan(&n); err != nil {
				t.Fatalf("run %s: %v", out["sql"], err)
			}
			if n != 1 {
				t.Errorf("%s found %d rows, want 1", out["sql"], n)
			}
		})
	}
}

// A placeholder the model put inside a quoted name gets its value with
// the name's quotes doubled.
func TestUnmaskCallKeepsAValueInAQuotedName(t *testing.T) {
	m := NewMasker()
	m.Mask(`total" FROM t; --`, Private)
	raw := []byte(`{"sql":"SELECT 1 AS \"<private_1>\""}`)
	var out map[string]string
	if err := json.Unmarshal(m.UnmaskCall(raw), &out); err != nil {
		t.Fatal(err)
	}
	if want := `SELECT 1 AS "total"" FROM t; --"`; out["sql"] != want {
		t.Errorf("unmasked\n got %s\nwant %s", out["sql"], want)
	}
}

// In an E'…' literal a backslash escapes: a value ending with one must
// not escape the closing quote. In a dollar-quoted string nothing
// escapes: a value holding the closing tag stays masked.
func TestUnmaskCallEscapeAndDollarStrings(t *testing.T) {
	m := NewMasker()
	m.Mask(`ends with \`, Private)
	m.Mask(`a$$ OR true --`, Private)
	cases := []struct{ sql, want string }{
		{`SELECT E'<private_1>' AS v`, `SELECT E'ends with \\' AS v`},
		{`SELECT '<private_1>' AS v`, `SELECT 'ends with \' AS v`},
		{`SELECT $$<private_2>$$ AS v`, `SELECT $$<private_2>$$ AS v`},
		{`SELECT $q$<private_2>$q$ AS v`, `SELECT $q$a$$ OR true --$q$ AS v`},
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range cases {
		raw, _ := json.Marshal(map[string]string{"sql": c.sql})
		var out map[string]string
		if err := json.Unmarshal(m.UnmaskCall(raw), &out); err != nil {
			t.Fatal(err)
		}
		if out["sql"] != c.want {
			t.Errorf("unmasked %s\n got %s\nwant %s", c.sql, out["sql"], c.want)
			continue
		}
		var v string
		if err := db.QueryRow(out["sql"]).Scan(&v); err != nil {
			t.Errorf("run %s: %v", out["sql"], err)
		}
	}
}
