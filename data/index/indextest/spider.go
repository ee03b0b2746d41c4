package indextest

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// spiderDB is one database of Spider's tables.json.
type spiderDB struct {
	ID          string            `json:"db_id"`
	Tables      []string          `json:"table_names_original"`
	Columns     [][2]any          `json:"column_names_original"` // [table index, name]; -1 is "*"
	Types       []string          `json:"column_types"`
	PrimaryKeys []json.RawMessage `json:"primary_keys"` // column index, or a list of them
	ForeignKeys [][2]int          `json:"foreign_keys"` // [from column, to column]
}

// Spider writes every schema of testdata's spider-union (see Testdata) into
// one DuckDB file at path, one schema per database, each table created
// empty with its declared primary key and the foreign keys DuckDB accepts
// (a key between columns of different types, or one closing a cycle, is
// left out of the file but kept in Keys). It returns the databases, Path
// being the one file for all.
func Spider(ctx context.Context, testdata, path string) ([]DB, error) {
	raw, err := os.ReadFile(filepath.Join(testdata, "spider-union", "tables.json"))
	if err != nil {
		return nil, err
	}
	var in []spiderDB
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("spider-union tables.json: %w", err)
	}
	conn, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	out := make([]DB, 0, len(in))
	for _, s := range in {
		db, err := writeSpider(ctx, conn, s)
		if err != nil {
			return nil, fmt.Errorf("spider %s: %w", s.ID, err)
		}
		db.Path = path
		out = append(out, db)
	}
	return out, nil
}

// spiderTable is a table of a Spider database as written.
type spiderTable struct {
	name    string
	cols    []string // original names, case-insensitively unique
	types   []string // DuckDB types
	pk      []string
	unique  map[string]bool // referenced columns that are not the primary key
	refs    []Key           // foreign keys from this table
	created bool
}

func writeSpider(ctx context.Context, conn *sql.DB, s spiderDB) (DB, error) {
	db := DB{Name: s.ID, Tables: append([]string(nil), s.Tables...)}
	tables := make([]*spiderTable, len(s.Tables))
	for i, n := range s.Tables {
		tables[i] = &spiderTable{name: n, unique: map[string]bool{}}
	}
	key := map[int]bool{}
	for _, pk := range s.PrimaryKeys {
		for _, c := range columnIndexes(pk) {
			key[c] = true
		}
	}
	for _, fk := range s.ForeignKeys {
		key[fk[0]], key[fk[1]] = true, true
	}
	owner := make([]int, len(s.Columns))
	name := make([]string, len(s.Columns))
	typ := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		owner[i] = int(c[0].(float64))
		name[i], _ = c[1].(string)
		if owner[i] < 0 {
			continue
		}
		typ[i] = duckType(s.Types[i], key[i])
		t := tables[owner[i]]
		dup := false
		for _, have := range t.cols {
			dup = dup || strings.EqualFold(have, name[i])
		}
		if !dup {
			t.cols = append(t.cols, name[i])
			t.types = append(t.types, typ[i])
		}
	}
	for _, pk := range s.PrimaryKeys {
		for _, c := range columnIndexes(pk) {
			t := tables[owner[c]]
			t.pk = append(t.pk, name[c])
		}
	}
	for _, fk := range s.ForeignKeys {
		from, to := fk[0], fk[1]
		k := Key{From: s.Tables[owner[from]], FromColumn: name[from], To: s.Tables[owner[to]], ToColumn: name[to]}
		db.Keys = append(db.Keys, k)
		if typ[from] != typ[to] {
			continue // DuckDB refuses a key between different types
		}
		tables[owner[from]].refs = append(tables[owner[from]].refs, k)
		if t := tables[owner[to]]; !(len(t.pk) == 1 && strings.EqualFold(t.pk[0], name[to])) {
			t.unique[name[to]] = true
		}
	}
	if _, err := conn.ExecContext(ctx, "CREATE SCHEMA "+quote(s.ID)); err != nil {
		return DB{}, err
	}
	// Tables referenced first; a cycle is broken by leaving out the keys
	// of the first table that cannot wait.
	for left := len(tables); left > 0; {
		progress := false
		for _, t := range tables {
			if t.created || !t.ready(tables) {
				continue
			}
			if err := t.create(ctx, conn, s.ID, tables); err != nil {
				return DB{}, err
			}
			left--
			progress = true
		}
		if !progress && left > 0 {
			for _, t := range tables {
				if !t.created {
					t.refs = nil
					break
				}
			}
		}
	}
	return db, nil
}

// ready reports whether every table t references (itself aside) exists.
func (t *spiderTable) ready(all []*spiderTable) bool {
	for _, k := range t.refs {
		for _, o := range all {
			if o != t && strings.EqualFold(o.name, k.To) && !o.created {
				return false
			}
		}
	}
	return true
}

// create writes t into schema; when DuckDB refuses its foreign keys it is
// written without them.
func (t *spiderTable) create(ctx context.Context, conn *sql.DB, schema string, all []*spiderTable) error {
	defs := make([]string, 0, len(t.cols)+len(t.refs)+2)
	for i, c := range t.cols {
		defs = append(defs, quote(c)+" "+t.types[i])
	}
	if len(t.pk) > 0 {
		defs = append(defs, "PRIMARY KEY ("+quoteAll(t.pk)+")")
	}
	for c := range t.unique {
		defs = append(defs, "UNIQUE ("+quote(c)+")")
	}
	base := strings.Join(defs, ", ")
	var refs []string
	for _, k := range t.refs {
		refs = append(refs, "FOREIGN KEY ("+quote(k.FromColumn)+") REFERENCES "+quote(schema)+"."+quote(k.To)+" ("+quote(k.ToColumn)+")")
	}
	table := quote(schema) + "." + quote(t.name)
	if len(refs) > 0 {
		if _, err := conn.ExecContext(ctx, "CREATE TABLE "+table+" ("+base+", "+strings.Join(refs, ", ")+")"); err == nil {
			t.created = true
			return nil
		}
	}
	if _, err := conn.ExecContext(ctx, "CREATE TABLE "+table+" ("+base+")"); err != nil {
		return fmt.Errorf("create %s: %w", t.name, err)
	}
	t.created = true
	return nil
}

// columnIndexes reads a primary_keys entry: one column index or a list.
func columnIndexes(raw json.RawMessage) []int {
	var one int
	if json.Unmarshal(raw, &one) == nil {
		return []int{one}
	}
	var many []int
	_ = json.Unmarshal(raw, &many) // anything else declares no key
	return many
}

func duckType(spider string, key bool) string {
	switch spider {
	case "number":
		if key {
			return "BIGINT"
		}
		return "DOUBLE"
	case "time":
		return "TIMESTAMP"
	case "boolean":
		return "BOOLEAN"
	}
	return "VARCHAR"
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return strings.Join(q, ", ")
}

// LoadSpider writes the spider-union schemas into dir/spider.duckdb and
// loads the file into the workspace in dir/ws, as a user opening it would:
// 876 empty tables, one dataset each. The caller closes l.WS.
func LoadSpider(ctx context.Context, testdata, dir string) (*Loaded, error) {
	path := filepath.Join(mkdir(filepath.Join(dir, "spider")), "spider.duckdb")
	dbs, err := Spider(ctx, testdata, path)
	if err != nil {
		return nil, err
	}
	return loadInto(ctx, dbs, []string{path}, filepath.Join(dir, "ws"))
}

// SpiderQuestions reads spider-union's questions with their gold tables,
// spelled as dbs' Tables spell them.
func SpiderQuestions(testdata string, dbs []DB) ([]Question, error) {
	f, err := os.Open(filepath.Join(testdata, "spider-union", "questions.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	byName := map[string]DB{}
	for _, db := range dbs {
		byName[db.Name] = db
	}
	var out []Question
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		var q struct {
			Question string   `json:"question"`
			DB       string   `json:"db_id"`
			Gold     []string `json:"gold"`
			Query    string   `json:"query"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("spider-union questions: %w", err)
		}
		db, ok := byName[q.DB]
		if !ok {
			return nil, fmt.Errorf("spider-union question on unknown database %s", q.DB)
		}
		question := Question{Text: q.Question, DB: q.DB, SQL: q.Query}
		for _, g := range q.Gold {
			for _, t := range db.Tables {
				if strings.EqualFold(g, t) {
					question.Gold = append(question.Gold, t)
				}
			}
		}
		if len(question.Gold) > 0 {
			out = append(out, question)
		}
	}
	return out, sc.Err()
}
