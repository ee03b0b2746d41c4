package agenttest

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/tools"
)

// Table is a table the stub tools serve, held in memory whole.
type Table struct {
	Name    string
	Columns []tools.Column
	Rows    [][]any
}

// column is the position of the column called name, -1 if t has none.
func (t *Table) column(name string) int {
	for i, c := range t.Columns {
		if equalFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// DB is the stub database the stub tools read: a few tables in memory.
type DB struct {
	Tables []*Table
	// Slow holds queries (as written, spaces collapsed) that run until
	// their context ends, for cancelling a run mid-tool.
	Slow map[string]bool
}

// table is the table called name, nil if db has none.
func (db *DB) table(name string) *Table {
	for _, t := range db.Tables {
		if equalFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// Schema describes db's tables for the agent's prompt, as the workspace's
// would be: names, row counts, columns and types, no join path.
func (db *DB) Schema() agent.Schema {
	s := agent.Schema{Dialect: "DuckDB"}
	for _, t := range db.Tables {
		at := agent.Table{Name: t.Name, Rows: int64(len(t.Rows)), Source: t.Name + ".csv"}
		for _, c := range t.Columns {
			at.Columns = append(at.Columns, agent.Column{Name: c.Name, Type: c.Type})
		}
		s.Tables = append(s.Tables, at)
	}
	return s
}

// Shop is the stub database of the tool tests' fixtures (tools/tooltest's
// testdata, read here from the CSV files): orders (40 rows) and customers
// (10 rows). Its answers are computed from those rows, so a test that
// expects 40 orders expects what the files hold.
func Shop() (*DB, error) {
	db := &DB{Slow: map[string]bool{}}
	for _, name := range []string{"orders", "customers"} {
		t, err := readCSV(name, filepath.Join(fixtures(), name+".csv"))
		if err != nil {
			return nil, err
		}
		db.Tables = append(db.Tables, t)
	}
	return db, nil
}

// fixtures is tools/tooltest's testdata folder.
func fixtures() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("agenttest: cannot locate its own source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "tools", "tooltest", "testdata")
}

// readCSV reads a CSV file with a header as the table called name, typing
// a column BIGINT or DOUBLE when all its values parse as such, else
// VARCHAR.
func readCSV(name, path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open the fixture %s: %w", name, err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) == 0 {
		return nil, fmt.Errorf("read the fixture %s: %v", name, err)
	}
	t := &Table{Name: name}
	for j, h := range recs[0] {
		typ := "BIGINT"
		for _, r := range recs[1:] {
			if _, err := strconv.ParseInt(r[j], 10, 64); err == nil {
				continue
			}
			if _, err := strconv.ParseFloat(r[j], 64); err == nil {
				typ = "DOUBLE"
				continue
			}
			typ = "VARCHAR"
			break
		}
		t.Columns = append(t.Columns, tools.Column{Name: h, Type: typ})
	}
	for _, r := range recs[1:] {
		row := make([]any, len(r))
		for j, v := range r {
			switch t.Columns[j].Type {
			case "BIGINT":
				row[j], _ = strconv.ParseInt(v, 10, 64)
			case "DOUBLE":
				row[j], _ = strconv.ParseFloat(v, 64)
			default:
				row[j] = v
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}
