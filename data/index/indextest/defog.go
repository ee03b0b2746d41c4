// Package indextest builds the material the retrieval tests and benchmarks
// run on: the public defog-data databases as DuckDB files with their
// column descriptions and declared keys, the sql-eval questions with the
// tables their gold SQL reads, and large synthetic schemas.
package indextest

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" driver
)

// Testdata is the repository's folder of test material shared by several
// packages (testdata/ beside go.mod, found from the working directory
// upwards): defog-data/ and sql-eval/, with their sources and licences in
// its README.md.
func Testdata() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "testdata")
			if _, err := os.Stat(filepath.Join(p, "defog-data")); err != nil {
				return "", fmt.Errorf("test material missing from the repository: %w", err)
			}
			return p, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory: run the tests inside the repository")
		}
		dir = up
	}
}

// DB is one defog-data database written as a DuckDB file.
type DB struct {
	Name string // academic, broker, …
	Path string // the .duckdb file
	// Tables are the table names as the file holds them (schema.name for
	// tables outside main).
	Tables []string
	// Descriptions maps table → column → the dataset's description.
	Descriptions map[string]map[string]string
	// Keys are the foreign keys the DDL declares: the true join paths.
	Keys []Key
}

// Key is a declared foreign key, table.column → table.column.
type Key struct{ From, FromColumn, To, ToColumn string }

var (
	reSerial     = regexp.MustCompile(`(?i)\bSERIAL\b`)
	reReferences = regexp.MustCompile(`(?i)\bREFERENCES\s+([\w.]+)\s*\(\s*(\w+)\s*\)`)
	reCreate     = regexp.MustCompile(`(?i)CREATE TABLE\s+([\w.]+)\s*\(`)
	reColumn     = regexp.MustCompile(`^\s*(\w+)\s`)
)

// Defog writes every defog-data database under testdata (see Testdata) as
// a DuckDB file in dir. The PostgreSQL dumps are adapted the usual way (no
// "public." prefix, SERIAL as INTEGER) and a little more so that all eleven
// load: a to_char macro for broker's and yelp's data, and REFERENCES
// clauses taken out (DuckDB refuses ewallet's mismatched key types) but
// recorded in Keys.
func Defog(ctx context.Context, testdata, dir string) ([]DB, error) {
	files, err := filepath.Glob(filepath.Join(testdata, "defog-data", "*.sql"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no defog-data databases under %s", testdata)
	}
	var out []DB
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sql")
		db, err := defogDB(ctx, f, filepath.Join(dir, name+".duckdb"))
		if err != nil {
			return nil, fmt.Errorf("defog %s: %w", name, err)
		}
		db.Name = name
		out = append(out, db)
	}
	return out, nil
}

func defogDB(ctx context.Context, src, dst string) (DB, error) {
	raw, err := os.ReadFile(src)
	if err != nil {
		return DB{}, err
	}
	text := strings.ReplaceAll(string(raw), "public.", "")
	text = reSerial.ReplaceAllString(text, "INTEGER")
	out := DB{Path: dst, Descriptions: map[string]map[string]string{}}
	out.Keys, out.Tables = keysOf(text)
	text = reReferences.ReplaceAllString(text, "")
	conn, err := sql.Open("duckdb", dst)
	if err != nil {
		return DB{}, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "CREATE MACRO to_char(t, f) AS strftime(t, '%Y%m%d %H:%M:%S')"); err != nil {
		return DB{}, err
	}
	if _, err := conn.ExecContext(ctx, text); err != nil {
		return DB{}, err
	}
	if _, err := conn.ExecContext(ctx, "DROP MACRO to_char"); err != nil {
		return DB{}, err
	}
	meta, err := os.ReadFile(strings.TrimSuffix(src, ".sql") + ".json")
	if err != nil {
		return DB{}, err
	}
	var m struct {
		Tables map[string][]struct {
			Column      string `json:"column_name"`
			Description string `json:"column_description"`
		} `json:"table_metadata"`
	}
	if err := json.Unmarshal(meta, &m); err != nil {
		return DB{}, fmt.Errorf("descriptions: %w", err)
	}
	for t, cols := range m.Tables {
		d := map[string]string{}
		for _, c := range cols {
			d[c.Column] = c.Description
		}
		out.Descriptions[t] = d
	}
	return out, nil
}

// keysOf reads the tables and REFERENCES clauses of DDL text.
func keysOf(text string) ([]Key, []string) {
	var keys []Key
	var tables []string
	table := ""
	for _, line := range strings.Split(text, "\n") {
		if m := reCreate.FindStringSubmatch(line); m != nil {
			table = m[1]
			tables = append(tables, table)
			continue
		}
		ref := reReferences.FindStringSubmatch(line)
		col := reColumn.FindStringSubmatch(line)
		if ref == nil || col == nil || table == "" {
			continue
		}
		keys = append(keys, Key{From: table, FromColumn: col[1], To: ref[1], ToColumn: ref[2]})
	}
	sort.Strings(tables)
	return keys, tables
}
