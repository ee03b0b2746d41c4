package retrieve_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
	_ "modernc.org/sqlite"
)

// TestDeclaredKeysOfALoadedFile: a DuckDB or SQLite file's foreign keys reach the
// prompt as declared join paths, and bring in the table linking two that
// the question names even when no column names match (enrolment.learner
// → student.stuid, enrolment.unit → course, its primary key cid). Before, only a
// connection's declared keys did; a loaded file's tables were linked by
// alike names alone, and here there are none.
func TestDeclaredKeysOfALoadedFile(t *testing.T) {
	for _, driver := range []string{"duckdb", "sqlite"} {
		t.Run(driver, func(t *testing.T) { declaredKeys(t, driver) })
	}
}

func declaredKeys(t *testing.T, driver string) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "school."+driver)
	db, err := sql.Open(driver, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"CREATE TABLE student (stuid INTEGER PRIMARY KEY, fullname VARCHAR, born DATE)",
		"CREATE TABLE course (cid INTEGER PRIMARY KEY, title VARCHAR, credits INTEGER)",
		"CREATE TABLE enrolment (learner INTEGER REFERENCES student (stuid), unit INTEGER REFERENCES course, grade VARCHAR)",
		"CREATE TABLE weather (day DATE, rain DOUBLE)",
		"CREATE TABLE invoices (number INTEGER, total DOUBLE)",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Loader.Load(ctx, path, load.Options{}); err != nil {
		t.Fatal(err)
	}
	s, meta, err := retrieve.Retrieve(ctx, ws, nil, "Which course titles does each student's fullname take?", retrieve.Budget{Tables: 3})
	if err != nil {
		t.Fatal(err)
	}
	var described []string
	for _, tb := range s.Tables {
		if len(tb.Columns) > 0 {
			described = append(described, tb.Name)
		}
	}
	t.Logf("described %v, %d bridges, join paths %+v", described, meta.Bridges, s.JoinPaths)
	if !slices.Contains(described, "enrolment") || meta.Bridges == 0 {
		t.Errorf("enrolment not brought in as a bridge: described %v, %d bridges", described, meta.Bridges)
	}
	var declared []string
	for _, p := range s.JoinPaths {
		if p.Declared {
			declared = append(declared, p.From+"."+p.FromColumn+"="+p.To+"."+p.ToColumn)
		}
	}
	for _, want := range []string{"enrolment.learner=student.stuid", "enrolment.unit=course.cid"} {
		if !slices.Contains(declared, want) {
			t.Errorf("declared join path %s missing: %v", want, declared)
		}
	}
}
