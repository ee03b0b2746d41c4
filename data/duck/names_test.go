package duck_test

import (
	"context"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/duck"
)

// TestQuoteIdentMakesOneIdentifier creates a table with a column of each
// awkward name through QuoteIdent and reads it back by that name: no
// name ends the statement early or names another column.
func TestQuoteIdentMakesOneIdentifier(t *testing.T) {
	e, err := duck.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, name := range []string{`"`, `""`, `a"; DROP TABLE x; --`, strings.Repeat("L", 10000), "tab\there", "new\nline", "nul\x00cut", "ünï", " "} {
		q := duck.QuoteIdent(name)
		if strings.IndexByte(q, 0) >= 0 {
			t.Errorf("QuoteIdent(%q) holds a NUL", name)
		}
		if _, err := e.DB().Exec("CREATE OR REPLACE TABLE x AS SELECT 42 AS " + q); err != nil {
			t.Errorf("create with column %.40q: %v", name, err)
			continue
		}
		var v int
		if err := e.DB().QueryRow("SELECT " + q + " FROM x").Scan(&v); err != nil || v != 42 {
			t.Errorf("select column %.40q: %d, %v", name, v, err)
		}
	}
}

// TestExecOneRunsOneStatement: ExecOne runs a statement, and refuses a
// text of two (a definition whose quoting a file's names broke) without
// running either.
func TestExecOneRunsOneStatement(t *testing.T) {
	ctx := context.Background()
	e, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	err = e.Write(ctx, func(c *duckdb.Conn) error {
		if err := duck.ExecOne(ctx, c, "CREATE TABLE one AS SELECT 1 AS v"); err != nil {
			return err
		}
		if err := duck.ExecOne(ctx, c, "CREATE VIEW two AS SELECT 2 AS v; CREATE TABLE pwned AS SELECT 3 AS v"); err == nil {
			t.Error("two statements ran through ExecOne")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	rows, err := e.DB().Query("SELECT table_name FROM information_schema.tables ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if strings.Join(names, ",") != "one" {
		t.Errorf("tables %v, want only one", names)
	}
}

func TestCleanName(t *testing.T) {
	tests := []struct {
		in, want string
		changed  bool
	}{
		{"plain name", "plain name", false},
		{"col\x00 2", "col 2", true},
		{"a\x10b", "a b", true},
		{"\x01\x02lead", "lead", true},
		{"trail\x7f", "trail", true},
		{"c1\u0085x", "c1 x", true},
		{"\x00", "", true},
		{"ünïcödé", "ünïcödé", false},
	}
	for _, tc := range tests {
		got, changed := duck.CleanName(tc.in)
		if got != tc.want || changed != tc.changed {
			t.Errorf("CleanName(%q) = %q, %v; want %q, %v", tc.in, got, changed, tc.want, tc.changed)
		}
	}
}

// TestLimits opens a workspace with the memory and threads set through
// the environment and reads them back from DuckDB; a bad value fails the
// open with a message naming the variable.
func TestLimits(t *testing.T) {
	t.Setenv(duck.EnvMemory, "300MB")
	t.Setenv(duck.EnvThreads, "1")
	dir := t.TempDir()
	e, err := duck.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var mem, threads, tmp string
	err = e.DB().QueryRow("SELECT current_setting('memory_limit'), current_setting('threads')::VARCHAR, current_setting('temp_directory')").Scan(&mem, &threads, &tmp)
	e.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(mem, "286") && !strings.HasPrefix(mem, "300") || threads != "1" || !strings.HasPrefix(tmp, dir) {
		t.Errorf("memory_limit %s, threads %s, temp_directory %s; want 300MB, 1, inside %s", mem, threads, tmp, dir)
	}
	t.Setenv(duck.EnvMemory, "lots")
	if e, err := duck.Open(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), duck.EnvMemory) {
		if e != nil {
			e.Close()
		}
		t.Errorf("open with %s=lots: %v, want an error naming it", duck.EnvMemory, err)
	}
}
