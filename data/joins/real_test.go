package joins_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/index/indextest"
	"github.com/loupeapp/loupe/data/joins"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// TestChinookInferred loads Chinook's SQLite file and infers its joins from
// names, types and values, the keys the loader kept from the file set
// aside; the file's own foreign keys are the truth, and the loader must
// have kept every one of them.
func TestChinookInferred(t *testing.T) {
	ctx := context.Background()
	file, err := filepath.Abs("../remote/sqlite/testdata/Chinook_Sqlite.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ds, err := ws.Loader.Load(ctx, file, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	byPart := map[string]string{}
	for _, d := range ds {
		byPart[d.Part] = d.Name
	}
	truth := declaredKeys(t, file, byPart)
	tables := index.FromDatasets(ds)
	kept := 0
	for i := range tables {
		for _, fk := range tables[i].Foreign {
			for j, c := range fk.Columns {
				if truth[tables[i].Name+"."+c+"="+fk.RefTable+"."+fk.RefColumns[j]] {
					kept++
				}
			}
		}
		tables[i].Foreign, tables[i].PrimaryKey = nil, nil
	}
	if kept != len(truth) {
		t.Errorf("the loader kept %d of the file's %d foreign keys", kept, len(truth))
	}
	paths, err := joins.NewFinder(&joins.DuckChecker{DB: ws.Engine.DB()}).Find(ctx, tables)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, p := range paths {
		k := p.From + "." + p.FromColumn + "=" + p.To + "." + p.ToColumn
		if truth[k] {
			found++
			if p.Confidence < 0.5 || p.Containment < joins.MinContainment {
				t.Errorf("%s: confidence %.2f, containment %.2f", k, p.Confidence, p.Containment)
			}
			continue
		}
		t.Errorf("false path %s (%s, %.2f)", k, p.Rule, p.Confidence)
	}
	// SupportRepId → EmployeeId and ReportsTo → EmployeeId are named for
	// roles, not tables: out of reach of names.
	if found < len(truth)-2 {
		t.Errorf("found %d of %d declared keys: %v", found, len(truth), paths)
	}
	t.Logf("Chinook: %d of %d foreign keys inferred, %d false", found, len(truth), len(paths)-found)
}

// declaredKeys reads a SQLite file's foreign keys as dataset paths.
func declaredKeys(t *testing.T, file string, names map[string]string) map[string]bool {
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT m.name, p."table", p."from", p."to" FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) p WHERE m.type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var from, to, fc, tc string
		if err := rows.Scan(&from, &to, &fc, &tc); err != nil {
			t.Fatal(err)
		}
		out[names[from]+"."+fc+"="+names[to]+"."+tc] = true
	}
	return out
}

// TestDefogInferred infers joins across the eleven defog-data databases in
// one workspace: the keys their DDL declares must be found, and no path
// may link two databases.
func TestDefogInferred(t *testing.T) {
	ctx := context.Background()
	testdata, err := indextest.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	l, err := indextest.LoadDefog(ctx, testdata, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.WS.Close()
	ds, err := l.WS.Datasets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dbOf := map[string]string{}
	for key, name := range l.Names {
		dbOf[name], _, _ = strings.Cut(key, ".")
	}
	paths, err := joins.NewFinder(&joins.DuckChecker{DB: l.WS.Engine.DB()}).Find(ctx, index.FromDatasets(ds))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	cross := 0
	for _, p := range paths {
		got[p.From+"."+p.FromColumn+"="+p.To+"."+p.ToColumn] = true
		if dbOf[p.From] != dbOf[p.To] {
			cross++
			t.Logf("cross-database path %s.%s = %s.%s (%s, %.2f)", p.From, p.FromColumn, p.To, p.ToColumn, p.Rule, p.Confidence)
		}
	}
	declared, found := 0, 0
	for _, db := range l.DBs {
		for _, k := range db.Keys {
			declared++
			key := l.Dataset(db.Name, k.From) + "." + k.FromColumn + "=" + l.Dataset(db.Name, k.To) + "." + k.ToColumn
			if got[key] {
				found++
			} else {
				t.Logf("missed declared key %s", key)
			}
		}
	}
	t.Logf("defog: %d paths; %d of %d declared keys found; %d cross-database", len(paths), found, declared, cross)
	if found < declared*8/10 {
		t.Errorf("found %d of %d declared keys", found, declared)
	}
	if cross*10 > len(paths) {
		t.Errorf("%d of %d paths link two databases", cross, len(paths))
	}
}
