package load_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// material is a file or folder of test material in the repository, rel
// to this package's folder (testdata/…, or another package's testdata such
// as ../remote/sqlite/testdata/Chinook_Sqlite.sqlite). testdata/README.md
// names each file's source and licence.
func material(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("test material missing from the repository: %v", err)
	}
	return p
}

// threeTableDuckDB writes a DuckDB database file with three tables of
// 1,000 rows each (taxi, rideshare, service_requests: the shape of the NYC
// sample the loader was first tried on) and returns its path. The file is
// closed, as a user's file would be.
func threeTableDuckDB(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "nyc.duckdb")
	db, err := sql.Open("duckdb", p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE taxi AS SELECT range AS trip_id, TIMESTAMP '2023-01-01' + INTERVAL (range) MINUTE AS pickup_at,
			round(5 + (range % 40) * 1.25, 2) AS fare, ['Manhattan', 'Brooklyn', 'Queens'][1 + range % 3] AS borough FROM range(1000)`,
		`CREATE TABLE rideshare AS SELECT range AS ride_id, 'HV000' || (2 + range % 4) AS license,
			(range % 17) * 0.7 AS miles FROM range(1000)`,
		`CREATE TABLE service_requests AS SELECT 100000 + range AS unique_key, ['DOF', 'DOT', 'NYPD', 'HPD'][1 + range % 4] AS agency,
			DATE '2022-01-01' + CAST(range % 365 AS INTEGER) AS created_date FROM range(1000)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("write %s: %v", p, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}
