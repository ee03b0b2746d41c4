package remote

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the window's copy of the read-only role's SQL")

// roleSQLFile is the window's copy of ReadOnlyRoleSQL for the database
// "mydb", which the connection dialog shows before any test (it swaps in
// the database typed). It is generated: go test ./data/remote -run
// ReadOnlyRoleSQL -update.
const roleSQLFile = "../../frontend/src/components/connections/readOnlyRole.json"

// TestReadOnlyRoleSQLIsTheOneShown keeps ReadOnlyRoleSQL the one source of
// the read-only role's SQL: the README and the connection dialog show the
// same text.
func TestReadOnlyRoleSQLIsTheOneShown(t *testing.T) {
	pg, my := ReadOnlyRoleSQL(Postgres, "mydb"), ReadOnlyRoleSQL(MySQL, "mydb")
	want, err := json.MarshalIndent(map[string]string{"postgres": pg, "mysql": my}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile(roleSQLFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(roleSQLFile)
	if err != nil || string(got) != string(want) {
		t.Errorf("%s is not ReadOnlyRoleSQL's (%v): run go test ./data/remote -run ReadOnlyRoleSQL -update\n%s", filepath.Base(roleSQLFile), err, got)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := "```sql\n-- PostgreSQL\n" + pg + "\n-- MySQL / MariaDB\n" + my + "\n```"
	if !strings.Contains(string(readme), block) {
		t.Errorf("the README's remote-database section does not show ReadOnlyRoleSQL's SQL:\n%s", block)
	}
	if got := ReadOnlyRoleSQL(Postgres, "shop; DROP"); !strings.Contains(got, "DATABASE mydb TO") {
		t.Errorf("a database name that needs quoting is not put in: %s", got)
	}
}
