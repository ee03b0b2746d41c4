package pg

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/remote"
)

// wideTables is the size of the generated schema discovery must handle.
const wideTables = 5000

// wideDB creates (once per server) the database loupe_wide: wideTables
// tables in schema wide, each with a primary key, eight columns, comments,
// a foreign key to the table before it, and statistics; plus a view per
// hundred tables. It returns the read-only profile for it.
func wideDB(t testing.TB) (remote.Profile, string) {
	t.Helper()
	env := server(t)
	ctx := context.Background()
	admin, err := connect(ctx, env, "ADMIN", "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'loupe_wide')").Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if !exists {
		start := time.Now()
		// Built under another name and renamed at the end, so an
		// interrupted build is never taken for a finished one.
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS loupe_wide_building"); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec(ctx, "CREATE DATABASE loupe_wide_building"); err != nil {
			t.Fatal(err)
		}
		b, err := connect(ctx, env, "ADMIN", "loupe_wide_building")
		if err != nil {
			t.Fatal(err)
		}
		gen := fmt.Sprintf(`CREATE SCHEMA wide;
DO $$
BEGIN
  FOR i IN 1..%d LOOP
    EXECUTE format('CREATE TABLE wide.t%%s (id int PRIMARY KEY, parent_id int %%s, name text NOT NULL, amount numeric(12,2), created_at timestamptz, flag boolean, note varchar(200), score double precision)',
      i, CASE WHEN i > 1 THEN format('REFERENCES wide.t%%s(id)', i - 1) ELSE '' END);
    EXECUTE format('COMMENT ON TABLE wide.t%%s IS %%L', i, 'generated table ' || i);
    EXECUTE format('COMMENT ON COLUMN wide.t%%s.amount IS %%L', i, 'amount in EUR');
    IF i %% 100 = 0 THEN
      EXECUTE format('CREATE VIEW wide.v%%s AS SELECT id, name FROM wide.t%%s', i, i);
    END IF;
  END LOOP;
END $$;
INSERT INTO wide.t1 SELECT g, NULL, 'n' || g, g, now(), true, '', 0.5 FROM generate_series(1, 1000) g;
ANALYZE;
GRANT USAGE ON SCHEMA wide TO loupe_ro;
GRANT SELECT ON ALL TABLES IN SCHEMA wide TO loupe_ro;`, wideTables)
		_, err = b.Exec(ctx, gen)
		b.Close(ctx)
		if err != nil {
			t.Fatalf("generate the wide schema: %v", err)
		}
		for _, q := range []string{"GRANT CONNECT ON DATABASE loupe_wide_building TO loupe_ro", "ALTER DATABASE loupe_wide_building RENAME TO loupe_wide"} {
			if _, err := admin.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("generated %d tables in %v", wideTables, time.Since(start))
	}
	return roProfile(t, env, "loupe_wide")
}

// TestDiscoverWide discovers a 5,000-table schema within the 30 s
// budget, with every table's columns and keys.
func TestDiscoverWide(t *testing.T) {
	p, pw := wideDB(t)
	ctx := context.Background()
	s, err := Open(ctx, p, pw)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	sc, err := s.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	t.Logf("discovered %d tables and views in %v", len(sc.Tables), el)
	if el > 30*time.Second {
		t.Fatalf("discovery took %v, budget 30 s", el)
	}
	views := wideTables / 100
	if len(sc.Tables) != wideTables+views {
		t.Fatalf("found %d tables and views, want %d", len(sc.Tables), wideTables+views)
	}
	last := sc.Table(fmt.Sprintf("wide.t%d", wideTables))
	if last == nil || len(last.Columns) != 8 || len(last.PrimaryKey) != 1 || len(last.ForeignKeys) != 1 ||
		last.ForeignKeys[0].RefTable != fmt.Sprintf("t%d", wideTables-1) || last.Comment == "" {
		t.Fatalf("last table: %+v", last)
	}
	if t1 := sc.Table("wide.t1"); t1 == nil || t1.Rows != 1000 {
		t.Fatalf("t1 row estimate: %+v", t1)
	}
	if v := sc.Table("wide.v100"); v == nil || v.Kind != "view" || v.Rows != -1 {
		t.Fatalf("view: %+v", v)
	}
	if n := len(sc.JoinPaths()); n != wideTables-1 {
		t.Fatalf("%d join paths, want %d", n, wideTables-1)
	}
}

func BenchmarkDiscoverWide(b *testing.B) {
	p, pw := wideDB(b)
	ctx := context.Background()
	s, err := Open(ctx, p, pw)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	for b.Loop() {
		sc, err := s.Discover(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(sc.Tables)), "tables")
	}
}
